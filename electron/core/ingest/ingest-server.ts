import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { http } from '../node-http.ts';
import type { AddressInfo } from 'node:net';
import { INGEST_MAX_REQUEST_BYTES } from '../../../shared/limits.ts';
import type { MessageType } from '../../../shared/messages.ts';
import type { Clock } from '../clock.ts';
import type { CommittedRequest } from '../store/stored-request.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';
import { IMPORT_HEADER } from '../store/normalize.ts';
import { answerPreflight, originAllowed, originRefused, projectSettings, rudderSourceConfig, setCorsHeaders } from './browser-support.ts';
import { checkLoop } from './loop-check.ts';
import { IngestError, ingestErrorOf, unknownWriteKey } from './ingest-error.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import { readBody } from './read-body.ts';
import { basicAuthUser } from './basic-auth.ts';
import {
  CONNECTIONS_CHECK_INTERVAL_MS,
  HEADERS_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  answerClientError,
  maxIngestConnections,
  openFileLimit,
  REQUEST_TIMEOUT_MS,
} from './connection-limits.ts';
import { RefusedRequests, refusedPreview } from './refused-requests.ts';
import type { IngestFaults } from '../faults/ingest-faults.ts';
import { applyFault } from './fault-answers.ts';

/** Path segment after /v1/ → message type; the one-letter forms are what analytics.js posts to. */
const SINGLE_PATHS = new Map<string, MessageType>([
  ['identify', 'identify'], ['i', 'identify'],
  ['track', 'track'], ['t', 'track'],
  ['page', 'page'], ['p', 'page'],
  ['screen', 'screen'], ['s', 'screen'],
  ['group', 'group'], ['g', 'group'],
  ['alias', 'alias'], ['a', 'alias'],
]);
const BATCH_PATHS = new Set(['batch', 'import', 'b']); // /v1/b: analytics.js's batching delivery strategy

export interface IngestServerOptions {
  sources: SourcesRepo;
  writer: StoreWriter;
  clock: Clock;
  host: string;
  port: number;
  /** This Sluice's id: requests it sent itself are refused (loop-check.ts). */
  instanceId: string;
  /** Where the connection cap's line goes (default: stderr). */
  log?: (line: string) => void;
  /** Faults a test injected (faults/ingest-faults.ts): asked for each Tracking API request. */
  faults?: IngestFaults;
}

/**
 * Segment's HTTP Tracking API on node:http. This thread does HTTP only: routing, CORS, the write key
 * in the Authorization header, reading (and inflating) the body. Parsing, validation and the durable
 * group commit happen in the store's writer thread; a request is answered once its messages are stored.
 */
export class IngestServer {
  readonly #options: IngestServerOptions;
  readonly #server: Server;
  #url = '';
  #closing = false;
  /** Aborted by close(): a request a fault delays is let go at once. */
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<ServerResponse>();
  /** Open connections, and whether the cap's line may be written (again). */
  #connections = 0;
  #capNoted = false;
  #capNotedAt = -Infinity;
  /** Requests refused as a whole, stored as rejected entries (refused-requests.ts). */
  readonly #refused: RefusedRequests;

  constructor(options: IngestServerOptions) {
    this.#options = options;
    this.#refused = new RefusedRequests((job) => options.writer.submit(job), options.clock);
    // Timeouts and the cap: connection-limits.ts says why these.
    const serverOptions = {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
    };
    this.#server = http.createServer(serverOptions, (req, res) => {
      this.#inFlight.add(res);
      res.on('close', () => this.#inFlight.delete(res));
      // While closing, answers end their connections, so close() need not wait for clients to hang up.
      if (this.#closing) res.setHeader('Connection', 'close');
      res.on('finish', () => {
        if (this.#closing) this.#server.closeIdleConnections();
      });
      this.#handle(req, res).catch(async (error: unknown) => {
        // A request refused as a whole is stored as a rejected entry, so the inspector shows it; it is
        // answered once that is stored.
        if (error instanceof IngestError && !this.#closing) await this.#refused.note(req, error, remoteIp(req));
        this.#fail(res, error);
      });
    });
    this.#limitConnections(options.log ?? ((line) => console.error(line)));
    this.#server.on('clientError', answerClientError);
  }

  get url(): string {
    return this.#url;
  }

  /**
   * At most maxIngestConnections() open at once: Node refuses (closes) further ones. The first refusal
   * writes one line; the next is written only once the connections fell under half the cap again, and
   * a minute after the last.
   */
  #limitConnections(log: (line: string) => void): void {
    const openFiles = openFileLimit();
    const cap = maxIngestConnections(openFiles);
    this.#server.maxConnections = cap;
    this.#server.on('connection', (socket) => {
      this.#connections++;
      socket.once('close', () => {
        this.#connections--;
        if (this.#connections < cap / 2) this.#capNoted = false;
      });
    });
    this.#server.on('drop', () => {
      const now = this.#options.clock.now();
      if (this.#capNoted || now - this.#capNotedAt < 60_000) return;
      this.#capNoted = true;
      this.#capNotedAt = now;
      log(
        `sluice: the ingestion endpoint holds ${cap} connections, its limit (a quarter of the ${openFiles} files this process may open), ` +
          `and refuses new ones until some close: slow clients hold them (a request's headers get ${HEADERS_TIMEOUT_MS / 1000} s, ` +
          `a request ${REQUEST_TIMEOUT_MS / 1000} s, an idle connection ${KEEP_ALIVE_TIMEOUT_MS / 1000} s); raise the open-file limit (ulimit -n) to allow more`,
      );
    });
  }

  async listen(): Promise<string> {
    const { host, port } = this.#options;
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const address = this.#server.address() as AddressInfo;
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.#url = `http://${shownHost}:${address.port}`;
    return this.#url;
  }

  /**
   * Stops accepting: new connections are refused and requests arriving on open ones are answered
   * 503 (not acknowledged, so clients retry them later); requests already received finish and are
   * stored first.
   */
  async close(): Promise<void> {
    if (!this.#server.listening) return;
    this.#closing = true;
    this.#stopping.abort();
    // Requests already being handled: their answers close their connections.
    for (const res of this.#inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeIdleConnections();
    const force = setTimeout(() => this.#server.closeAllConnections(), 5_000);
    await closed;
    clearTimeout(force);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const query = rawUrl.indexOf('?');
    const path = query === -1 ? rawUrl : rawUrl.slice(0, query);

    if (req.method === 'OPTIONS') {
      return answerPreflight(req, res, (origin) => this.#options.sources.list().some((s) => originAllowed(s.allowedOrigins, origin)));
    }
    setCorsHeaders(req, res);
    if (this.#closing) throw new IngestError(503, 'shutting_down', 'Sluice is shutting down; retry later');

    if (path.startsWith('/v1/projects/')) return this.#projectSettings(req, res, path);
    if (path === '/sourceConfig' || path === '/sourceConfig/') return this.#sourceConfig(req, res, query === -1 ? '' : rawUrl.slice(query));
    if (path === '/health') {
      if (req.method !== 'GET') throw methodNotAllowed('GET');
      return sendJson(res, 200, { ok: true });
    }
    if (!path.startsWith('/v1/')) throw notFound(path);
    const segment = path.slice(4).replace(/\/$/, '');
    const singleType = SINGLE_PATHS.get(segment);
    const isBatch = BATCH_PATHS.has(segment);
    if (!singleType && !isBatch) throw notFound(path);
    if (req.method !== 'POST') throw methodNotAllowed('POST');
    const fault = this.#options.faults?.take(`/v1/${singleType ?? (segment === 'b' ? 'batch' : segment)}`);
    if (fault && (await this.#applyFault(req, res, path, fault))) return;
    return this.#ingest(req, res, segment, isBatch ? null : singleType!);
  }

  /** Carries out a fault (fault-answers.ts); true when it answered the request. A delay cut short by close() ends in 503 shutting_down. */
  async #applyFault(req: IncomingMessage, res: ServerResponse, path: string, fault: NonNullable<ReturnType<IngestFaults['take']>>): Promise<boolean> {
    const answered = await applyFault({
      req,
      res,
      fault,
      path,
      stopping: this.#stopping.signal,
      authorizationKey: basicAuthUser(req.headers.authorization),
      sourceOf: (writeKey) => (writeKey ? (this.#options.sources.byWriteKey(writeKey)?.name ?? null) : null),
      note: (request) => this.#options.faults!.note(request),
    });
    if (!answered && this.#closing) throw new IngestError(503, 'shutting_down', 'Sluice is shutting down; retry later');
    return answered;
  }

  async #ingest(
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: string,
    singleType: MessageType | null,
  ): Promise<void> {
    const via = checkLoop(req.headers, this.#options.instanceId);
    let sourceId: number | null = null;
    try {
      const otherType = unsupportedContentType(req.headers['content-type']);
      let body: Buffer;
      if (otherType === undefined) {
        sourceId = this.#sourceFromAuthorization(req.headers.authorization, req.headers.origin);
        ({ body } = await readBody(req, INGEST_MAX_REQUEST_BYTES));
      } else {
        // RudderStack's SDKs label their gzipped JSON application/x-www-form-urlencoded, and RudderStack's
        // data plane reads it: a gzip body that inflates to a JSON object is read whatever its label says.
        // Anything else under another content type is refused, as before, and before the write key is looked at.
        const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
        if (encoding !== 'identity' && encoding !== 'gzip') throw contentTypeError(otherType);
        const read = await readBody(req, INGEST_MAX_REQUEST_BYTES);
        if (!read.gzipped || !startsLikeObject(read.body)) throw Object.assign(contentTypeError(otherType), { preview: refusedPreview(read.body) });
        sourceId = this.#sourceFromAuthorization(req.headers.authorization, req.headers.origin);
        body = read.body;
      }
      const committed = await this.#options.writer.submit({
        body,
        sourceId,
        endpoint,
        singleType,
        receivedAt: this.#options.clock.now(),
        ip: remoteIp(req),
        ...(via ? { via } : {}),
        ...(req.headers[IMPORT_HEADER] === '1' ? { imported: true as const } : {}),
        // A key in the body is looked up by the writer thread, which checks the origin then.
        ...(sourceId === null && req.headers.origin !== undefined ? { origin: req.headers.origin } : {}),
      });
      respond(res, committed, singleType !== null);
    } catch (caught) {
      const error = ingestErrorOf(caught);
      // A refused request's stored entry names the source its Authorization named (refused-requests.ts).
      if (error instanceof IngestError && sourceId !== null) error.sourceId ??= sourceId;
      throw error;
    }
  }

  /**
   * The source named by a Basic auth header; null when there is none (the body may name it). A page
   * whose origin (the Origin header) the source does not accept is refused here, before its body is read.
   */
  #sourceFromAuthorization(header: string | undefined, origin: string | undefined): number | null {
    if (header === undefined) return null;
    const writeKey = basicAuthUser(header);
    if (writeKey === undefined) {
      throw new IngestError(401, 'invalid_authorization', 'Authorization must be "Basic base64(writeKey:)"');
    }
    if (writeKey === '') throw new IngestError(401, 'missing_write_key', 'the write key in Authorization is empty');
    const source = this.#options.sources.byWriteKey(writeKey);
    if (!source) throw unknownWriteKey();
    if (!originAllowed(source.allowedOrigins, origin)) throw Object.assign(originRefused(origin!), { sourceId: source.id });
    return source.id;
  }

  #projectSettings(req: IncomingMessage, res: ServerResponse, path: string): void {
    const match = /^\/v1\/projects\/([^/]+)\/settings\/?$/.exec(path);
    if (!match) throw notFound(path);
    if (req.method !== 'GET') throw methodNotAllowed('GET');
    let writeKey: string | undefined;
    try {
      writeKey = decodeURIComponent(match[1]!);
    } catch {
      writeKey = undefined; // malformed percent-encoding names no source
    }
    const source = writeKey === undefined ? undefined : this.#options.sources.byWriteKey(writeKey);
    if (writeKey === undefined || !source) {
      throw new IngestError(404, 'invalid_write_key', 'no source has this write key');
    }
    if (!originAllowed(source.allowedOrigins, req.headers.origin)) throw originRefused(req.headers.origin!);
    const host = req.headers.host ?? new URL(this.#url).host;
    sendJson(res, 200, projectSettings(writeKey, host));
  }

  /**
   * RudderStack's browser SDK asks for its source's config at `<configUrl>/sourceConfig/?writeKey=…`
   * (with the key as Basic auth too): answered for the source with that key (rudderSourceConfig).
   */
  #sourceConfig(req: IncomingMessage, res: ServerResponse, search: string): void {
    if (req.method !== 'GET') throw methodNotAllowed('GET');
    const writeKey = new URLSearchParams(search).get('writeKey') ?? basicAuthUser(req.headers.authorization);
    const source = writeKey ? this.#options.sources.byWriteKey(writeKey) : undefined;
    if (!source) throw new IngestError(404, 'invalid_write_key', 'no source has this write key: give the writeKey of a source in Sluice\'s Sources view');
    if (!originAllowed(source.allowedOrigins, req.headers.origin)) throw originRefused(req.headers.origin!);
    sendJson(res, 200, rudderSourceConfig(source));
  }

  #fail(res: ServerResponse, error: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof IngestError) {
      sendJson(res, error.status, { success: false, error: { code: error.code, message: error.message } });
      return;
    }
    // A store failure: nothing was acknowledged, so the client's retry loses nothing.
    sendJson(res, 500, {
      success: false,
      error: { code: 'internal_error', message: `Sluice could not store the request: ${(error as Error).message}` },
    });
  }
}

/** The media type when it is not one JSON is accepted under, else undefined (none at all is lenient: some HTTP libraries send none). */
function unsupportedContentType(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const type = header.split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'application/json' || type === 'text/plain' || (type.startsWith('application/') && type.endsWith('+json'))) {
    return undefined;
  }
  return type;
}

function contentTypeError(type: string): IngestError {
  return new IngestError(
    400,
    'unsupported_content_type',
    `Content-Type "${type}" is not supported; send JSON with Content-Type: application/json (gzipped JSON is read whatever its Content-Type)`,
  );
}

/** Whether the first byte after JSON whitespace opens an object (the writer then parses it in full). */
function startsLikeObject(body: Buffer): boolean {
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b; // {
  }
  return false;
}

function respond(res: ServerResponse, committed: CommittedRequest, single: boolean): void {
  const { rejected } = committed;
  if (rejected.length === 0) return sendJson(res, 200, { success: true });
  const first = rejected[0]!;
  if (single) return sendJson(res, 400, { success: false, error: { code: first.code, message: first.message } });
  const total = committed.ids.length;
  if (rejected.length === total) {
    return sendJson(res, 400, {
      success: false,
      error: { code: 'all_rejected', message: `all ${total} messages were rejected; first: ${first.message}` },
      rejected,
    });
  }
  sendJson(res, 200, { success: true, rejected });
}

function remoteIp(req: IncomingMessage): string | null {
  const address = req.socket.remoteAddress;
  if (!address) return null;
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

function notFound(path: string): IngestError {
  return new IngestError(
    404,
    'not_found',
    `no endpoint at ${path.slice(0, 200)}; use /v1/identify, /v1/track, /v1/page, /v1/screen, /v1/group, /v1/alias or /v1/batch`,
  );
}

function methodNotAllowed(allowed: string): IngestError {
  return new IngestError(405, 'method_not_allowed', `use ${allowed}`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
