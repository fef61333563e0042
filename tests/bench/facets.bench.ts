// Facets benchmark (`npm run bench -- facets`, issue 29's Measure: "facets < 1 s" at 1 M stored
// messages). Reads a copy of a large store (BENCH_LATENCY_DIR, the latency benchmark's: ~2.2 M
// messages; copied to a temporary folder and migrated there, removed after — the original is never opened) on a
// read-only connection, as the counting thread does (count-worker.ts), and times, RUNS times each:
// the baseline, `messages.list`'s first page (200 rows) through MessagesRepo.list; the facets
// (store/message-facets.ts) unfiltered, with a payload field, under a broad search, a words search and
// a narrow one; the timeline unfiltered (exact, on the time index) and under those searches (from the
// latest matches). Figures: p50, p95, max (ms) and the ratio of each p50 to the baseline's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openReadOnly } from '../../electron/core/store/connection.ts';
import { databaseFile, openDatabase } from '../../electron/core/store/database.ts';
import { exactTimeline, FACET_SCAN, messageFacets, messageTimeline, timeOnly } from '../../electron/core/store/message-facets.ts';
import { MessagesRepo } from '../../electron/core/store/messages-repo.ts';
import { countMessages } from '../../electron/core/store/message-counts.ts';

const SOURCE = process.env.BENCH_LATENCY_DIR ?? '/tmp/latency-1m';
const RUNS = Number(process.env.BENCH_FACETS_RUNS ?? 7);

const SEARCHES: Record<string, { search?: string; field?: string }> = {
  unfiltered: {},
  'unfiltered + properties.revenue': { field: 'properties.revenue' },
  'broad: event:"Order Completed"': { search: 'event:"Order Completed"' },
  'words: "Order Completed" + properties.currency': { search: '"Order Completed"', field: 'properties.currency' },
  'narrow: userId:user_26*': { search: 'userId:user_26*' },
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function timed(run: () => unknown): { p50: number; p95: number; max: number } {
  run(); // warm the cache once
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    run();
    runs.push(performance.now() - started);
  }
  runs.sort((a, b) => a - b);
  return { p50: round(percentile(runs, 50)), p95: round(percentile(runs, 95)), max: round(runs.at(-1)!) };
}

export async function runFacetsBench() {
  const from = path.join(SOURCE, 'data');
  if (!fs.existsSync(databaseFile(from))) throw new Error(`no store at ${from}: run the latency benchmark first, or set BENCH_LATENCY_DIR to a folder holding data/sluice.db`);
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-facets-'));
  try {
    console.log(`facets: copying the store of ${from}…`);
    fs.cpSync(from, dir, { recursive: true });
    // Brought to this version's schema (the copy only: the latency benchmark's store may be older).
    openDatabase(dir).close();
    const db = openReadOnly(databaseFile(dir));
    const messages = (db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
    const repo = new MessagesRepo(db);
    const baseline = timed(() => repo.list({ limit: 200 }));
    const ratio = (ms: number) => round(ms / baseline.p50);
    const facets: Record<string, unknown> = {};
    const timeline: Record<string, unknown> = {};
    for (const [name, query] of Object.entries(SEARCHES)) {
      let counted = 0;
      let complete = false;
      const f = timed(() => ({ counted, complete } = messageFacets(db, query)));
      // The footer's count of the same search (messages.count, in the same thread): what a search costs before any facet.
      const { field: _field, ...countQuery } = query;
      const started = performance.now();
      countMessages(db, countQuery);
      facets[name] = { ...f, vsBaseline: ratio(f.p50), counted, complete, footerCountMs: round(performance.now() - started) };
      if (query.field) continue;
      const { field: _, ...filters } = query;
      let exact = false;
      const t = timed(() => (exact = (timeOnly(filters) ? exactTimeline(db, filters) : messageTimeline(db, filters))?.exact ?? true));
      timeline[name] = { ...t, vsBaseline: ratio(t.p50), exact };
    }
    db.close();
    const figures = { messages, scan: FACET_SCAN, runs: RUNS, targetMs: 1000, baselineFirstPage: baseline, facets, timeline };
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const round = (n: number) => Math.round(n * 10) / 10;
