// What Issues' triggers (migration 24) cost the store's writes of a delivery sent at the first try, measured
// where they run, without the noise of HTTP and threads that the overview-cost benchmark carries
// (`npm run bench -- issues-cost`): in one process, a store as migrated and the same store with Issues'
// triggers dropped, each round starting with another. Per round and store: N pending deliveries made, then
// each one's round recorded as delivered, one statement per delivery in one transaction, as the writer does
// (store/delivery-results.ts: the status update that fires delivery_hours_moved and issue_deliveries_moved,
// whose WHEN stops at the old status); and, for the failure path, N deliveries made to fail and recover.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '../../electron/core/store/database.ts';
import { deliveryResultRecorder } from '../../electron/core/store/delivery-results.ts';
import type { DeliveryResult } from '../../electron/core/store/delivery-types.ts';
import { median } from './median.ts';

const N = Number(process.env.BENCH_ISSUES_COST_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const VARIANTS = ['with', 'without'] as const;
type Variant = (typeof VARIANTS)[number];


function store(variant: Variant): { db: DatabaseSync; dir: string } {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-issues-cost-'));
  const db = openDatabase(dir, { durable: false });
  if (variant === 'without') db.exec('DROP TRIGGER issue_deliveries_moved; DROP TRIGGER issue_deliveries_gone;');
  db.exec(`INSERT INTO destinations (id, name, enabled, settings, created_at, updated_at) VALUES (1, 'hooks', 1, '{}', 0, 0)`);
  return { db, dir };
}

function make(db: DatabaseSync, n: number, now: number): number[] {
  const insert = db.prepare(`INSERT INTO deliveries (destination_id, trigger, status, next_attempt_at, created_at, updated_at) VALUES (1, 'automatic', 'pending', ?, ?, ?)`);
  db.exec('BEGIN');
  const ids = Array.from({ length: n }, () => Number(insert.run(now, now, now).lastInsertRowid));
  db.exec('COMMIT');
  return ids;
}

const attempt = (now: number, status: number) => ({
  url: 'http://127.0.0.1:9/hook', startedAt: now, durationMs: 1, requestHeaders: '{}', responseStatus: status, responseHeaders: null, responseBody: null,
  errorCode: status === 200 ? null : ('http' as const), errorMessage: status === 200 ? null : `the receiver answered ${status}; will retry`,
  outcome: status === 200 ? ('success' as const) : ('retry' as const), retryAt: status === 200 ? null : now + 5000,
});
const result = (id: number, now: number, status: number): DeliveryResult => ({
  deliveryId: id, status: status === 200 ? 'delivered' : 'retrying', attemptCount: 1, firstAttemptAt: now, nextAttemptAt: status === 200 ? null : now + 5000,
  deadlineAt: now + 14_400_000, lastError: status === 200 ? null : 'the receiver answered 503; will retry', body: '{}', signature: 'x', attempts: [attempt(now, status)],
});

/** µs per delivery to record a round's results, in one transaction (the writer records 256 at a time; one here). */
function recordMicros(db: DatabaseSync, results: DeliveryResult[], now: number): number {
  const recorder = deliveryResultRecorder(db);
  const started = performance.now();
  db.exec('BEGIN');
  for (let i = 0; i < results.length; i += 256) recorder.record(results.slice(i, i + 256), now);
  db.exec('COMMIT');
  return ((performance.now() - started) * 1000) / results.length;
}

function round(variant: Variant): { delivered: number; failed: number; recovered: number } {
  const { db, dir } = store(variant);
  try {
    const now = Date.now();
    const ok = make(db, N, now);
    const delivered = recordMicros(db, ok.map((id) => result(id, now, 200)), now);
    const bad = make(db, N / 4, now);
    const failed = recordMicros(db, bad.map((id) => result(id, now, 503)), now);
    const recovered = recordMicros(db, bad.map((id) => ({ ...result(id, now, 200), attemptCount: 2 })), now);
    return { delivered, failed, recovered };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runIssuesCostBench() {
  console.log(`issues-cost: ${N} deliveries recorded as delivered at the first try (and ${N / 4} failing, then recovering) per round and store, ${ROUNDS} rounds`);
  for (const variant of VARIANTS) round(variant); // warm-up
  const rounds: Record<Variant, ReturnType<typeof round>>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [...VARIANTS].reverse() : VARIANTS;
    const got: Partial<Record<Variant, ReturnType<typeof round>>> = {};
    for (const variant of order) got[variant] = round(variant);
    rounds.push(got as Record<Variant, ReturnType<typeof round>>);
    console.log(`  round ${r + 1}  ${VARIANTS.map((v) => `${v}: delivered ${got[v]!.delivered.toFixed(2)} µs, failed ${got[v]!.failed.toFixed(2)} µs, recovered ${got[v]!.recovered.toFixed(2)} µs`).join('   ')}`);
  }
  const keys = ['delivered', 'failed', 'recovered'] as const;
  const of = (v: Variant) => Object.fromEntries(keys.map((k) => [k, Math.round(median(rounds.map((r) => r[v][k])) * 100) / 100]));
  const ratios = Object.fromEntries(keys.map((k) => [k, Math.round(median(rounds.map((r) => r.with[k] / r.without[k])) * 1000) / 1000]));
  console.log(`with / without Issues' triggers (median of per-round ratios): ${JSON.stringify(ratios)}`);
  return { deliveries: N, rounds: ROUNDS, microsPerDelivery: { with: of('with'), without: of('without') }, ratios, perRound: rounds };
}
