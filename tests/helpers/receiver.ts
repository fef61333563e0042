// A real webhook receiver on 127.0.0.1:0 that records what arrives and answers as a test scripts it.
import http from 'node:http';
import { afterEach } from 'vitest';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body's bytes exactly as they arrived. */
  bytes: Buffer;
  at: number;
}

/**
 * What to do with the next request: answer a status (with headers; once `after` settles, when
 * given), hang, or reset the connection.
 */
export type Behaviour =
  | { status: number; headers?: Record<string, string>; body?: string; after?: Promise<unknown> }
  | { hang: true }
  | { reset: true };

export interface Receiver {
  url: string;
  received: Received[];
  /** Behaviours for the next requests, in order; after them, `fallback`. */
  script(...behaviours: Behaviour[]): void;
  fallback: Behaviour;
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number, ms?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(tlsOptions?: { key: string; cert: string }): Promise<Receiver> {
  const received: Received[] = [];
  const queue: Behaviour[] = [];
  const sockets = new Set<Socket>();
  const waiters: { n: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    fallback: { status: 200, body: 'ok' },
    script: (...behaviours) => queue.push(...behaviours),
    waitFor(n, ms = 10_000) {
      if (received.length >= n) return Promise.resolve(received.slice(0, n));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${n} requests in ${ms} ms`)), ms);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received.slice(0, n));
          },
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      received.push({ path: req.url ?? '/', headers: req.headers, body: bytes.toString('utf8'), bytes, at: Date.now() });
      for (const waiter of waiters.splice(0)) {
        if (received.length >= waiter.n) waiter.resolve();
        else waiters.push(waiter);
      }
      const behaviour = queue.shift() ?? receiver.fallback;
      if ('hang' in behaviour) return; // never answers
      if ('reset' in behaviour) {
        req.socket.resetAndDestroy();
        return;
      }
      const answer = () => res.writeHead(behaviour.status, behaviour.headers).end(behaviour.body ?? '');
      if (behaviour.after) void behaviour.after.then(answer);
      else answer();
    });
  };
  const server = tlsOptions ? https.createServer(tlsOptions, handler) : http.createServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `${tlsOptions ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

/** A receiver factory for a test file: every receiver it starts is closed after each test. */
export function receiversClosedAfterEach(): (tls?: { key: string; cert: string }) => Promise<Receiver> {
  const open: Receiver[] = [];
  afterEach(async () => {
    for (const receiver of open.splice(0)) await receiver.close();
  });
  return async (tls) => {
    const receiver = await startReceiver(tls);
    open.push(receiver);
    return receiver;
  };
}

/** Three receivers for a destination's every outcome: one answering 200, one 500 ("down": retried), one 410 ("gone": failed). */
export async function okDownGoneReceivers(): Promise<{ ok: Receiver; down: Receiver; gone: Receiver }> {
  const [ok, down, gone] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
  down!.fallback = { status: 500, body: 'down' };
  gone!.fallback = { status: 410, body: 'gone' };
  return { ok: ok!, down: down!, gone: gone! };
}
