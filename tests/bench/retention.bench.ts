// Retention benchmark: does pruning stall ingestion? Three relays, each filled with the same number of
// messages; in each round two of them are loaded (the ingestion benchmark's load) while their pruners
// remove the oldest messages down to a small limit, in slices — one merging the search indexes after
// (as Sluice does), one not — and the third is loaded alone. Same run, interleaved rounds, ratio per
// round; plus what pruning removed per second meanwhile, and the file's size before and after
// (incremental vacuum). Then the search indexes' size while retention keeps a store at its limit:
// two relays (merging and not) sent the same messages in turns, pruned after each 10,000, against a
// fresh index of the messages kept.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore, type Core } from '../../electron/core/index.ts';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';
import { indexCaughtUp, indexSizes } from '../helpers/search-index.ts';
import { LOAD, load, type LoadResult } from './ingest.bench.ts';
import { median } from './median.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Messages each relay holds before a round (re-filled between rounds). */
const FILL = Number(process.env.BENCH_FILL ?? 150_000);
/** The steady state: messages sent to each relay, the retention's maxMessages, and how many arrive between prunes. */
const STEADY_SENT = Number(process.env.BENCH_STEADY_SENT ?? 300_000);
const STEADY_KEEP = Number(process.env.BENCH_STEADY_KEEP ?? 50_000);
const STEADY_CHUNK = 10_000;

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

/** Messages as a browser's analytics library sends them (random ids and pages: many distinct trigrams and words), from message `from` on. */
async function sendRealistic(core: Core, writeKey: string, from: number, count: number): Promise<void> {
  const auth = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
  const hex = (n: number, salt: number) => ((n * 2_654_435_761 + salt * 40_503) % 2 ** 48).toString(16).padStart(12, '0');
  for (let sent = from; sent < from + count; ) {
    const batch = Array.from({ length: 500 }, (_, i) => {
      const n = sent + i;
      const user = (n * 7919) % 5000;
      return {
        type: 'track', messageId: `${hex(n, 1)}-${hex(n, 2)}`, anonymousId: `${hex(user, 3)}-${hex(user, 4)}`, ...(user % 3 ? { userId: `user_${user}` } : {}),
        event: `${['Order Completed', 'Product Viewed', 'Signed In', 'Cart Viewed', 'Checkout Started'][n % 5]} ${n % 6}`,
        context: { page: { url: `https://shop.example.com/p/${(n * 31) % 20_000}?ref=${hex(n, 5).slice(0, 6)}`, title: 'Product page' } },
        properties: { orderId: `o_${n}`, revenue: (n % 9973) / 100, currency: 'USD', sku: `sku-${n % 4093}` },
      };
    });
    const res = await fetch(`${core.ingestUrl}/v1/batch`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });
    if (res.status !== 200) throw new Error(`send: ${res.status} ${await res.text()}`);
    sent += batch.length;
  }
}

/**
 * Two relays, merging the search indexes and not, kept at STEADY_KEEP messages while STEADY_SENT arrive
 * (in turns, 10,000 at a time, indexed, then pruned): the indexes' size after each prune against a
 * fresh index of the messages kept (the last third of the prunes), and what pruning removed per second.
 */
async function steadyState(dir: string, source: { writeKey: string }, make: (name: string, mergeIndexes: boolean) => Promise<Core>) {
  const MB = 2 ** 20;
  const relays = [
    { name: 'merging', key: 'merging', dataDir: path.join(dir, 'steady-merging'), core: await make('steady-merging', true), sizes: [] as number[], removed: 0, ms: 0 },
    { name: 'not merging', key: 'notMerging', dataDir: path.join(dir, 'steady-not-merging'), core: await make('steady-not-merging', false), sizes: [] as number[], removed: 0, ms: 0 },
  ];
  try {
    console.log(`steady state: ${STEADY_SENT.toLocaleString('en-US')} messages sent to each relay, ${STEADY_KEEP.toLocaleString('en-US')} kept, pruned every ${STEADY_CHUNK.toLocaleString('en-US')}`);
    for (const relay of relays) await relay.core.pruner.setRetention({ maxAgeDays: null, maxMessages: STEADY_KEEP, maxBytes: null });
    let fresh = 0;
    for (let sent = 0; sent < STEADY_SENT; sent += STEADY_CHUNK) {
      for (const relay of relays) {
        await sendRealistic(relay.core, source.writeKey, sent, STEADY_CHUNK);
        await indexCaughtUp(relay.dataDir);
        const report = await relay.core.pruner.run();
        relay.removed += report?.messages ?? 0;
        relay.ms += report?.tookMs ?? 0;
        const measured = indexSizes(relay.dataDir);
        relay.sizes.push(measured.indexes / MB);
        fresh = measured.fresh / MB;
      }
      if ((sent / STEADY_CHUNK) % 5 === 4) console.log(`  ${(sent + STEADY_CHUNK).toLocaleString('en-US')} sent: indexes ${relays.map((r) => `${r.name} ${r.sizes.at(-1)!.toFixed(1)} MB`).join(', ')}; fresh ${fresh.toFixed(1)} MB`);
    }
    const out = Object.fromEntries(
      relays.map((relay) => {
        const last = relay.sizes.slice(Math.floor((relay.sizes.length * 2) / 3));
        const figures = {
          indexMB: { mean: last.reduce((a, b) => a + b, 0) / last.length, max: Math.max(...last), end: relay.sizes.at(-1)! },
          prunedPerSecond: relay.removed / (relay.ms / 1000),
        };
        console.log(
          `  ${relay.name}: indexes ${figures.indexMB.mean.toFixed(1)} MB on average, ${figures.indexMB.max.toFixed(1)} at most over the last third of the prunes (${(figures.indexMB.mean / fresh).toFixed(2)}× / ${(figures.indexMB.max / fresh).toFixed(2)}× a fresh index); ` +
            `pruning (and merging) removed ${Math.round(figures.prunedPerSecond).toLocaleString('en-US')} messages/s`,
        );
        return [relay.key, figures];
      }),
    );
    return { sent: STEADY_SENT, kept: STEADY_KEEP, freshIndexMB: fresh, ...out };
  } finally {
    for (const relay of relays) await relay.core.close();
  }
}

export async function runRetentionBench() {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-retention-'));
  const source = { name: 'bench', writeKey: 'wk_bench', kind: 'server' as const };
  const none = { maxAgeDays: null, maxMessages: null, maxBytes: null };
  const make = (name: string, mergeIndexes = true) =>
    createCore({ dataDir: path.join(dir, name), ingestPort: 0, receiverPort: 0, mergeIndexes, config: { sources: [source], destinations: [], retention: none } });
  const [pruned, unmerged, plain] = [await make('pruned'), await make('pruned-not-merging', false), await make('plain')];
  const alone: LoadResult[] = [];
  const whilePruning: LoadResult[] = [];
  const whilePruningUnmerged: LoadResult[] = [];
  const removedPerSecond: number[] = [];
  const removedPerSecondUnmerged: number[] = [];
  const sizes: { beforeMB: number; afterMB: number; afterUnmergedMB: number }[] = [];
  const size = (name = 'pruned') => fs.statSync(path.join(dir, name, DATABASE_FILE)).size / 2 ** 20;
  try {
    console.log(
      `retention: ${ROUNDS} rounds; each relay filled to ${FILL.toLocaleString('en-US')} messages, then loaded ${LOAD.durationMs / 1000} s (the ingestion benchmark's load), ` +
        'two while they prune down to 1,000 (one merging the search indexes after, as Sluice does, one not)',
    );
    /** Loads `relay` while its pruner prunes down to 1,000 (saving a lower limit prunes at once: in slices, beside the load). */
    const loadWhilePruning = async (relay: Core) => {
      const started = Date.now();
      const [loaded, report] = await Promise.all([load(relay.ingestUrl, source.writeKey), relay.pruner.setRetention({ ...none, maxMessages: 1000 })]);
      await relay.pruner.setRetention(none);
      const summary = `pruned ${report?.messages.toLocaleString('en-US') ?? 0} in ${((report?.tookMs ?? 0) / 1000).toFixed(1)} s (${((Date.now() - started) / 1000).toFixed(1)} s with the load)`;
      return { loaded, perSecond: report ? report.messages / (report.tookMs / 1000) : 0, summary };
    };
    const rate = (r: LoadResult) => `${Math.round(r.eventsPerSecond).toLocaleString('en-US')} events/s (p99 ${r.p99Ms.toFixed(0)} ms)`;
    for (let round = 1; round <= ROUNDS; round++) {
      await fill(pruned, source.writeKey, FILL);
      await fill(unmerged, source.writeKey, FILL);
      await fill(plain, source.writeKey, FILL);
      const beforeMB = size();
      // Each load starts with every relay's indexing done (an earlier load's backlog would take the CPU),
      // and the two pruning relays take turns going first.
      const settle = () => Promise.all(['pruned', 'pruned-not-merging', 'plain'].map((name) => indexCaughtUp(path.join(dir, name))));
      const loaded = new Map<Core, Awaited<ReturnType<typeof loadWhilePruning>>>();
      for (const relay of round % 2 ? [pruned, unmerged] : [unmerged, pruned]) {
        await settle();
        loaded.set(relay, await loadWhilePruning(relay));
      }
      const [merging, notMerging] = [loaded.get(pruned)!, loaded.get(unmerged)!];
      await settle();
      const withoutPrune = await load(plain.ingestUrl, source.writeKey);
      whilePruning.push(merging.loaded);
      whilePruningUnmerged.push(notMerging.loaded);
      alone.push(withoutPrune);
      removedPerSecond.push(merging.perSecond);
      removedPerSecondUnmerged.push(notMerging.perSecond);
      sizes.push({ beforeMB, afterMB: size(), afterUnmergedMB: size('pruned-not-merging') });
      console.log(
        `  round ${round}  while pruning ${rate(merging.loaded)}, ${merging.summary}, file ${beforeMB.toFixed(0)} → ${size().toFixed(0)} MB` +
          `\n           not merging ${rate(notMerging.loaded)}, ${notMerging.summary}, file → ${size('pruned-not-merging').toFixed(0)} MB` +
          `\n           alone ${rate(withoutPrune)}`,
      );
    }
    const ratios = whilePruning.map((r, i) => r.eventsPerSecond / alone[i]!.eventsPerSecond);
    const ratiosUnmerged = whilePruningUnmerged.map((r, i) => r.eventsPerSecond / alone[i]!.eventsPerSecond);
    const figures = {
      fill: FILL,
      whilePruning: { eventsPerSecond: median(whilePruning.map((r) => r.eventsPerSecond)), p99Ms: median(whilePruning.map((r) => r.p99Ms)) },
      alone: { eventsPerSecond: median(alone.map((r) => r.eventsPerSecond)), p99Ms: median(alone.map((r) => r.p99Ms)) },
      ratio: median(ratios),
      ratios: ratios.map((r) => Number(r.toFixed(3))),
      prunedPerSecond: median(removedPerSecond),
      notMerging: {
        eventsPerSecond: median(whilePruningUnmerged.map((r) => r.eventsPerSecond)),
        ratio: median(ratiosUnmerged),
        ratios: ratiosUnmerged.map((r) => Number(r.toFixed(3))),
        prunedPerSecond: median(removedPerSecondUnmerged),
      },
      sizes,
    };
    console.log(`ingest while pruning / alone = ${figures.ratio.toFixed(2)}x (rounds ${figures.ratios.join(', ')}); pruning removed ${Math.round(figures.prunedPerSecond).toLocaleString('en-US')} messages/s meanwhile`);
    console.log(`  not merging the indexes: ${figures.notMerging.ratio.toFixed(2)}x (rounds ${figures.notMerging.ratios.join(', ')}); ${Math.round(figures.notMerging.prunedPerSecond).toLocaleString('en-US')} messages/s`);
    await Promise.all([pruned.close(), unmerged.close(), plain.close()]);
    return { ...figures, steady: await steadyState(dir, source, make) };
  } finally {
    await pruned.close();
    await unmerged.close();
    await plain.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
