// Overview benchmark (`npm run bench -- overview`): the delivery overview at 1 million messages (issue
// 29's Measure: first paint < 500 ms, counted off the main thread). A store is filled with 1 M accepted
// messages received over 10 days and, as ingestion makes them, an automatic delivery of each to two
// destinations (2 M deliveries) in realistic states: shop mostly delivered, some skipped by a filter,
// a plan or integrations, a few failed, retrying or pending; crm with a fifth retrying and a tenth
// failed. Then, RUNS times each: `overview.deliveries`'s answer for each window, through the core's
// counting thread (store/message-counter.ts, as the operation asks it); the first page (200 rows) of
// the stream a step opens (delivery:"name:step", on the main thread's repo, as messages.list reads it).
// Baseline, same run: messages.list's first page without a filter. Bounded: the folder is removed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OVERVIEW_WINDOWS, type OverviewWindow } from '../../shared/channels/overview.ts';
import { deliveryStepQuery } from '../../shared/message-query.ts';
import { openDatabase, databaseFile } from '../../electron/core/store/database.ts';
import { MessageCounter } from '../../electron/core/store/message-counter.ts';
import { MessagesRepo } from '../../electron/core/store/messages-repo.ts';

const MESSAGES = Number(process.env.BENCH_OVERVIEW_MESSAGES ?? 1_000_000);
const RUNS = Number(process.env.BENCH_OVERVIEW_RUNS ?? 10);
const SPAN = 10 * 86_400_000;
const TARGET_MS = 500;

/** shop's and crm's delivery of message n: a state and, when skipped, the reason. */
function states(n: number): [[string, string | null], [string, string | null]] {
  const r = n % 100;
  const shop: [string, string | null] =
    r < 88 ? ['delivered', null]
    : r < 91 ? ['skipped', 'dropped by filter 1 (if: event:Debug*)']
    : r < 92 ? ['skipped', 'blocked by the tracking plan "web": properties.total is required']
    : r < 93 ? ['skipped', 'integrations.All is false and Webhooks is not true']
    : r < 96 ? ['failed', null]
    : r < 98 ? ['retrying', null]
    : ['pending', null];
  const crm: [string, string | null] = r < 70 ? ['delivered', null] : r < 90 ? ['retrying', null] : ['failed', null];
  return [shop, crm];
}

function fill(dir: string, now: number): number {
  const db = openDatabase(dir);
  db.prepare("INSERT INTO sources (name, write_key, kind, created_at) VALUES ('web', 'wk_web', 'web', 0)").run();
  for (const name of ['shop', 'crm']) {
    db.prepare("INSERT INTO destinations (name, kind, enabled, settings, created_at, updated_at) VALUES (?, 'webhooks', 1, '{}', 0, 0)").run(name);
  }
  const message = db.prepare("INSERT INTO messages (source_id, message_id, type, status, user_id, event, received_at, raw) VALUES (1, ?, 'track', 'accepted', ?, ?, ?, ?)");
  const delivery = db.prepare(
    "INSERT INTO deliveries (message_id, destination_id, trigger, status, skip_reason, attempt_count, next_attempt_at, created_at, updated_at) VALUES (?, ?, 'automatic', ?, ?, ?, ?, ?, ?)",
  );
  const started = performance.now();
  const base = now - SPAN;
  for (let n = 0; n < MESSAGES; ) {
    db.exec('BEGIN');
    for (const end = Math.min(MESSAGES, n + 20_000); n < end; n++) {
      const at = base + Math.floor((n * SPAN) / MESSAGES);
      const event = n % 100 >= 88 && n % 100 < 91 ? 'Debug Ping' : 'Order Completed';
      const id = Number(message.run(`m${n}`, `u_${n % 50_000}`, event, at, JSON.stringify({ type: 'track', event, userId: `u_${n % 50_000}`, messageId: `m${n}`, properties: { total: n % 300 } })).lastInsertRowid);
      states(n).forEach(([status, reason], d) => {
        const open = status === 'retrying' || status === 'pending';
        delivery.run(id, d + 1, status, reason, status === 'skipped' || status === 'pending' ? 0 : 1, open ? now + 60_000 : null, at, at);
      });
    }
    db.exec('COMMIT');
  }
  db.close();
  return performance.now() - started;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
const round = (n: number) => Math.round(n * 10) / 10;
const summary = (runs: number[]) => {
  const sorted = [...runs].sort((a, b) => a - b);
  return { p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), max: round(sorted.at(-1)!) };
};

export async function runOverviewBench() {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-overview-bench-'));
  const now = Date.now();
  try {
    console.log(`overview: filling ${MESSAGES.toLocaleString('en-US')} messages and ${(2 * MESSAGES).toLocaleString('en-US')} deliveries…`);
    const fillMs = fill(dir, now);
    const counter = new MessageCounter(databaseFile(dir));
    const db = openDatabase(dir);
    const repo = new MessagesRepo(db);
    try {
      const timed = async <T>(work: () => T | Promise<T>): Promise<{ ms: number; value: T }> => {
        const started = performance.now();
        const value = await work();
        return { ms: performance.now() - started, value };
      };
      // Warm: the counting thread started, the pages read once.
      await counter.funnels(null, now);
      repo.list({ limit: 200 });
      const windows: Record<string, { p50: number; p95: number; max: number; received: number }> = {};
      for (const window of Object.keys(OVERVIEW_WINDOWS) as OverviewWindow[]) {
        const span = OVERVIEW_WINDOWS[window];
        const runs: number[] = [];
        let received = 0;
        for (let i = 0; i < RUNS; i++) {
          const t = await timed(() => counter.funnels(span === null ? null : now - span, now));
          runs.push(t.ms);
          received = t.value.reduce((sum, f) => sum + f.received, 0);
        }
        windows[window] = { ...summary(runs), received };
      }
      const baselineRuns: number[] = [];
      for (let i = 0; i < RUNS; i++) baselineRuns.push((await timed(() => repo.list({ limit: 200 }))).ms);
      const steps: Record<string, { p50: number; p95: number; max: number; rows: number }> = {};
      for (const [name, step] of [['shop', 'failed'], ['shop', 'skipped-filter'], ['shop', 'delivered'], ['crm', 'retrying'], ['shop', 'received']] as const) {
        const query = deliveryStepQuery(name, step);
        const runs: number[] = [];
        let rows = 0;
        for (let i = 0; i < RUNS; i++) {
          const t = await timed(() => repo.list({ search: query, limit: 200 }));
          runs.push(t.ms);
          rows = t.value.length;
        }
        steps[query] = { ...summary(runs), rows };
      }
      const baseline = summary(baselineRuns);
      const worst = Math.max(...Object.values(windows).map((w) => w.p95));
      const figures = {
        messages: MESSAGES,
        deliveries: 2 * MESSAGES,
        runs: RUNS,
        fillSeconds: round(fillMs / 1000),
        targetMs: TARGET_MS,
        overviewMs: windows,
        overviewWorstP95Ms: worst,
        stepFirstPageMs: steps,
        baselineFirstPageMs: baseline,
        ratioWorstOverviewToBaselineP95: round(worst / Math.max(0.1, baseline.p95)),
      };
      console.log(JSON.stringify(figures, null, 2));
      return figures;
    } finally {
      db.close();
      await counter.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
