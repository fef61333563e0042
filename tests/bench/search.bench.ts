// Search benchmark (`npm run bench -- search`): the query language at 1 million messages. A store is
// filled with realistic messages (tracks with products and an order id, identifies with traits,
// pages; a context on each), indexed to the end (the build rate is reported), then each query reads
// the inspector's first page (200 rows) and a second one, RUNS times: p50, p95 and max per query and
// over all, against the target of 300 ms p95; and the footer's count of each query's matches, once. Baseline, same run: the same queries with nothing
// indexed (every clause tested on the rows), once per query.
// Bounded: the fill stops at the count, the folder is removed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../electron/core/store/database.ts';
import { MessagesRepo } from '../../electron/core/store/messages-repo.ts';
import { countMessages } from '../../electron/core/store/message-counts.ts';
import { searchIndexer } from '../../electron/core/store/search-index.ts';
import { MERGE_AFTER, MERGE_PAGES } from '../../electron/core/writer/index-scheduler.ts';

const MESSAGES = Number(process.env.BENCH_SEARCH_MESSAGES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_SEARCH_RUNS ?? 20);
const EVENTS = ['Order Completed', 'Product Viewed', 'Product Added', 'Checkout Started', 'Signed In', 'Coupon Applied'];

function payload(n: number): { type: string; event: string | null; userId: string; raw: string } {
  const userId = `u_${n % 50_000}`;
  const context = { ip: `10.0.${n % 250}.${n % 199}`, library: { name: 'analytics.js', version: '5.2.0' }, page: { path: `/shop/${n % 400}`, title: 'Shop' }, userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' };
  const messageId = `m-${n.toString(36)}-${(n * 2654435761) % 1e9}`;
  if (n % 10 === 0) {
    return { type: 'identify', event: null, userId, raw: JSON.stringify({ type: 'identify', userId, messageId, traits: { email: `${userId}@example.com`, name: `Person ${n % 50_000}`, plan: ['free', 'pro', 'team'][n % 3] }, context }) };
  }
  if (n % 10 === 1) return { type: 'page', event: 'Shop', userId, raw: JSON.stringify({ type: 'page', name: 'Shop', userId, messageId, properties: { path: context.page.path }, context }) };
  const event = EVENTS[n % EVENTS.length]!;
  const products = Array.from({ length: 1 + (n % 3) }, (_, i) => ({ sku: `sku_${(n + i) % 5000}`, price: ((n + i) % 90) + 9.99, quantity: 1 + (i % 2) }));
  return { type: 'track', event, userId, raw: JSON.stringify({ type: 'track', event, userId, messageId, properties: { order_id: `ord_${n}`, revenue: (n % 300) + 0.5, currency: 'EUR', products }, context }) };
}

function fill(dir: string): { fillMs: number; indexMs: number; repo: MessagesRepo; db: ReturnType<typeof openDatabase> } {
  const db = openDatabase(dir);
  db.prepare("INSERT INTO sources (name, write_key, kind, created_at) VALUES ('web', 'wk_web', 'web', 0)").run();
  const insert = db.prepare("INSERT INTO messages (source_id, message_id, type, status, user_id, event, received_at, raw) VALUES (1, ?, ?, 'accepted', ?, ?, ?, ?)");
  const started = performance.now();
  const base = Date.now() - MESSAGES;
  for (let n = 0; n < MESSAGES; ) {
    db.exec('BEGIN');
    for (const end = Math.min(MESSAGES, n + 20_000); n < end; n++) {
      const p = payload(n);
      insert.run(`m${n}`, p.type, p.userId, p.event, base + n, p.raw);
    }
    db.exec('COMMIT');
  }
  const fillMs = performance.now() - started;
  // As a store from before the index: everything to index, newest first, as the writer thread would.
  db.exec('UPDATE search_index SET lo = (SELECT max(id) + 1 FROM messages), hi = (SELECT max(id) FROM messages)');
  const indexer = searchIndexer(db);
  const indexStarted = performance.now();
  while (indexer.step(5000));
  while (indexer.merge(256)); // as the writer merges them once idle (writer/index-scheduler.ts)
  return { fillMs, indexMs: performance.now() - indexStarted, repo: new MessagesRepo(db), db };
}

const QUERIES = [
  'ord_54321', // one order, by a word of its payload
  'sku_17', // a product in ~1 in 1,700 messages
  'properties.order_id:ord_99*', // a payload field with a wildcard
  'u_4240@example.com', // an email in identify traits
  'event:"Order Completed" sku_42', // a field and a word
  'userId:u_12*', // a column with a wildcard (trigram index)
  '-type:identify', // leave out (no index: the newest rows)
  'type:identify traits.plan:team', // a type and a trait
  'properties.revenue:>=299', // a number compared
  'coupon', // a common word
  'nothing_like_this', // no match
  'status:failed', // an outcome nobody has (no deliveries here)
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function time(repo: MessagesRepo, query: string): { ms: number; rows: number } {
  const started = performance.now();
  const first = repo.list({ search: query, limit: 200 });
  const second = first.length === 200 ? repo.list({ search: query, limit: 200, beforeId: first.at(-1)!.id }) : [];
  return { ms: performance.now() - started, rows: first.length + second.length };
}

export async function runSearchBench() {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-search-'));
  try {
    console.log(`search: filling ${MESSAGES.toLocaleString('en-US')} messages…`);
    const { fillMs, indexMs, repo, db } = fill(dir);
    const sizes = Object.fromEntries(
      (db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'messages_text%' OR name LIKE 'messages_search%' OR name = 'messages' GROUP BY name").all() as { name: string; bytes: number }[]).map(
        (r) => [r.name, r.bytes],
      ),
    );
    const bytesOf = (prefix: string) => Object.entries(sizes).filter(([n]) => n.startsWith(prefix)).reduce((sum, [, b]) => sum + b, 0);
    const perQuery: Record<string, { p50: number; p95: number; max: number; rows: number; countMs: number; matching: number; unindexedMs: number }> = {};
    const all: number[] = [];
    for (const query of QUERIES) time(repo, query); // warm the cache once
    for (const query of QUERIES) {
      const runs: number[] = [];
      let rows = 0;
      for (let i = 0; i < RUNS; i++) {
        const t = time(repo, query);
        runs.push(t.ms);
        rows = t.rows;
      }
      runs.sort((a, b) => a - b);
      all.push(...runs);
      // The footer's count (in the core's counting thread; here on this connection): once.
      const countStarted = performance.now();
      const { matching } = countMessages(db, { search: query });
      const countMs = round(performance.now() - countStarted);
      perQuery[query] = { p50: round(percentile(runs, 50)), p95: round(percentile(runs, 95)), max: round(runs.at(-1)!), rows, countMs, matching, unindexedMs: 0 };
    }
    const slices = newMessagesBySlice(db);
    // Baseline: nothing indexed (every clause tested on the rows).
    db.exec('UPDATE search_index SET lo = (SELECT max(id) + 1 FROM messages), hi = (SELECT max(id) FROM messages)');
    for (const query of QUERIES) {
      perQuery[query]!.unindexedMs = round(time(repo, query).ms); // once: the slow ones take seconds
    }
    db.close();
    all.sort((a, b) => a - b);
    const figures = {
      messages: MESSAGES,
      runsPerQuery: RUNS,
      fillSeconds: round(fillMs / 1000),
      indexBuildMessagesPerSecond: Math.round(MESSAGES / (indexMs / 1000)),
      bytesPerMessage: { messages: round((bytesOf('messages') - bytesOf('messages_text') - bytesOf('messages_search')) / MESSAGES), wordIndex: round(bytesOf('messages_text') / MESSAGES), trigramIndex: round(bytesOf('messages_search') / MESSAGES) },
      overall: { p50: round(percentile(all, 50)), p95: round(percentile(all, 95)), max: round(all.at(-1)!) },
      targetP95Ms: 300,
      perQuery,
      newMessagesBySlice: slices,
    };
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * New messages indexed into the full store `per` at a time (a slice each, as the writer's indexer makes
 * them: writer/index-scheduler.ts lets new messages gather until INDEX_BATCH wait), NEW_MESSAGES each
 * way, the sizes in turn, twice: the writer's time per message (the slices, and the merge steps it runs
 * once MERGE_AFTER messages were indexed) and its longest slice and step. Each slice is a new segment of
 * each index, so what new messages cost depends on how many slices hold them; the baseline is one
 * message per slice (what a test that sends and waits made before the scheduler gathered them).
 */
function newMessagesBySlice(db: ReturnType<typeof openDatabase>) {
  const SIZES = [1, 10, 50, 200];
  const NEW_MESSAGES = Number(process.env.BENCH_SEARCH_NEW ?? 2_000);
  const insert = db.prepare("INSERT INTO messages (source_id, message_id, type, status, user_id, event, received_at, raw) VALUES (1, ?, ?, 'accepted', ?, ?, ?, ?)");
  const indexer = searchIndexer(db);
  let n = MESSAGES;
  let unmerged = 0;
  const runs: Record<number, { ms: number; max: number; maxStep: number }[]> = Object.fromEntries(SIZES.map((size) => [size, []]));
  for (let round_ = 0; round_ < 2; round_++) {
    for (const per of SIZES) {
      let ms = 0;
      let max = 0;
      let maxStep = 0;
      for (let done = 0; done < NEW_MESSAGES; done += per) {
        db.exec('BEGIN');
        for (let i = 0; i < per; i++, n++) {
          const p = payload(n);
          insert.run(`m${n}`, p.type, p.userId, p.event, Date.now(), p.raw);
        }
        db.exec('COMMIT');
        const started = performance.now();
        indexer.step(per);
        const took = performance.now() - started;
        ms += took;
        max = Math.max(max, took);
        // The merge steps the writer runs once MERGE_AFTER messages were indexed since they last caught up, each a stretch of its own.
        unmerged += per;
        if (unmerged < MERGE_AFTER) continue;
        unmerged = 0;
        for (let more = true; more; ) {
          const stepStarted = performance.now();
          more = indexer.merge(MERGE_PAGES);
          const stepTook = performance.now() - stepStarted;
          ms += stepTook;
          maxStep = Math.max(maxStep, stepTook);
        }
      }
      runs[per]!.push({ ms, max, maxStep });
    }
  }
  const perMessage = (per: number) => runs[per]!.reduce((sum, r) => sum + r.ms, 0) / (2 * NEW_MESSAGES);
  const figures = Object.fromEntries(SIZES.map((per) => [`per${per}`, {
    msPerMessage: Math.round(perMessage(per) * 1000) / 1000,
    longestSliceMs: round(Math.max(...runs[per]!.map((r) => r.max))),
    longestMergeStepMs: round(Math.max(...runs[per]!.map((r) => r.maxStep))),
    baselineOverThis: round(perMessage(1) / perMessage(per)),
  }]));
  console.log(`  new messages indexed at ${MESSAGES.toLocaleString('en-US')} stored, ms of the writer per message by slice size: ${JSON.stringify(figures)}`);
  return { messages: NEW_MESSAGES, rounds: 2, ...figures };
}

const round = (n: number) => Math.round(n * 10) / 10;
