// Retention benchmark: does pruning stall ingestion? Two relays, each filled with the same number of
// messages; in each round one of them is loaded (the ingestion benchmark's load) while its pruner
// removes the oldest messages down to a small limit, in slices, and the other is loaded alone. Same
// run, interleaved rounds, ratio per round; plus what pruning removed per second meanwhile, and the
// file's size before and after (incremental vacuum).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore, type Core } from '../../electron/core/index.ts';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';
import { LOAD, load, median, type LoadResult } from './ingest.bench.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Messages each relay holds before a round (re-filled between rounds). */
const FILL = Number(process.env.BENCH_FILL ?? 150_000);

async function fill(core: Core, writeKey: string, count: number): Promise<void> {
  const auth = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
  const run = Math.random().toString(36).slice(2);
  for (let sent = 0; sent < count; ) {
    const batch = Array.from({ length: 250 }, (_, i) => ({
      type: 'track', event: 'Filled', userId: `u${(sent + i) % 1000}`, messageId: `${run}-${sent + i}`, properties: { n: sent + i, pad: 'x'.repeat(200) },
    }));
    const res = await fetch(`${core.ingestUrl}/v1/batch`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });
    if (res.status !== 200) throw new Error(`fill: ${res.status} ${await res.text()}`);
    sent += batch.length;
  }
}

export async function runRetentionBench() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-retention-'));
  const source = { name: 'bench', writeKey: 'wk_bench', kind: 'server' as const };
  const none = { maxAgeDays: null, maxMessages: null, maxBytes: null };
  const make = (name: string) =>
    createCore({ dataDir: path.join(dir, name), ingestPort: 0, receiverPort: 0, config: { sources: [source], destinations: [], retention: none } });
  const [pruned, plain] = [await make('pruned'), await make('plain')];
  const alone: LoadResult[] = [];
  const whilePruning: LoadResult[] = [];
  const removedPerSecond: number[] = [];
  const sizes: { beforeMB: number; afterMB: number }[] = [];
  const size = () => fs.statSync(path.join(dir, 'pruned', DATABASE_FILE)).size / 2 ** 20;
  try {
    console.log(`retention: ${ROUNDS} rounds; each relay filled to ${FILL.toLocaleString('en-US')} messages, then loaded ${LOAD.durationMs / 1000} s (the ingestion benchmark's load), one while it prunes down to 1,000`);
    for (let round = 1; round <= ROUNDS; round++) {
      await fill(pruned, source.writeKey, FILL);
      await fill(plain, source.writeKey, FILL);
      const beforeMB = size();
      const started = Date.now();
      // Saving a lower limit prunes at once: in slices, beside the load.
      const pruning = pruned.pruner.setRetention({ ...none, maxMessages: 1000 });
      const [withPrune, report] = await Promise.all([load(pruned.ingestUrl, source.writeKey), pruning]);
      await pruned.pruner.setRetention(none);
      const withoutPrune = await load(plain.ingestUrl, source.writeKey);
      whilePruning.push(withPrune);
      alone.push(withoutPrune);
      removedPerSecond.push(report ? report.messages / (report.tookMs / 1000) : 0);
      sizes.push({ beforeMB, afterMB: size() });
      console.log(
        `  round ${round}  while pruning ${Math.round(withPrune.eventsPerSecond).toLocaleString('en-US')} events/s (p99 ${withPrune.p99Ms.toFixed(0)} ms)` +
          `  alone ${Math.round(withoutPrune.eventsPerSecond).toLocaleString('en-US')} events/s (p99 ${withoutPrune.p99Ms.toFixed(0)} ms)` +
          `  pruned ${report?.messages.toLocaleString('en-US') ?? 0} in ${((report?.tookMs ?? 0) / 1000).toFixed(1)} s (${((Date.now() - started) / 1000).toFixed(1)} s with the load)` +
          `  file ${beforeMB.toFixed(0)} → ${size().toFixed(0)} MB`,
      );
    }
    const ratios = whilePruning.map((r, i) => r.eventsPerSecond / alone[i]!.eventsPerSecond);
    const figures = {
      fill: FILL,
      whilePruning: { eventsPerSecond: median(whilePruning.map((r) => r.eventsPerSecond)), p99Ms: median(whilePruning.map((r) => r.p99Ms)) },
      alone: { eventsPerSecond: median(alone.map((r) => r.eventsPerSecond)), p99Ms: median(alone.map((r) => r.p99Ms)) },
      ratio: median(ratios),
      ratios: ratios.map((r) => Number(r.toFixed(3))),
      prunedPerSecond: median(removedPerSecond),
      sizes,
    };
    console.log(`ingest while pruning / alone = ${figures.ratio.toFixed(2)}x (rounds ${figures.ratios.join(', ')}); pruning removed ${Math.round(figures.prunedPerSecond).toLocaleString('en-US')} messages/s meanwhile`);
    return figures;
  } finally {
    await pruned.close();
    await plain.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
