// Helpers for the client library's tests: a manual clock and a scripted HTTP endpoint.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientClock } from '../../electron/client/clock.ts';

/** A clock that moves only when told: `advance(ms)` runs the timers that fall due, in order. */
export class ManualClock implements ClientClock {
  #now: number;
  #next = 1;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();

  constructor(start = Date.parse('2026-11-20T08:30:00.000Z')) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Timers waiting, as ms from now. */
  pending(): number[] {
    return [...this.#timers.values()].map((t) => t.at - this.#now).sort((a, b) => a - b);
  }

  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.#timers) if (entry[1].at <= target && (!due || entry[1].at < due[1].at)) due = entry;
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].callback();
    }
    this.#now = target;
  }
}

export interface ReceivedRequest {
  n: number;
  at: number;
  headers: http.IncomingHttpHeaders;
  url: string;
  body: { batch: Record<string, unknown>[]; sentAt: string };
  bytes: number;
}

/** What the scripted endpoint does with request number `n` (1-based): answer, hang, or drop the connection. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'reset';
/** A promise of an answer holds the request until it resolves. */
export type Script = (n: number, request: ReceivedRequest) => Answer | Promise<Answer>;

export interface ScriptedServer {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1:0 that answers batch requests as the script says. */
export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const request: ReceivedRequest = {
        n: requests.length + 1,
        at: Date.now(),
        headers: req.headers,
        url: req.url ?? '',
        body: JSON.parse(raw.toString('utf8')) as ReceivedRequest['body'],
        bytes: raw.length,
      };
      requests.push(request);
      const action = await script(request.n, request);
      if (res.destroyed) return;
      if (action === 'hang') return;
      if (action === 'reset') {
        req.socket.destroy();
        return;
      }
      res.writeHead(action.status, { 'content-type': 'application/json', ...action.headers });
      res.end(action.body ?? (action.status < 300 ? '{"success":true}' : `{"success":false,"error":{"code":"scripted","message":"scripted ${action.status}"}}`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Resolves once `predicate` holds, checking every 5 ms (rejects after `ms`). */
export async function until(predicate: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
