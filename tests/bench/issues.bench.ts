// Issues benchmark (`npm run bench -- issues`, issue 29's Measure: the issues list's first paint < 500 ms at
// 1 M stored messages, counted off the main thread). Reads a copy of a large store (BENCH_LATENCY_DIR, the
// latency benchmark's: ~2.2 M messages, 1 M deliveries to a webhook and two Tracking APIs; copied to a
// temporary folder, the original never opened), where — before migrating it — a share of the deliveries is
// made to have failed as the engine records it: the webhook's 503 given up (20 %), timeouts retrying (10 %),
// 400s (1 %), and a Tracking API's deliveries retrying without an attempt of their own (10 %). Then the
// migrations run (migration 24's backfill timed on its own), and RUNS times each: `issues.list` as the
// operation reads it (store/issues-repo.ts on a connection to the store; its first answer, with the
// statement prepared, apart), by state and destination; the first page (200 rows) of the stream a group's
// query opens (`issue:<id>`), and a bulk retry's chunk reads (a group's 500 deliveries; a filter's 500 with
// their messages tested). Baseline, same run: messages.list's first page without a filter. For
// comparison, the counting thread's start (what a question queued there waits for at a core's first).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, openReadOnly } from '../../electron/core/store/connection.ts';
import { databaseFile, openDatabase } from '../../electron/core/store/database.ts';
import { IssuesRepo } from '../../electron/core/store/issues-repo.ts';
import { MessageCounter } from '../../electron/core/store/message-counter.ts';
import { MessagesRepo } from '../../electron/core/store/messages-repo.ts';
import { MIGRATIONS } from '../../electron/core/store/migrations.ts';
import { RETRY_CHUNK } from '../../electron/core/delivery/bulk-retry.ts';

const SOURCE = process.env.BENCH_LATENCY_DIR ?? '/tmp/latency-1m';
const RUNS = Number(process.env.BENCH_ISSUES_RUNS ?? 20);
const TARGET_MS = 500;

const round = (ms: number) => Math.round(ms * 10) / 10;
function stats(runs: number[]): { p50: number; p95: number; max: number } {
  const sorted = [...runs].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  return { p50: round(at(50)), p95: round(at(95)), max: round(sorted.at(-1)!) };
}
async function timed(run: () => unknown): Promise<{ p50: number; p95: number; max: number }> {
  await run(); // warm
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    runs.push(performance.now() - started);
  }
  return stats(runs);
}

/** Failures as the engine records them, on the copy at its own schema (before 24: nothing groups them yet). */
function fail(file: string): void {
  const db = connect(file, 'main');
  try {
    const hook = (db.prepare("SELECT id FROM destinations WHERE json_extract(settings, '$.trackingApi') IS NULL ORDER BY id LIMIT 1").get() as { id: number }).id;
    const api = (db.prepare("SELECT id FROM destinations WHERE json_extract(settings, '$.trackingApi') IS NOT NULL ORDER BY id LIMIT 1").get() as { id: number }).id;
    db.exec('BEGIN');
    db.exec(`
      UPDATE deliveries SET status = 'failed', next_attempt_at = NULL,
        last_error = 'the receiver answered 503; will retry — gave up: the 4-hour retry window is over' WHERE destination_id = ${hook} AND id % 10 IN (0, 1);
      UPDATE deliveries SET status = 'retrying', next_attempt_at = 9e12, last_error = 'did not answer within 5 s; will retry' WHERE destination_id = ${hook} AND id % 10 = 2;
      UPDATE deliveries SET status = 'failed', next_attempt_at = NULL,
        last_error = 'the receiver answered 400; a 4xx is final, the request will not be retried' WHERE destination_id = ${hook} AND id % 100 = 3;
      UPDATE deliveries SET status = 'retrying', next_attempt_at = 9e12, last_error = 'the stored message cannot be read; nothing was sent'
        WHERE destination_id = ${api} AND id % 10 = 4;
      UPDATE attempts SET (outcome, error_code, response_status, error_message) =
        (SELECT CASE WHEN d.status = 'retrying' THEN 'retry' ELSE 'final' END,
                CASE WHEN d.id % 10 = 2 THEN 'timeout' ELSE 'http' END,
                CASE WHEN d.id % 10 = 2 THEN NULL WHEN d.id % 100 = 3 THEN 400 ELSE 503 END,
                d.last_error FROM deliveries d WHERE d.id = attempts.delivery_id)
        WHERE delivery_id IN (SELECT id FROM deliveries WHERE destination_id = ${hook} AND status IN ('failed', 'retrying'));`);
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

/** Runs the migrations the copy lacks, one transaction each as migrate() does; how long migration 24 took. */
function migrateTimed(file: string): { fromVersion: number; migration24Ms: number; allMs: number } {
  const db = connect(file, 'main');
  try {
    const fromVersion = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
    let migration24Ms = 0;
    const began = performance.now();
    for (const migration of MIGRATIONS.filter((m) => m.version > fromVersion)) {
      const started = performance.now();
      db.exec('BEGIN IMMEDIATE');
      db.exec(migration.sql);
      db.exec(`PRAGMA user_version = ${migration.version}`);
      db.exec('COMMIT');
      if (migration.version === 24) migration24Ms = performance.now() - started;
    }
    return { fromVersion, migration24Ms: round(migration24Ms), allMs: round(performance.now() - began) };
  } finally {
    db.close();
  }
}

export async function runIssuesBench() {
  const from = path.join(SOURCE, 'data');
  if (!fs.existsSync(databaseFile(from))) throw new Error(`no store at ${from}: run the latency benchmark first, or set BENCH_LATENCY_DIR to a folder holding data/sluice.db`);
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-issues-'));
  let counter: MessageCounter | undefined;
  try {
    console.log(`issues: copying the store of ${from}…`);
    fs.cpSync(from, dir, { recursive: true });
    const file = databaseFile(dir);
    fail(file);
    const migration = migrateTimed(file);
    openDatabase(dir).close(); // as a core opens it (nothing left to migrate)
    const db = openReadOnly(file);
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const store = {
      messages: count('SELECT count(*) AS n FROM messages'),
      deliveries: count('SELECT count(*) AS n FROM deliveries'),
      openDeliveries: count("SELECT count(*) AS n FROM deliveries WHERE status IN ('failed', 'retrying')"),
      groups: count('SELECT count(*) AS n FROM issues'),
    };
    console.log(`issues: ${JSON.stringify(store)}; migration 24 (the backfill) ${migration.migration24Ms} ms`);
    const repo = new MessagesRepo(db);
    const baseline = await timed(() => repo.list({ limit: 200 }));

    // First paint: a fresh repo (its statement prepared at the first read), then warm.
    const issues = new IssuesRepo(db);
    let started = performance.now();
    const first = issues.list('open', undefined);
    const firstPaintMs = round(performance.now() - started);
    const list = {
      open: await timed(() => issues.list('open', undefined)),
      all: await timed(() => issues.list('all', undefined)),
      oneDestination: await timed(() => issues.list('open', first.issues[0]!.destinationId)),
    };
    // What a question queued in the counting thread waits for at a core's first: the thread's start.
    counter = new MessageCounter(file);
    started = performance.now();
    await counter.funnels(Date.now(), Date.now()); // a question that reads a few rows
    const countingThreadStartMs = round(performance.now() - started);
    const biggest = [...first.issues].sort((a, b) => b.open - a.open)[0]!;
    const smallest = [...first.issues].sort((a, b) => a.open - b.open)[0]!;
    const stream = {
      [`issue:${biggest.id} (${biggest.open} open)`]: await timed(() => repo.list({ search: biggest.query, limit: 200 })),
      [`issue:${smallest.id} (${smallest.open} open)`]: await timed(() => repo.list({ search: smallest.query, limit: 200 })),
    };
    const middle = Math.floor(store.deliveries / 2);
    const chunks = {
      group: await timed(() => issues.ofIssue(biggest.id, middle, RETRY_CHUNK)),
      filter: await timed(() => {
        const rows = issues.open(middle, RETRY_CHUNK);
        return issues.matching(rows.flatMap((r) => (r.messageId === null ? [] : [r.messageId])), { search: 'event:"Order Completed"' });
      }),
    };
    db.close();
    started = performance.now();
    const figures = {
      store,
      migration,
      runs: RUNS,
      targetMs: TARGET_MS,
      baselineFirstPage: baseline,
      countingThreadStartMs,
      list: { firstPaintMs, groups: first.issues.length, openGroups: first.open, ...list, vsBaseline: round(list.open.p50 / baseline.p50) },
      stream,
      retryChunks: chunks,
      groupsListed: first.issues.map((i) => ({ id: i.id, destination: i.destinationName, url: i.url, status: i.status, errorKind: i.errorKind, failed: i.failed, retrying: i.retrying })),
    };
    console.log(JSON.stringify(figures, null, 2));
    if (firstPaintMs >= TARGET_MS || list.open.p95 >= TARGET_MS) console.log(`issues: over the target of ${TARGET_MS} ms`);
    return figures;
  } finally {
    await counter?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
