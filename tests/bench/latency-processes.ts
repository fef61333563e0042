// The latency benchmark's other processes, as latency.bench.ts drives them: the receiver
// (latency-receiver.ts), which notes when each probe reached each destination's path, and the
// background load (latency-load.ts). Each runs in its own process so that neither takes the CPU of the
// process that measures.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { round1 } from './latency-report.ts';

/** The receiver's paths: the signed webhook, the forward with flushMs 0, the forward with the default flush. */
export const KINDS = ['hook', 'fwd0', 'fwd1'] as const;
export type Kind = (typeof KINDS)[number];

/** The clock a probe's send and its arrivals at the receiver are both taken on (ms since the epoch). */
export const now = () => performance.timeOrigin + performance.now();

/** The receiver (its own process): when each probe reached each path, on this process's clock. */
export async function startReceiver() {
  const child = fork(path.join(import.meta.dirname, 'latency-receiver.ts'), { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  const arrivals = new Map<string, Partial<Record<Kind, number>>>();
  let offset = 0;
  let pong: ((at: number) => void) | undefined;
  child.on('message', (m: { pong?: number; kind?: Kind; at?: number; ids?: string[] }) => {
    if (m.pong !== undefined) pong?.(m.pong);
    else if (m.ids) for (const id of m.ids) arrivals.set(id, { ...arrivals.get(id), [m.kind!]: m.at! - offset });
  });
  // The receiver's clock against ours: the ping with the shortest round trip, its answer taken at the middle.
  let best = Infinity;
  for (let i = 0; i < 50; i++) {
    const t0 = now();
    const theirs = await new Promise<number>((resolve) => ((pong = resolve), child.send('ping')));
    const t1 = now();
    if (t1 - t0 < best) (best = t1 - t0), (offset = theirs - (t0 + t1) / 2);
  }
  return {
    url: (JSON.parse(line) as { url: string }).url,
    arrivals,
    clockUncertaintyMs: round1(best / 2),
    stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.send('stop'))),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * The background load (its own process) on `url`, `rate` events/s as /v1/batch of `batch`: mark() between
 * streams gives the rate it achieved; stop() what it did.
 */
export async function startLoad(url: string, rate: number, batch: number) {
  const job = { url, writeKey: 'wk_bench', rate, batch, maxInFlight: 64 };
  const child: ChildProcess = fork(path.join(import.meta.dirname, 'latency-load.ts'), [JSON.stringify(job)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let answer: ((m: unknown) => void) | undefined;
  const started = new Promise((resolve) => (answer = resolve));
  child.on('message', (m) => answer?.(m));
  await started;
  const ask = <T,>(message: string) => new Promise<T>((resolve) => ((answer = resolve as (m: unknown) => void), child.send(message)));
  type Mark = { mark: { accepted: number; skipped: number; at: number } };
  return {
    mark: async () => (await ask<Mark>('mark')).mark,
    stop: () => ask<Record<string, number>>('stop'),
  };
}
