// Transforms benchmark (issue 28's Measure): delivery throughput (stored → signed POST → attempt
// recorded) to a loopback receiver in its own process, for one destination three ways in the same run —
// without filters or transform (the baseline), with a trivial transform (`onTrack: e => e`, run in the
// runtime's worker thread), and with one filter (a drop whose query matches nothing) — in interleaved
// rounds, each on a fresh store. Targets: transform ≥ 0.8× the baseline, filter ≥ 0.95×.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createCore, type Core } from '../../electron/core/index.ts';
import type { DestinationConfig } from '../../shared/settings.ts';
import { startSink } from './delivery.bench.ts';
import { median } from './median.ts';

const execFileAsync = promisify(execFile);
const MESSAGES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 32;

type Variant = 'baseline' | 'transform' | 'filter';

/** The trivial transform: the event as it came (Segment's insert-function form). */
const TRIVIAL = 'async function onTrack(event) {\n  return event;\n}\n';

function destination(variant: Variant, url: string, transformFile: string): DestinationConfig {
  return {
    name: 'sink',
    enabled: true,
    sources: ['bench'],
    sharedSecret: 's3cret',
    webhooks: [{ url: `${url}/hook`, headers: {} }],
    options: { bodyShape: 'seed', concurrency: CONCURRENCY },
    ...(variant === 'transform' ? { transform: { file: transformFile, timeoutMs: 1000, settings: {} } } : {}),
    // A drop every message is tested against, and none matches: the cost of testing, not of dropping.
    ...(variant === 'filter' ? { filters: [{ if: 'event:"Never Sent"', drop: true }] } : {}),
  };
}

/** Resolves when `count` deliveries have been announced delivered (announced = committed). */
function deliveredCount(core: Core, count: number): Promise<number> {
  let delivered = 0;
  return new Promise((resolve) =>
    core.bus.on('deliveries.changed', (changes) => {
      for (const change of changes) if (change.status === 'delivered') delivered++;
      if (delivered === count) resolve(performance.now());
    }),
  );
}

/** One run: `messages` stored while deliveries are held, then released; timed until the last is recorded. */
async function run(variant: Variant, url: string, messages: number) {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sluice-bench-transforms-${variant}-`));
  const transformFile = path.join(dir, 'identity.js');
  fs.writeFileSync(transformFile, TRIVIAL);
  let core: Core | undefined;
  try {
    core = await createCore({
      dataDir: dir,
      ingestPort: 0,
      receiverPort: 0,
      config: { sources: [{ name: 'bench', writeKey: 'wk_bench', kind: 'server' }], destinations: [destination(variant, url, transformFile)] },
    });
    core.delivery.setHeld(true);
    await execFileAsync(process.execPath, [path.join(import.meta.dirname, 'post-batches.ts'), core.ingestUrl, 'wk_bench', String(messages)]);
    const done = deliveredCount(core, messages);
    const releasedAt = performance.now();
    const cpu = process.cpuUsage();
    core.delivery.setHeld(false);
    const lastAt = await done;
    const { user, system } = process.cpuUsage(cpu);
    // Every delivery sent as the variant says: the transform's run on each attempt, nothing for the others.
    const db = new (await import('node:sqlite')).DatabaseSync(path.join(dir, 'sluice.db'), { readOnly: true });
    const { attempts, runs } = db.prepare('SELECT count(*) AS attempts, count(transform_run) AS runs FROM attempts').get() as { attempts: number; runs: number };
    db.close();
    if (attempts !== messages || runs !== (variant === 'transform' ? messages : 0)) {
      throw new Error(`${variant}: ${attempts} attempts and ${runs} transform runs recorded for ${messages} messages`);
    }
    return { perSecond: messages / ((lastAt - releasedAt) / 1000), cpuMicrosPerDelivery: (user + system) / messages };
  } finally {
    await core?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}


export async function runTransformsBench() {
  const sink = await startSink();
  try {
    console.log(
      `transforms: ${MESSAGES} messages per run, one webhook, concurrency ${CONCURRENCY}, signed, receiver in its own process; ` +
        `${ROUNDS} interleaved rounds of baseline / trivial transform / one filter (a fresh store each)`,
    );
    // Warm-up of each (JIT, connections, the transform's worker), not measured.
    for (const variant of (process.env.BENCH_VARIANTS?.split(',') ?? ['baseline', 'transform', 'filter']) as Variant[]) await run(variant, sink.url, MESSAGES / 4);
    const runs: Record<Variant, Awaited<ReturnType<typeof run>>[]> = { baseline: [], transform: [], filter: [] };
    const rate = (perSecond: number) => Math.round(perSecond).toLocaleString('en-US').padStart(7);
    const variants = (process.env.BENCH_VARIANTS?.split(',') ?? ['baseline', 'transform', 'filter']) as Variant[];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const variant of variants) {
        const result = await run(variant, sink.url, MESSAGES);
        runs[variant].push(result);
        console.log(`  round ${round}  ${variant.padEnd(9)} ${rate(result.perSecond)} deliveries/s  ${Math.round(result.cpuMicrosPerDelivery)} µs CPU each (main thread and its workers)`);
      }
    }
    // Ratios per round (the machine's speed drifts between rounds), then their median.
    const ratio = (variant: Variant) => median(runs[variant].map((r, i) => r.perSecond / runs.baseline[i]!.perSecond));
    const transformRatio = ratio('transform');
    const filterRatio = ratio('filter');
    // The CPU each delivery took (this process: the engine's thread, the writer's, the transform's worker),
    // baseline over variant: what the throughput ratio comes to on a machine whose cores are all busy —
    // steadier than throughput on a shared machine, whose other jobs take the cores in bursts.
    const cpuRatio = (variant: Variant) => median(runs[variant].map((r, i) => runs.baseline[i]!.cpuMicrosPerDelivery / r.cpuMicrosPerDelivery));
    const pick = (variant: Variant) => ({
      perSecond: median(runs[variant].map((r) => r.perSecond)),
      cpuMicrosPerDelivery: median(runs[variant].map((r) => r.cpuMicrosPerDelivery)),
    });
    console.log(
      `trivial transform / baseline = ${transformRatio.toFixed(2)}x (target ≥ 0.8)   one filter / baseline = ${filterRatio.toFixed(2)}x (target ≥ 0.95)   (medians of per-round ratios)`,
    );
    console.log(`CPU per delivery, baseline / variant: trivial transform ${cpuRatio('transform').toFixed(2)}x   one filter ${cpuRatio('filter').toFixed(2)}x`);
    return {
      baseline: pick('baseline'),
      transform: pick('transform'),
      filter: pick('filter'),
      transformRatio,
      filterRatio,
      cpuRatio: { transform: cpuRatio('transform'), filter: cpuRatio('filter') },
      targets: { transform: 0.8, filter: 0.95 },
      rounds: runs.baseline.map((b, i) => ({
        baseline: b.perSecond, transform: runs.transform[i]?.perSecond, filter: runs.filter[i]?.perSecond,
        cpu: { baseline: b.cpuMicrosPerDelivery, transform: runs.transform[i]?.cpuMicrosPerDelivery, filter: runs.filter[i]?.cpuMicrosPerDelivery },
      })),
      messages: MESSAGES,
      concurrency: CONCURRENCY,
    };
  } finally {
    await sink.stop();
  }
}
