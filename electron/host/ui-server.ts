import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { IMPORT_MAX_CHARS } from '../../shared/storage.ts';
import { http } from '../core/node-http.ts';
import fs from 'node:fs';
import path from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { WebSocket, WebSocketServer } from 'ws';
import type { ClientFrame, ServerFrame } from '../../shared/contract.ts';
import { createHandlers, invoke } from '../core/api/contract-handlers.ts';
import { streamEvents } from '../core/api/event-stream.ts';
import type { Core } from '../core/index.ts';
import { contentType, fileUnder, PAGE_SECURITY_HEADERS } from './page-files.ts';
import { API_PREFIX, serveHttpApi } from './http-api.ts';
import { newToken } from './inspector-token.ts';

export interface UiServerOptions {
  core: Core;
  host: string;
  port: number;
  /**
   * The secret the UI and the HTTP API must present. sluice serve gives the one kept in its data folder
   * (inspector-token.ts), so links outlive a restart; random for this server alone when not given.
   */
  token?: string;
  /** The built renderer (index.html and assets); a placeholder page is served without it. */
  rendererDir?: string;
}

/**
 * Frames above this are refused. The contract's requests are small but one: a file dropped on the
 * inspector (`messages.import`, at most IMPORT_MAX_CHARS characters, JSON-escaped in the frame). Only a
 * page that passed the token, Host and Origin checks gets a socket to send one on.
 */
const MAX_FRAME_BYTES = IMPORT_MAX_CHARS * 4;

/**
 * The headless host: serves the inspector to a browser and carries the contract over a WebSocket
 * (`/api`). Loopback by default; the WebSocket needs the token, a Host that is this server
 * (against DNS rebinding) and, from a browser, an Origin that is this server too.
 */
export class UiServer {
  readonly token: string;
  readonly #o: UiServerOptions;
  readonly #server: Server;
  /** The WebSocket side, made when the first page connects: ws (and the zlib it loads) are not needed to start. */
  #wss: Promise<WebSocketServer> | undefined;
  #closed = false;
  /** Aborted by close(): HTTP API waits end at once instead of holding the shutdown. */
  readonly #stopping = new AbortController();
  /** Message streams: told to finish (hand out what is stored, then end) before the rest stops. */
  readonly #finishing = new AbortController();
  readonly #streams = new Set<Promise<void>>();
  readonly #handlers;
  #port = 0;

  constructor(options: UiServerOptions) {
    this.#o = options;
    this.token = options.token ?? newToken();
    this.#handlers = createHandlers(options.core);
    this.#server = http.createServer((req, res) => this.#serve(req, res));
    this.#server.on('upgrade', (req, socket, head) => {
      // Node takes its own error listener off a socket it hands over: a reset would be thrown.
      socket.on('error', () => socket.destroy());
      const refusal = this.#refuseUpgrade(req);
      if (refusal) {
        socket.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      this.#webSockets().then(
        (wss) => {
          if (this.#closed || socket.destroyed) socket.destroy();
          else wss.handleUpgrade(req, socket, head, (ws) => this.#connect(ws));
        },
        () => socket.destroy(),
      );
    });
  }

  #webSockets(): Promise<WebSocketServer> {
    return (this.#wss ??= import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES })));
  }

  /** The address to open, token included. */
  get url(): string {
    return `${this.baseUrl}/?token=${this.token}`;
  }

  /** The HTTP API's base URL (http-api.ts): `Authorization: Bearer <token>`. */
  get apiUrl(): string {
    return `${this.baseUrl}/api/v1`;
  }

  get baseUrl(): string {
    const host = this.#o.host.includes(':') ? `[${this.#o.host}]` : this.#o.host;
    return `http://${host}:${this.#port}`;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#o.port, this.#o.host, () => resolve());
    });
    this.#port = (this.#server.address() as AddressInfo).port;
    return this.url;
  }

  /**
   * The message streams (`sluice tail`, scripts) hand out every message stored and end; resolves once
   * they have, or after `timeoutMs` (a reader that stopped reading). Call it once nothing more is being
   * stored (the core's stopIngesting): then nothing stored is left out of a stream when Sluice stops.
   */
  async finishStreams(timeoutMs = 10_000): Promise<void> {
    this.#finishing.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.#streams]),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs).unref())),
    ]);
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#finishing.abort();
    this.#stopping.abort();
    const wss = await this.#wss?.catch(() => undefined);
    for (const client of wss?.clients ?? []) client.terminate();
    wss?.close();
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections(); // kept-alive API clients: nothing more comes on them
    await closed;
  }

  /** Host names this server answers to: its own address, and localhost forms of loopback. */
  #allowedHosts(): Set<string> {
    const hosts = new Set([`${this.#o.host}:${this.#port}`, `[${this.#o.host}]:${this.#port}`]);
    if (['127.0.0.1', '::1', 'localhost'].includes(this.#o.host)) {
      for (const name of ['127.0.0.1', 'localhost', '[::1]']) hosts.add(`${name}:${this.#port}`);
    }
    return hosts;
  }

  #refuseUpgrade(req: IncomingMessage): string | undefined {
    const url = requestUrl(req);
    if (url?.pathname !== '/api') return '404 Not Found';
    const host = req.headers.host ?? '';
    if (!this.#allowedHosts().has(host)) return '403 Forbidden';
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`) return '403 Forbidden';
    const token = url.searchParams.get('token') ?? '';
    const given = Buffer.from(token);
    const expected = Buffer.from(this.token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return '401 Unauthorized';
    return undefined;
  }

  #connect(ws: WebSocket): void {
    const send = (frame: ServerFrame) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    };
    const unsubscribe = streamEvents(this.#o.core.bus, (events) => send({ kind: 'events', events }));
    ws.on('close', unsubscribe);
    // A frame over maxPayload or a protocol error: ws closes this socket (1009, 1002) and reports it here.
    ws.on('error', () => ws.terminate());
    ws.on('message', async (data) => {
      let frame: ClientFrame;
      try {
        frame = JSON.parse(data.toString()) as ClientFrame;
      } catch {
        ws.close(1003, 'frames are JSON');
        return;
      }
      if (frame?.kind !== 'invoke' || typeof frame.id !== 'number' || typeof frame.channel !== 'string') {
        ws.close(1003, 'expected {kind: "invoke", id, channel, request}');
        return;
      }
      send({ kind: 'result', id: frame.id, result: await invoke(this.#handlers, frame.channel, frame.request) });
    });
  }

  #serve(req: IncomingMessage, res: ServerResponse): void {
    if (!this.#allowedHosts().has(req.headers.host ?? '')) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('unknown Host');
      return;
    }
    const url = requestUrl(req);
    if (url?.pathname.startsWith(API_PREFIX)) {
      void serveHttpApi(this.#o.core, this.token, `http://${req.headers.host}`, req, res, url, this.#stopping.signal, {
        finishing: this.#finishing.signal,
        opened: (ended) => {
          this.#streams.add(ended);
          void ended.catch(() => {}).finally(() => this.#streams.delete(ended));
        },
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET' }).end();
      return;
    }
    const security = PAGE_SECURITY_HEADERS;
    const dir = this.#o.rendererDir;
    const pathname = decodedPath(req);
    if (pathname === undefined) {
      res.writeHead(400, { 'Content-Type': 'text/plain', ...security }).end('malformed URL');
      return;
    }
    if (dir && fs.existsSync(path.join(dir, 'index.html'))) {
      // Only files inside the renderer folder; anything else is the app's page (client-side routes).
      const target = fileUnder(dir, pathname) ?? path.join(path.resolve(dir), 'index.html');
      // The page is opened with the token in its URL: not kept in any cache. Assets are content-hashed.
      const caching = path.extname(target) === '.html' ? { 'Cache-Control': 'no-store' } : {};
      // Opened before the first byte: a file gone between the check and the read is a 404, not a cut answer.
      const file = fs.createReadStream(target);
      file.once('open', () => {
        res.writeHead(200, { 'Content-Type': contentType(target), ...security, ...caching });
        file.pipe(res);
      });
      file.once('error', () => (res.headersSent ? res.destroy() : res.writeHead(404, { 'Content-Type': 'text/plain', ...security }).end('not found')));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...security, 'Cache-Control': 'no-store' });
    res.end(`<!doctype html><meta charset="utf-8"><title>Sluice</title>
<h1>Sluice is running</h1>
<p>The inspector's web app is not built in this checkout. The contract is served at <code>/api</code> (WebSocket, token required).</p>`);
  }
}

/** The request's URL, or undefined when it does not parse (`//[`). */
function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://local');
  } catch {
    return undefined;
  }
}

/** The request's path, percent-decoded, or undefined when it is malformed (`/%E0%A4%A`). */
function decodedPath(req: IncomingMessage): string | undefined {
  const url = requestUrl(req);
  if (!url) return undefined;
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
}
