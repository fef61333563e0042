// The background check of the whole store (electron/core/store-check/): how long it takes per GB of
// store, and what it costs ingestion while it runs. One real relay, filled to BENCH_CHECK_MB (its file
// checkpointed), its check started on demand (core.health.checkAgain: the scheduling Sluice uses).
//   - per GB, idle: a whole round with nothing else to do (its speed is the check's own), with the
//     file in the page cache (warm) and with its pages dropped from it first (cold: `dd iflag=nocache`
//     asks the kernel to drop that file's cached pages; a virtual machine's disk may still cache them);
//   - ingestion: the ingestion benchmark's load (load-generator.ts) alone, and with a round running
//     (begun as the load begins), in the same run, in turns (the order alternates), ratio per round;
//     each phase starts with the search index caught up and no round under way (a round still running
//     when its load ends is let finish first, idle). Also how far the check got meanwhile.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore, type Core } from '../../electron/core/index.ts';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';
import { fileBytes } from '../../electron/core/store/integrity.ts';
import type { StoreCheckView } from '../../shared/storage.ts';
import { indexCaughtUp } from '../helpers/search-index.ts';
import { LOAD, load, type LoadResult } from './ingest.bench.ts';
import { median } from './median.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The store's size before the rounds (the loads add to it). */
const FILL_MB = Number(process.env.BENCH_CHECK_MB ?? 400);
const GB = 1e9;

/** Messages of ~1 KB (a page view's context, properties), 4 requests of 500 in flight, until the file holds `mb` MB. */
async function fill(core: Core, writeKey: string, mb: number): Promise<number> {
  const auth = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
  const file = path.join(core.dataDir, DATABASE_FILE);
  let next = 0;
  const post = async () => {
    const from = next;
    next += 500;
    const batch = Array.from({ length: 500 }, (_, i) => {
      const n = from + i;
      return {
        type: 'track', event: ['Order Completed', 'Product Viewed', 'Signed In', 'Cart Viewed'][n % 4], userId: `user_${(n * 7919) % 5000}`, messageId: `fill-${n}`,
        context: { page: { url: `https://shop.example.com/p/${(n * 31) % 20_000}`, title: 'Product page' }, userAgent: 'Mozilla/5.0 (X11; Linux x86_64) bench' },
        properties: { orderId: `o_${n}`, revenue: (n % 9973) / 100, currency: 'USD', sku: `sku-${n % 4093}`, note: 'x'.repeat(400 + (n % 300)) },
      };
    });
    const res = await fetch(`${core.ingestUrl}/v1/batch`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });
    if (res.status !== 200) throw new Error(`fill: ${res.status} ${await res.text()}`);
  };
  // The database file alone (the WAL holds pages more than once until they are checkpointed into it).
  while (!fs.existsSync(file) || fs.statSync(file).size < mb * 1e6) await Promise.all([post(), post(), post(), post()]);
  return next;
}

/** Begins a round now and resolves with it once it ended. */
async function round(core: Core): Promise<StoreCheckView> {
  core.health.checkAgain();
  for (;;) {
    const { check } = core.health.view();
    if (check.state !== 'checking' && check.state !== 'waiting') return check;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The store's pages out of the page cache (clean pages only: the WAL was checkpointed). */
function dropCache(file: string): boolean {
  try {
    execFileSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0', 'status=none']);
    return true;
  } catch {
    return false;
  }
}

export async function runStoreCheckBench() {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-store-check-'));
  const source = { name: 'bench', writeKey: 'wk_bench', kind: 'server' as const };
  const dataDir = path.join(dir, 'relay');
  const file = path.join(dataDir, DATABASE_FILE);
  // No round at start (storeCheck: false): each is begun on demand, with Sluice's own timing.
  // No retention: the loads take the store past a million messages, and pruning meanwhile would be measured too.
  const none = { maxAgeDays: null, maxMessages: null, maxBytes: null };
  const open = () => createCore({ dataDir, ingestPort: 0, receiverPort: 0, storeCheck: false, config: { sources: [source], destinations: [], retention: none } });
  let core = await open();
  try {
    const filled = await fill(core, source.writeKey, FILL_MB);
    await indexCaughtUp(dataDir);
    await core.close(); // checkpointed: the file holds everything
    core = await open();
    const mb = () => fileBytes(file) / 1e6;
    console.log(`store check: a store of ${mb().toFixed(0)} MB (${filled.toLocaleString('en-US')} messages); ${ROUNDS} rounds`);

    const warm: number[] = [];
    const cold: number[] = [];
    const rowsPerSecond: number[] = [];
    const timed = async () => {
      const started = performance.now();
      const check = await round(core);
      if (check.state !== 'sound') throw new Error(`the check ended ${check.state}`);
      const seconds = (performance.now() - started) / 1000;
      rowsPerSecond.push(check.rows / seconds);
      return { seconds, perGB: seconds / (fileBytes(file) / GB) };
    };
    await round(core); // once, to warm up the thread's code and the page cache
    for (let i = 1; i <= ROUNDS; i++) {
      const w = await timed();
      warm.push(w.perGB);
      const dropped = dropCache(file);
      const c = dropped ? await timed() : null;
      if (c) cold.push(c.perGB);
      console.log(`  idle ${i}: warm ${w.seconds.toFixed(1)} s (${w.perGB.toFixed(1)} s/GB)${c ? `, cold ${c.seconds.toFixed(1)} s (${c.perGB.toFixed(1)} s/GB)` : ', cold: dd could not drop the cache'}`);
    }

    const alone: LoadResult[] = [];
    const withCheck: LoadResult[] = [];
    const checkedUnderLoad: number[] = [];
    const rate = (r: LoadResult) => `${Math.round(r.eventsPerSecond).toLocaleString('en-US')} events/s (p99 ${r.p99Ms.toFixed(0)} ms)`;
    for (let i = 1; i <= ROUNDS; i++) {
      const phases = i % 2 ? (['alone', 'with'] as const) : (['with', 'alone'] as const);
      let line = `  ingest ${i}:`;
      for (const phase of phases) {
        await indexCaughtUp(dataDir);
        if (phase === 'alone') {
          const result = await load(core.ingestUrl, source.writeKey);
          alone.push(result);
          line += ` alone ${rate(result)};`;
        } else {
          core.health.checkAgain();
          const before = core.health.view().check.rows;
          const result = await load(core.ingestUrl, source.writeKey);
          const rows = core.health.view().check.rows - before;
          withCheck.push(result);
          checkedUnderLoad.push(rows / ((LOAD.warmupMs + LOAD.durationMs) / 1000));
          line += ` with the check ${rate(result)}, which read ${Math.round(rows / ((LOAD.warmupMs + LOAD.durationMs) / 1000)).toLocaleString('en-US')} rows/s meanwhile;`;
          await round(core); // let it finish (idle) before the next phase
        }
      }
      console.log(line);
    }
    const ratios = withCheck.map((r, i) => r.eventsPerSecond / alone[i]!.eventsPerSecond);
    const figures = {
      storeMB: Math.round(mb()),
      perGB: {
        warmSeconds: Number(median(warm).toFixed(2)),
        coldSeconds: cold.length ? Number(median(cold).toFixed(2)) : null,
        warmRounds: warm.map((s) => Number(s.toFixed(2))),
        coldRounds: cold.map((s) => Number(s.toFixed(2))),
        rowsPerSecondIdle: Math.round(median(rowsPerSecond)),
      },
      ingest: {
        alone: { eventsPerSecond: Math.round(median(alone.map((r) => r.eventsPerSecond))), p99Ms: median(alone.map((r) => r.p99Ms)) },
        withCheck: { eventsPerSecond: Math.round(median(withCheck.map((r) => r.eventsPerSecond))), p99Ms: median(withCheck.map((r) => r.p99Ms)) },
        ratio: Number(median(ratios).toFixed(3)),
        ratios: ratios.map((r) => Number(r.toFixed(3))),
        checkRowsPerSecondUnderLoad: Math.round(median(checkedUnderLoad)),
      },
    };
    console.log(
      `store check: ${figures.perGB.warmSeconds} s/GB warm, ${figures.perGB.coldSeconds ?? '-'} s/GB cold (idle); ingestion with it running / alone = ${figures.ingest.ratio.toFixed(2)}x (rounds ${figures.ingest.ratios.join(', ')})`,
    );
    return figures;
  } finally {
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
