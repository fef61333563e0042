// Latency benchmark (`npm run bench -- latency`; issue 26): how long one event takes to be seen, as a
// test sees it, with one source fanning out to a signed webhook and two Tracking API forwards (flushMs 0
// and the default 1,000) on a receiver in its own process:
// - send → visible to a wait: POST /v1/track, then POST /api/v1/messages/wait, or sluice/testing's
//   waitForMessages, for its messageId (one at a time, as a test sends and waits);
// - send → webhook received, send → forwarded (flushMs 0 and 1,000), and POST /v1/track's response time
//   (probes sent every 20 ms, no wait pending);
// each as p50/p95/p99 at idle and under a background load (2,000 events/s as /v1/batch of 10, its own
// process), at 10 stored and at a large store (BENCH_LATENCY_LARGE, default 1,000,000), beside a floor
// measured in the same run: latency-floor.ts, a bare server doing the same fan-out plainly, and the
// recording floor, the same server also recording every delivery and attempt (latency-floor-record.ts).
// Every stream runs with BENCH_LATENCY_PENDING waits (default 100) held pending over HTTP for messages
// that never come, as a suite's other waits; ingestion's own rate (BENCH_LATENCY_BLAST messages posted
// back to back, a relay without destinations) is measured with and without them, at both store sizes.
// Bounded: every wait and send has a timeout (counted, shown as "timeout" where a percentile falls on
// them); samples are capped (BENCH_LATENCY_SAMPLES, BENCH_LATENCY_WAIT_SAMPLES) and a wait stream stops
// after BENCH_LATENCY_BUDGET_MS; loopback only. The large store is filled through ingestion (scale-fill.ts)
// by a relay without destinations, in BENCH_LATENCY_DIR when set (kept and topped up) or a temporary folder.
// Its parts: latency-targets.ts (Sluice or a floor, behind one interface), latency-processes.ts (the
// receiver and the background load), latency-report.ts (the summaries, ratios and the table printed).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'undici';
import { startSluice } from '../../electron/testing/index.ts';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';
import { indexCaughtUp } from '../helpers/search-index.ts';
import { cpuSnapshot, cpuSplit, type CpuSplit } from './cpu-split.ts';
import { KINDS, now, startLoad, startReceiver, type Kind, type Receiver } from './latency-processes.ts';
import { printScenario, ratios, round1, summary } from './latency-report.ts';
import { config, floorTarget, neverOn, sluiceTarget, storedIn, type Target, type TargetOptions } from './latency-targets.ts';

// summary() lived here before the report was split out: kept importable from this file.
export { summary };

const execFileAsync = promisify(execFile);
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const LARGE = env('BENCH_LATENCY_LARGE', 1_000_000);
const SMALL = 10;
const RATE = env('BENCH_LATENCY_RATE', 2_000);
const LOAD_BATCH = 10;
const SAMPLES = env('BENCH_LATENCY_SAMPLES', 200);
const WAIT_SAMPLES = env('BENCH_LATENCY_WAIT_SAMPLES', 100);
const TIMEOUT_MS = env('BENCH_LATENCY_TIMEOUT_MS', 10_000);
const BUDGET_MS = env('BENCH_LATENCY_BUDGET_MS', 20_000);
const DRAIN_MS = env('BENCH_LATENCY_DRAIN_MS', 30_000);
const SPACING_MS = 20;
/** Waits held pending (for messages that never come) during every stream: a test suite's other waits. */
const PENDING = env('BENCH_LATENCY_PENDING', 100);
/** Messages posted as fast as one client can, with and without the pending waits: ingestion's own rate. */
const BLAST = env('BENCH_LATENCY_BLAST', 20_000);
/**
 * 0: the control — Sluice without destinations and the floors without fan-out (store, answer, wake the
 * waiters): what ingestion and the waits cost alone, beside what the fan-out adds. Only `track` and the
 * waits are measured then.
 */
const FAN_OUT = env('BENCH_LATENCY_FANOUT', 1) !== 0;
/** Only these scenarios (comma-separated, e.g. `small-loaded,large-idle`; default all four), for profiling one. */
const ONLY = process.env.BENCH_LATENCY_SCENARIOS?.split(',').map((s) => s.trim()).filter(Boolean);
const TARGET: TargetOptions = { fanOut: FAN_OUT, timeoutMs: TIMEOUT_MS };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** A probe: one track whose messageId (and a property, for body shapes without it) names it. */
function prober(target: Target) {
  const pool = new Pool(target.ingestUrl, { connections: 4 });
  const auth = `Basic ${Buffer.from('wk_bench:').toString('base64')}`;
  return {
    /** ms to POST /v1/track's 200; Infinity when it did not answer in time or answered otherwise. */
    async send(id: string): Promise<number> {
      const t0 = performance.now();
      try {
        const body = JSON.stringify({ type: 'track', userId: 'prober', event: 'Probe', messageId: id, properties: { probe: id }, timestamp: new Date().toISOString() });
        const res = await pool.request({ path: '/v1/track', method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
        await res.body.dump();
        return res.statusCode === 200 ? performance.now() - t0 : Infinity;
      } catch {
        return Infinity;
      }
    },
    close: () => pool.close(),
  };
}

/** Probes every SPACING_MS, none waited for: track response, and send → each destination's arrival. */
async function fanOutStream(target: Target, receiver: Receiver, tag: string, samples = SAMPLES) {
  const probe = prober(target);
  const sentAt = new Map<string, number>();
  const track: number[] = [];
  const sends: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < samples; i++) {
    await sleep(t0 + i * SPACING_MS - performance.now());
    const id = `probe-${tag}-${i}`;
    sentAt.set(id, now());
    sends.push(probe.send(id).then((ms) => void track.push(ms)));
  }
  await Promise.all(sends);
  await probe.close();
  if (!FAN_OUT) return { track: summary(track), webhook: summary([]), forwardFlush0: summary([]), forwardFlushDefault: summary([]) };
  // The default flush waits up to 1 s for more: the deadline allows for it.
  const all = () => [...sentAt.keys()].every((id) => KINDS.every((k) => receiver.arrivals.get(id)?.[k] !== undefined));
  for (const end = performance.now() + TIMEOUT_MS + 1_000; !all() && performance.now() < end; ) await sleep(50);
  const of = (kind: Kind) => [...sentAt].map(([id, at]) => (receiver.arrivals.get(id)?.[kind] ?? Infinity) - at);
  return { track: summary(track), webhook: summary(of('hook')), forwardFlush0: summary(of('fwd0')), forwardFlushDefault: summary(of('fwd1')) };
}

/** Send, then wait for it (as a test does), one at a time: send start → wait resolved. */
async function waitStream(target: Target, tag: string, how: 'waitHttp' | 'waitInProcess', samples = WAIT_SAMPLES, budgetMs = BUDGET_MS) {
  const probe = prober(target);
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  for (let i = 0; i < samples && performance.now() - started < budgetMs; i++) {
    const id = `probe-${tag}-${i}`;
    const t0 = performance.now();
    try {
      const sent = await probe.send(id);
      latencies.push(Number.isFinite(sent) && (await target[how](id)) ? performance.now() - t0 : Infinity);
    } catch {
      errors++;
      latencies.push(Infinity);
    }
    await sleep(SPACING_MS);
  }
  await probe.close();
  return { ...summary(latencies), errors, seconds: round1((performance.now() - started) / 1000) };
}

/** `count` waits held pending on `target` until the returned function is called. */
function holdWaits(target: Pick<Target, 'waitNever'>, tag: string, count: number): () => void {
  const stop = new AbortController();
  for (let i = 0; i < count; i++) {
    void (async () => {
      while (!stop.signal.aborted) await target.waitNever(`never-${tag}-${i}`, stop.signal).catch(() => sleep(100));
    })();
  }
  return () => stop.abort();
}

/** Ingestion's own rate (one client posting batches of 500 back to back), events/s. */
let blasts = 0;
async function blast(ingestUrl: string): Promise<number> {
  const t0 = performance.now();
  await execFileAsync(process.execPath, [path.join(import.meta.dirname, 'post-batches.ts'), ingestUrl, 'wk_blast', String(BLAST), `blast-${Date.now().toString(36)}-${blasts++}`]);
  return Math.round(BLAST / ((performance.now() - t0) / 1000));
}

/**
 * Ingestion's own rate on a relay without destinations over `dataDir`, without and with PENDING waits
 * held (for messages that never come), alternated over 3 rounds: what pending waits cost ingestion.
 */
async function ingestWithWaits(dataDir: string, tag: string) {
  // A source of its own, connected to no destination: a kept store remembers the fan-out relay's
  // destinations (connected to `bench`), and the blasts must not leave deliveries behind them.
  const relay = await startSluice({ dataDir, config: { sources: [{ name: 'blast', writeKey: 'wk_blast', kind: 'server' as const }], retention: config('', false).retention } });
  try {
    await blast(relay.ingestUrl); // warm-up
    const rounds: { without: number; with: number }[] = [];
    for (let r = 0; r < 3; r++) {
      const without = await blast(relay.ingestUrl);
      // The waits' first looks read by SQL through the search index, and the rows it does not cover yet
      // one by one: taken once the index has caught up with the blast, and given time to end, so that
      // what is measured is the waits' cost per commit.
      await indexCaughtUp(dataDir, 120_000);
      const release = holdWaits({ waitNever: neverOn(relay) }, `${tag}-i${r}`, PENDING);
      await sleep(2_000);
      const withWaits = await blast(relay.ingestUrl);
      release();
      await indexCaughtUp(dataDir, 120_000);
      rounds.push({ without, with: withWaits });
    }
    const median = (k: 'without' | 'with') => rounds.map((r) => r[k]).sort((a, b) => a - b)[1]!;
    return { eventsPerSecondWithout: median('without'), eventsPerSecondWithPendingWaits: median('with'), ratio: Math.round((median('with') / median('without')) * 100) / 100, rounds };
  } finally {
    await relay.close();
  }
}

async function measure(make: () => Promise<Target>, receiver: Receiver, tag: string, loaded: boolean) {
  const target = await make();
  let release = () => {};
  try {
    // Warm-up, not measured: JIT, connections, the first conversions.
    await fanOutStream(target, receiver, `${tag}-w`, 20);
    await waitStream(target, `${tag}-wh`, 'waitHttp', 1);
    await waitStream(target, `${tag}-wi`, 'waitInProcess', 1);
    release = PENDING > 0 ? holdWaits(target, tag, PENDING) : () => {};
    await sleep(PENDING > 0 ? 500 : 0);
    const load = loaded ? await startLoad(target.ingestUrl, RATE, LOAD_BATCH) : null;
    await sleep(loaded ? 1_000 : 0);
    const storedAtStart = target.stored();
    // The background rate each stream saw (a relay that falls behind is offered less: the load skips ticks).
    // And this process's CPU (the relay or floor with every thread, the probes, the pending waits) per event it took.
    const achieved: Record<string, number> = {};
    const cpuMicrosPerEvent: Record<string, number> = {};
    const cpuSplits: Record<string, CpuSplit | null> = {};
    const during = async <T,>(name: string, stream: () => Promise<T>): Promise<T> => {
      const before = await load?.mark();
      const cpu = process.cpuUsage();
      const snapshot = cpuSnapshot();
      const result = await stream();
      const { user, system } = process.cpuUsage(cpu);
      const snapshotAfter = cpuSnapshot();
      const after = await load?.mark();
      if (before && after) {
        achieved[name] = Math.round((after.accepted - before.accepted) / ((after.at - before.at) / 1000));
        cpuMicrosPerEvent[name] = Math.round((user + system) / Math.max(1, after.accepted - before.accepted));
        cpuSplits[name] = cpuSplit(snapshot, snapshotAfter, after.accepted - before.accepted);
      }
      return result;
    };
    const fanOut = await during('fanOut', () => fanOutStream(target, receiver, `${tag}-f`));
    const waitHttp = await during('waitHttp', () => waitStream(target, `${tag}-h`, 'waitHttp'));
    const waitTesting = await during('waitTesting', () => waitStream(target, `${tag}-t`, 'waitInProcess'));
    const storedAtEnd = target.stored();
    const reads = loaded ? null : await target.reads();
    const background = load ? await load.stop() : null;
    const backlogAtEnd = target.backlog();
    const drainStarted = performance.now();
    while (target.backlog() > 0 && performance.now() - drainStarted < DRAIN_MS) await sleep(250);
    const drain = { backlogAtEnd, drainedMs: Math.round(performance.now() - drainStarted), left: target.backlog(), failedAttempts: target.failedAttempts() };
    return { storedAtStart, storedAtEnd, pendingWaits: PENDING, reads, ...fanOut, waitHttp, waitTesting, drain, background: background && { perSecond: Math.round(background.perSecond!), perStream: achieved, cpuMicrosPerEvent, cpuSplits, skipped: background.skipped, failed: background.failed, unanswered: background.unanswered } };
  } finally {
    release();
    await target.close();
  }
}

/** A relay without destinations fills `dataDir` to `target` messages through ingestion; its indexes catch up. */
async function fill(dataDir: string, target: number) {
  const toFill = Math.max(0, target - (fs.existsSync(path.join(dataDir, DATABASE_FILE)) ? storedIn(dataDir) : 0));
  const started = performance.now();
  const relay = await startSluice({ dataDir, config: config('http://127.0.0.1:9', false) });
  try {
    if (toFill > 0) {
      const filler = path.join(import.meta.dirname, 'scale-fill.ts');
      await execFileAsync(process.execPath, [filler, relay.ingestUrl, relay.writeKey, String(toFill), String(Math.max(1, Math.round(target / 10)))], { maxBuffer: 1 << 20, timeout: 3_600_000 });
    }
    await indexCaughtUp(dataDir, 1_800_000);
  } finally {
    await relay.close();
  }
  return { filled: toFill, seconds: round1((performance.now() - started) / 1000) };
}

export async function runLatencyBench() {
  const runStarted = performance.now();
  const kept = process.env.BENCH_LATENCY_DIR;
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = kept ? path.resolve(kept) : fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-latency-'));
  const largeDir = path.join(dir, 'data');
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-latency-scratch-'));
  const run = Date.now().toString(36);
  const receiver = await startReceiver();
  console.log(
    `latency: one source → a signed webhook + forwards (flushMs 0, 1000), receiver in its own process (clock ±${receiver.clockUncertaintyMs} ms); ` +
      `at ${SMALL} and ${LARGE.toLocaleString('en-US')} stored, idle and under ${RATE} events/s; ${SAMPLES} fan-out probes, ≤ ${WAIT_SAMPLES} waits per kind ` +
      `(≤ ${BUDGET_MS / 1000} s each), every wait and send bounded by ${TIMEOUT_MS / 1000} s`,
  );
  try {
    const needLarge = !ONLY || ONLY.some((s) => s.startsWith('large'));
    const filled = needLarge ? await fill(largeDir, LARGE) : { filled: 0, seconds: 0 };
    if (needLarge) console.log(`  large store: ${storedIn(largeDir).toLocaleString('en-US')} messages (filled ${filled.filled.toLocaleString('en-US')} in ${filled.seconds} s)`);
    // What pending waits cost ingestion, at a fresh store and at the large one (relays without destinations).
    const ingest = PENDING > 0 && BLAST > 0
      ? { small: await ingestWithWaits(path.join(scratch, 'ingest-small'), `${run}-is`), large: await ingestWithWaits(largeDir, `${run}-il`) }
      : null;
    if (ingest) console.log(`  ingestion with ${PENDING} waits pending / without: ${JSON.stringify(ingest)}`);
    const scenarios = [];
    let n = 0;
    for (const size of ['small', 'large'] as const) {
      for (const loaded of [false, true]) {
        if (ONLY && !ONLY.includes(`${size}-${loaded ? 'loaded' : 'idle'}`)) continue;
        const name = `${size === 'small' ? SMALL : LARGE.toLocaleString('en-US')} stored, ${loaded ? `${RATE} events/s` : 'idle'}`;
        const tag = `${run}-${n++}`;
        const floor = await measure(() => floorTarget(path.join(scratch, `floor-${tag}`), receiver.url, size === 'small' ? SMALL : LARGE, TARGET), receiver, `${tag}-f`, loaded);
        // Without fan-out there is nothing to record: the control has no recording floor.
        const recordingFloor = FAN_OUT
          ? await measure(() => floorTarget(path.join(scratch, `recording-floor-${tag}`), receiver.url, size === 'small' ? SMALL : LARGE, TARGET, true), receiver, `${tag}-r`, loaded)
          : null;
        // The schema floor (Sluice's writes on the floor's one thread) at the small store only: its prefill of a
        // million messages would take Sluice's write path a million times.
        const schemaFloor = FAN_OUT && size === 'small'
          ? await measure(() => floorTarget(path.join(scratch, `schema-floor-${tag}`), receiver.url, SMALL, TARGET, 'schema'), receiver, `${tag}-c`, loaded)
          : null;
        const sluice = await measure(async () => {
          if (size === 'large') return sluiceTarget(largeDir, receiver.url, TARGET);
          const small = path.join(scratch, `sluice-${tag}`);
          const target = await sluiceTarget(small, receiver.url, TARGET);
          await execFileAsync(process.execPath, [path.join(import.meta.dirname, 'post-batches.ts'), target.ingestUrl, 'wk_bench', String(SMALL)]);
          return target;
        }, receiver, `${tag}-s`, loaded);
        printScenario(name, { sluice, floor, recordingFloor, schemaFloor }, FAN_OUT);
        scenarios.push({
          name, stored: size === 'small' ? SMALL : LARGE, load: loaded ? RATE : 0, sluice, floor, recordingFloor, schemaFloor,
          sluiceOverFloor: ratios(sluice, floor),
          ...(recordingFloor ? { sluiceOverRecordingFloor: ratios(sluice, recordingFloor), recordingFloorOverFloor: ratios(recordingFloor, floor) } : {}),
          ...(schemaFloor && recordingFloor ? { sluiceOverSchemaFloor: ratios(sluice, schemaFloor), schemaFloorOverRecordingFloor: ratios(schemaFloor, recordingFloor) } : {}),
        });
      }
    }
    const seconds = Math.round((performance.now() - runStarted) / 1000);
    console.log(`  ran ${seconds} s`);
    return {
      small: SMALL,
      large: LARGE,
      largeFill: filled,
      rate: RATE,
      loadBatch: LOAD_BATCH,
      samples: SAMPLES,
      waitSamples: WAIT_SAMPLES,
      timeoutMs: TIMEOUT_MS,
      budgetMs: BUDGET_MS,
      clockUncertaintyMs: receiver.clockUncertaintyMs,
      pendingWaits: PENDING,
      blast: BLAST,
      ingest,
      scenarios,
      seconds,
    };
  } finally {
    await receiver.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
    if (!kept) fs.rmSync(dir, { recursive: true, force: true });
  }
}
