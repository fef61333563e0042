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
import { signBody } from '../../electron/core/signature/signature.ts';
import { startRecorder } from './recorder.ts';
import { headersByReference } from '../../electron/core/store/attempt-headers.ts';
import { RETRY_WINDOW_MS } from '../../electron/core/delivery/retry-schedule.ts';
import { median } from './median.ts';

const MESSAGES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
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

/** The seed-shaped bodies of the raw loops: what Sluice sends for these messages. */
const rawBodies = Array.from({ length: 1000 }, (_, i) =>
  JSON.stringify({ version: 1, type: 'track', userId: `user_${i}`, event: 'Order Completed', properties: track(i).properties, timestamp: '2026-11-21T10:00:00.000Z' }),
);

/** The baseline: the same signed bodies POSTed by CONCURRENCY loops over one undici Pool. */
async function baseline(url: string, messages = MESSAGES): Promise<{ perSecond: number; cpuMicrosPerRequest: number; p50Ms: number; p99Ms: number }> {
  const pool = new Pool(url, { connections: CONCURRENCY });
  const bodies = rawBodies;
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < messages) {
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
  const { user, system } = process.cpuUsage(cpu);
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { perSecond: messages / seconds, cpuMicrosPerRequest: (user + system) / messages, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

/**
 * The floor under any engine that records every attempt: the baseline's loop, plus recording each
 * request's result as Sluice does — the delivery's new state and its attempt row (its headers by
 * reference: a header set stored once, the signature the delivery's), the same statements, committed in groups (every 5 ms or 256 results) by a writer thread, into a Sluice
 * store holding the same pending deliveries. What it leaves out is the rest of a delivery engine:
 * reading the queue from the store, building each body from the stored message, retries, events.
 */
async function recordedBaseline(url: string, messages = MESSAGES): Promise<{ perSecond: number; cpuMicrosPerRequest: number; walBytesPerRequest: number }> {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-recorded-'));
  try {
    const core = await heldStore(dir, url, messages);
    const db = (await import('node:sqlite')).DatabaseSync;
    const read = new db(path.join(dir, 'sluice.db'), { readOnly: true });
    const ids = (read.prepare(`SELECT id FROM deliveries WHERE status = 'pending' ORDER BY id`).all() as { id: number }[]).map((row) => row.id);
    read.close();
    await core.close();
    const recorder = startRecorder(dir);
    await recorder.ready;
    const pool = new Pool(url, { connections: CONCURRENCY });
    let next = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < messages) {
          const i = next++;
          const body = rawBodies[i % rawBodies.length]!;
          const signature = signBody(body, 's3cret');
          const headers = { 'User-Agent': 'Sluice/1.0', 'Content-Type': 'application/json', 'X-Signature': signature };
          const startedAt = Date.now();
          const t = performance.now();
          const res = await pool.request({ path: '/hook', method: 'POST', headers, body });
          const responseBody = await res.body.text();
          // Its headers by reference, as Sluice records a webhook attempt's (kinds/webhook.ts).
          const { headerSet, own } = headersByReference(headers, signature);
          recorder.add({
            deliveryId: ids[i]!,
            status: 'delivered',
            attemptCount: 1,
            firstAttemptAt: startedAt,
            nextAttemptAt: null,
            deadlineAt: startedAt + RETRY_WINDOW_MS,
            lastError: null,
            body,
            signature,
            attempts: [
              {
                url: `${url}/hook`,
                startedAt,
                durationMs: Math.round((performance.now() - t) * 10) / 10,
                requestHeaders: own,
                headerSet,
                responseStatus: res.statusCode,
                responseHeaders: JSON.stringify(res.headers),
                responseBody,
                errorCode: null,
                errorMessage: null,
                outcome: 'success',
                retryAt: null,
              },
            ],
          });
        }
      }),
    );
    await recorder.drain();
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    // What the recording wrote: the WAL holds every page the group commits wrote (nothing checkpoints
    // it until the recording thread closes).
    const walBytes = fs.statSync(path.join(dir, 'sluice.db-wal')).size;
    await pool.close();
    await recorder.close();
    // A reference that recorded less than Sluice does would flatter it: check every row is there.
    const check = new db(path.join(dir, 'sluice.db'), { readOnly: true });
    const attempts = Number((check.prepare('SELECT count(*) AS n FROM attempts').get() as { n: number }).n);
    const delivered = Number((check.prepare(`SELECT count(*) AS n FROM deliveries WHERE status = 'delivered' AND body IS NOT NULL`).get() as { n: number }).n);
    check.close();
    if (attempts !== messages || delivered !== messages) throw new Error(`the reference recorded ${attempts} attempts and ${delivered} deliveries of ${messages}`);
    return { perSecond: messages / seconds, cpuMicrosPerRequest: (user + system) / messages, walBytesPerRequest: walBytes / messages };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function benchCore(dir: string, url: string) {
  return createCore({
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
}

/** Resolves when `count` deliveries have been announced delivered (announced = committed). */
export function deliveredCount(core: Awaited<ReturnType<typeof createCore>>, count: number): Promise<number> {
  let delivered = 0;
  return new Promise((resolve) =>
    core.bus.on('deliveries.changed', (changes) => {
      for (const change of changes) if (change.status === 'delivered') delivered++;
      if (delivered === count) resolve(performance.now());
    }),
  );
}

/** A core whose store holds `messages` stored messages, their deliveries pending and held. */
async function heldStore(dir: string, url: string, messages: number) {
  const core = await benchCore(dir, url);
  core.delivery.setHeld(true);
  await execFileAsync(process.execPath, [path.join(import.meta.dirname, 'post-batches.ts'), core.ingestUrl, 'wk_bench', String(messages)]);
  return core;
}

/**
 * Throughput from stored to recorded: the messages are ingested (by a client in another process)
 * while deliveries are held, then released; the clock runs from the release until the last attempt
 * and delivery state are committed. Ingestion is measured by its own benchmark, so it is kept out.
 */
export async function sluice(url: string, messages = MESSAGES) {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-delivery-'));
  let core: Awaited<ReturnType<typeof heldStore>> | undefined;
  try {
    core = await heldStore(dir, url, messages);
    const done = deliveredCount(core, messages);
    const releasedAt = performance.now();
    const cpu = process.cpuUsage();
    core.delivery.setHeld(false);
    const lastAt = await done;
    const { user, system } = process.cpuUsage(cpu);
    const db = (await import('node:sqlite')).DatabaseSync;
    const read = new db(path.join(dir, 'sluice.db'), { readOnly: true });
    const attempts = Number((read.prepare('SELECT count(*) AS n FROM attempts').get() as { n: number }).n);
    const durations = (read.prepare('SELECT duration_ms AS ms FROM attempts ORDER BY ms').all() as { ms: number }[]).map((r) => r.ms);
    // What an attempt row holds as text: its URL, request headers (by reference: only its own values), and the answer.
    const { textBytes } = read
      .prepare('SELECT avg(length(url) + length(request_headers) + coalesce(length(response_headers), 0) + coalesce(length(response_body), 0)) AS textBytes FROM attempts')
      .get() as { textBytes: number };
    read.close();
    return {
      perSecond: messages / ((lastAt - releasedAt) / 1000),
      cpuMicrosPerDelivery: (user + system) / messages,
      attemptsRecorded: attempts,
      attemptTextBytes: textBytes,
      attemptP50Ms: percentile(durations, 50),
      attemptP99Ms: percentile(durations, 99),
    };
  } finally {
    await core?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Latency stored → 2xx recorded at a steady rate well under capacity (a burst's latency is mostly
 * its own queue): RATE messages/s for PACED_SECONDS, each request of 10 messages.
 */
export async function pacedLatency(url: string, rate = 500, seconds = 4) {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-paced-'));
  const core = await benchCore(dir, url);
  const total = rate * seconds;
  try {
    const done = deliveredCount(core, total);
    const auth = `Basic ${Buffer.from('wk_bench:').toString('base64')}`;
    const pool = new Pool(core.ingestUrl, { connections: 4 });
    const started = performance.now();
    for (let sent = 0; sent < total; sent += 10) {
      const due = started + (sent / rate) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const batch = Array.from({ length: 10 }, (_, j) => track(sent + j));
      const res = await pool.request({ path: '/v1/batch', method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });
      await res.body.dump();
    }
    await done;
    await pool.close();
    const db = (await import('node:sqlite')).DatabaseSync;
    const read = new db(path.join(dir, 'sluice.db'), { readOnly: true });
    // received_at is when the request arrived; the message is stored within the same group commit.
    const latencies = (
      read
        .prepare(
          `SELECT a.started_at + a.duration_ms - m.received_at AS ms FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
           JOIN messages m ON m.id = d.message_id WHERE a.outcome = 'success' ORDER BY ms`,
        )
        .all() as { ms: number }[]
    ).map((r) => r.ms);
    read.close();
    return { rate, messages: total, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
  } finally {
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);


export async function runDeliveryBench() {
  const sink = await startSink();
  try {
    console.log(
      `delivery: ${MESSAGES} messages per round, one webhook, concurrency ${CONCURRENCY}, signed, receiver in its own process; ` +
        `${ROUNDS} interleaved rounds (a fresh store each)`,
    );
    // Warm-up (JIT, connections) of all three, not measured: round 1 should not pay for compiling one of them.
    await baseline(sink.url, MESSAGES / 4);
    await recordedBaseline(sink.url, MESSAGES / 4);
    await sluice(sink.url, MESSAGES / 4);
    const raws: Awaited<ReturnType<typeof baseline>>[] = [];
    const recordeds: Awaited<ReturnType<typeof recordedBaseline>>[] = [];
    const ours: Awaited<ReturnType<typeof sluice>>[] = [];
    const rate = (perSecond: number) => Math.round(perSecond).toLocaleString('en-US').padStart(7);
    for (let round = 1; round <= ROUNDS; round++) {
      const raw = await baseline(sink.url);
      raws.push(raw);
      console.log(`  round ${round}  raw undici Pool.request loop         ${rate(raw.perSecond)} requests/s    ${Math.round(raw.cpuMicrosPerRequest)} µs CPU each  p50 ${raw.p50Ms.toFixed(1)} ms  p99 ${raw.p99Ms.toFixed(1)} ms`);
      const recorded = await recordedBaseline(sink.url);
      recordeds.push(recorded);
      console.log(`  round ${round}  raw loop + recording (writer thread) ${rate(recorded.perSecond)} requests/s    ${Math.round(recorded.cpuMicrosPerRequest)} µs CPU each  ${Math.round(recorded.walBytesPerRequest)} B written (WAL) each`);
      const run = await sluice(sink.url);
      ours.push(run);
      console.log(
        `  round ${round}  Sluice (stored → POST → recorded)    ${rate(run.perSecond)} deliveries/s  ` +
          `${Math.round(run.cpuMicrosPerDelivery)} µs CPU each  request p50 ${run.attemptP50Ms.toFixed(1)} ms  p99 ${run.attemptP99Ms.toFixed(1)} ms  attempts recorded ${run.attemptsRecorded} (${Math.round(run.attemptTextBytes)} B of text each)`,
      );
    }
    // Ratios per round (the machine's speed drifts between rounds), then their median.
    const ratio = median(ours.map((run, i) => run.perSecond / raws[i]!.perSecond));
    const recordingRatio = median(recordeds.map((run, i) => run.perSecond / raws[i]!.perSecond));
    const ratioToRecorded = median(ours.map((run, i) => run.perSecond / recordeds[i]!.perSecond));
    const paced = await pacedLatency(sink.url);
    console.log(`  latency at a steady ${paced.rate} messages/s: stored → 2xx recorded p50 ${paced.p50Ms.toFixed(1)} ms  p99 ${paced.p99Ms.toFixed(1)} ms`);
    const pick = <T extends Record<string, number>>(runs: T[]) =>
      Object.fromEntries(Object.keys(runs[0]!).map((key) => [key, median(runs.map((r) => r[key]!))])) as T;
    const summary = { sluice: pick(ours), baselineRawUndici: pick(raws), rawLoopWithRecording: pick(recordeds) };
    console.log(`Sluice / raw loop = ${ratio.toFixed(2)}x   raw loop + recording / raw loop = ${recordingRatio.toFixed(2)}x   Sluice / (raw loop + recording) = ${ratioToRecorded.toFixed(2)}x   (medians of per-round ratios)`);
    return {
      ...summary,
      ratio,
      recordingRatio,
      ratioToRecorded,
      paced,
      rounds: ours.map((run, i) => ({ sluice: run.perSecond, raw: raws[i]!.perSecond, rawWithRecording: recordeds[i]!.perSecond })),
      messages: MESSAGES,
      concurrency: CONCURRENCY,
    };
  } finally {
    await sink.stop();
  }
}
