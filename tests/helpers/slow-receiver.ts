// A real webhook receiver on 127.0.0.1:0 that answers every request 200 after a delay, so a delivery
// engine sending to it keeps many requests in flight. It records the messageId of each webhook body
// (bodyShape "full" carries it), tags each request with the `phase` that was current when its
// connection was accepted (a test bumps it between two runs of Sluice), and counts requests received
// but not yet answered.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SlowRequest {
  /** The body's messageId, or null when the body was not JSON with a string messageId. */
  messageId: string | null;
  phase: number;
  at: number;
}

export interface SlowReceiver {
  url: string;
  /** Tag for connections accepted from now on. */
  phase: number;
  received: SlowRequest[];
  /** messageId → how many requests carried it. */
  counts: Map<string, number>;
  /** Requests received (headers in) and not yet answered or closed. */
  open(): number;
  /** The most requests open at once, per phase. */
  maxOpen: Map<number, number>;
  /** Resolves once every id in `ids` has been received at least once (or rejects after `ms`). */
  waitForAll(ids: Iterable<string>, ms: number): Promise<void>;
  /** Resolves once `n` distinct messageIds have been received (or rejects after `ms`). */
  waitForDistinct(n: number, ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSlowReceiver(options: { minDelayMs: number; maxDelayMs: number }): Promise<SlowReceiver> {
  const received: SlowRequest[] = [];
  const counts = new Map<string, number>();
  const maxOpen = new Map<number, number>();
  const sockets = new Set<Socket>();
  const socketPhase = new WeakMap<Socket, number>();
  const timers = new Set<NodeJS.Timeout>();
  const openByPhase = new Map<number, number>();
  let open = 0;

  const poll = (done: () => boolean, describe: () => string, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const until = Date.now() + ms;
      const tick = () => {
        if (done()) return resolve();
        if (Date.now() > until) return reject(new Error(describe()));
        setTimeout(tick, 10);
      };
      tick();
    });

  const receiver: SlowReceiver = {
    url: '',
    phase: 1,
    received,
    counts,
    maxOpen,
    open: () => open,
    waitForAll(ids, ms) {
      const wanted = [...ids];
      const missing = () => wanted.filter((id) => !counts.has(id));
      return poll(
        () => missing().length === 0,
        () => `receiver is still missing ${missing().length} of ${wanted.length} messageIds after ${ms} ms`,
        ms,
      );
    },
    waitForDistinct(n, ms) {
      return poll(() => counts.size >= n, () => `receiver got ${counts.size} of ${n} distinct messageIds in ${ms} ms`, ms);
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  const server = http.createServer((req, res) => {
    const phase = socketPhase.get(req.socket) ?? receiver.phase;
    open++;
    const inPhase = (openByPhase.get(phase) ?? 0) + 1;
    openByPhase.set(phase, inPhase);
    maxOpen.set(phase, Math.max(maxOpen.get(phase) ?? 0, inPhase));
    res.once('close', () => {
      open--;
      openByPhase.set(phase, (openByPhase.get(phase) ?? 1) - 1);
    });
    req.on('error', () => {}); // the sender died mid-request
    res.on('error', () => {});
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let messageId: string | null = null;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messageId?: unknown };
        if (typeof body.messageId === 'string') messageId = body.messageId;
      } catch {
        // recorded with a null messageId; tests assert there are none
      }
      received.push({ messageId, phase, at: Date.now() });
      if (messageId !== null) counts.set(messageId, (counts.get(messageId) ?? 0) + 1);
      const delay = options.minDelayMs + Math.random() * (options.maxDelayMs - options.minDelayMs);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed && !req.socket.destroyed) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      }, delay);
      timers.add(timer);
    });
  });
  server.on('connection', (socket: Socket) => {
    socketPhase.set(socket, receiver.phase);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
