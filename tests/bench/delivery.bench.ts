// Delivery benchmark: deliveries/s end to end (message stored → signed POST → attempt stored) to a
// loopback receiver, against a raw undici Pool.request POST loop with the same bodies and concurrency.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Pool } from 'undici';

const execFileAsync = promisify(execFile);
import { createCore } from '../../electron/core/index.ts';
import { signBody } from '../../shared/signature.ts';

const MESSAGES = Number(process.env.BENCH_DELIVERIES ?? 10_000);
const CONCURRENCY = 32;

export async function startSink(): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const child = fork(path.join(import.meta.dirname, 'sink-server.ts'), { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  return {
    url: (JSON.parse(line) as { url: string }).url,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function track(i: number) {
  return { type: 'track', userId: `user_${i % 5000}`, event: 'Order Completed', messageId: `m-${i}`, properties: { orderId: `o_${i}`, revenue: (i % 997) + 0.99, currency: 'USD' }, timestamp: '2026-11-21T10:00:00.000Z' };
}

/** The baseline: the same signed bodies POSTed by CONCURRENCY loops over one undici Pool. */
async function baseline(url: string): Promise<{ perSecond: number; p50Ms: number; p99Ms: number }> {
  const pool = new Pool(url, { connections: CONCURRENCY });
  const bodies = Array.from({ length: 1000 }, (_, i) =>
    JSON.stringify({ version: 1, type: 'track', userId: `user_${i}`, event: 'Order Completed', properties: track(i).properties, timestamp: '2026-11-21T10:00:00.000Z' }),
  );
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < MESSAGES) {
        const body = bodies[next++ % bodies.length]!;
        const t = performance.now();
        const res = await pool.request({
          path: '/hook',
          method: 'POST',
          headers: { 'user-agent': 'Sluice/1.0', 'content-type': 'application/json', 'x-signature': signBody(body, 's3cret') },
          body,
        });
        await res.body.dump();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { perSecond: MESSAGES / seconds, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

export async function sluice(url: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-delivery-'));
  const core = await createCore({
    dataDir: dir,
    ingestPort: 0,
    receiverPort: 0,
    config: {
      sources: [{ name: 'bench', writeKey: 'wk_bench', kind: 'server' }],
      destinations: [
        {
          name: 'sink',
          enabled: true,
          sources: ['bench'],
          sharedSecret: 's3cret',
          webhooks: [{ url: `${url}/hook`, headers: {} }],
          options: { bodyShape: 'seed', concurrency: CONCURRENCY },
        },
      ],
    },
  });
  try {
    let delivered = 0;
    let lastAt = 0;
    const done = new Promise<void>((resolve) =>
      core.bus.on('deliveries.changed', (changes) => {
        for (const change of changes) if (change.status === 'delivered') delivered++;
        if (delivered >= MESSAGES) {
          lastAt = performance.now();
          resolve();
        }
      }),
    );
    // The client is another process, as a real one would be.
    const started = performance.now();
    await execFileAsync(process.execPath, [path.join(import.meta.dirname, 'post-batches.ts'), core.ingestUrl, 'wk_bench', String(MESSAGES)]);
    const stored = performance.now();
    await done;
    const seconds = (lastAt - started) / 1000;
    const db = (await import('node:sqlite')).DatabaseSync;
    const read = new db(path.join(dir, 'sluice.db'), { readOnly: true });
    const rows = read
      .prepare(
        `SELECT a.started_at + a.duration_ms - d.created_at AS ms FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE a.outcome = 'success' ORDER BY ms`,
      )
      .all() as { ms: number }[];
    const attempts = Number((read.prepare('SELECT count(*) AS n FROM attempts').get() as { n: number }).n);
    const durations = (read.prepare('SELECT duration_ms AS ms FROM attempts ORDER BY ms').all() as { ms: number }[]).map((r) => r.ms);
    read.close();
    const latencies = rows.map((r) => r.ms);
    return {
      perSecond: MESSAGES / seconds,
      ingestSeconds: (stored - started) / 1000,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      attemptsRecorded: attempts,
      attemptP50Ms: percentile(durations, 50),
      attemptP99Ms: percentile(durations, 99),
    };
  } finally {
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function runDeliveryBench() {
  const sink = await startSink();
  try {
    console.log(
      `delivery: ${MESSAGES} messages per round, one webhook, concurrency ${CONCURRENCY}, signed, receiver in its own process; ` +
        `${ROUNDS} interleaved rounds (a fresh store each)`,
    );
    await baseline(sink.url); // warm-up (JIT, connections), not measured
    const raws: Awaited<ReturnType<typeof baseline>>[] = [];
    const ours: Awaited<ReturnType<typeof sluice>>[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const raw = await baseline(sink.url);
      raws.push(raw);
      console.log(`  round ${round}  raw undici Pool.request loop  ${Math.round(raw.perSecond).toLocaleString('en-US').padStart(7)} requests/s    p50 ${raw.p50Ms.toFixed(1)} ms  p99 ${raw.p99Ms.toFixed(1)} ms`);
      const run = await sluice(sink.url);
      ours.push(run);
      console.log(
        `  round ${round}  Sluice (stored → POST → recorded) ${Math.round(run.perSecond).toLocaleString('en-US').padStart(7)} deliveries/s  ` +
          `request p50 ${run.attemptP50Ms.toFixed(1)} ms  p99 ${run.attemptP99Ms.toFixed(1)} ms  stored → 2xx p50 ${run.p50Ms.toFixed(0)} ms (burst backlog)  attempts recorded ${run.attemptsRecorded}`,
      );
    }
    const ratio = median(ours.map((run, i) => run.perSecond / raws[i]!.perSecond));
    const pick = <T extends Record<string, number>>(runs: T[]) =>
      Object.fromEntries(Object.keys(runs[0]!).map((key) => [key, median(runs.map((r) => r[key]!))])) as T;
    const summary = { sluice: pick(ours), baselineRawUndici: pick(raws) };
    console.log(`Sluice / raw loop = ${ratio.toFixed(2)}x (median of per-round ratios)`);
    return { ...summary, ratio, rounds: ours.map((run, i) => ({ sluice: run.perSecond, raw: raws[i]!.perSecond })), messages: MESSAGES, concurrency: CONCURRENCY };
  } finally {
    await sink.stop();
  }
}
