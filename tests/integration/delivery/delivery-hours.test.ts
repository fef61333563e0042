// The delivery overview's counts per hour (delivery_hours) against a recount of the deliveries they count,
// after every kind of move, in a real core: the store's writer counts the automatic deliveries it makes, once
// per group (store/delivery-hours.ts, migration 26), triggers the moves (a round's result, a reopen, a cancel)
// and removals. Real receivers on loopback answer 200, 500 and 410; a filter drops a message; messages arrive
// in two hours (an injected clock). A delivery made but not counted, counted twice, or counted after its
// unit's savepoint rolled back, or a move lost because it came before the count it moves from was written,
// leaves the counts unlike the recount.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createHandlers, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import { DATABASE_FILE, openDatabase } from '../../../electron/core/store/database.ts';
import { deliveryHours } from '../../../electron/core/store/delivery-hours.ts';
import type { DestinationConfig } from '../../../shared/settings.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { okDownGoneReceivers, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const HOUR = 3_600_000;
let now = Date.now() - 2 * HOUR;
const clock = { now: () => now };
const dataDir = tempDir();
let core: TestCore;
let handlers: Handlers;
const receivers: Receiver[] = [];

function webhooks(name: string, r: Receiver, change: Partial<DestinationConfig> = {}): DestinationConfig {
  return { name, enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: `${r.url}/${name}`, headers: {} }], options: { bodyShape: 'full', concurrency: 4 }, ...change };
}
const track = (messageId: string, event = 'Order Completed') => ({ type: 'track', userId: 'u', messageId, event });

/** delivery_hours as the overview sums it, and the same counted from the deliveries: equal, or the counts drifted. */
function counts(): { kept: unknown[]; recount: unknown[] } {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    const kept = db.prepare(`SELECT destination_id AS destination, hour, status, skip_reason AS reason, sum(n) AS n FROM delivery_hours
      GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4`).all();
    const recount = db.prepare(`SELECT destination_id AS destination, created_at / 3600000 AS hour, status, coalesce(skip_reason, '') AS reason, count(*) AS n
      FROM deliveries WHERE trigger = 'automatic' GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`).all();
    return { kept, recount };
  } finally {
    db.close();
  }
}
function expectCountsTrue(): void {
  const { kept, recount } = counts();
  expect(recount.length).toBeGreaterThan(0);
  expect(kept).toEqual(recount);
}
const statusesOf = (name: string) => {
  const id = core.destinations.byName(name)!.id;
  return core.messages.list({ limit: 1000 }).flatMap((m) => core.deliveries.forMessage(m.id).filter((d) => d.destinationId === id && d.trigger === 'automatic'));
};

beforeAll(async () => {
  const { ok, down, gone } = await okDownGoneReceivers();
  receivers.push(ok, down, gone);
  core = await startCore({
    dataDir,
    clock,
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [webhooks('shop', ok, { filters: [{ if: 'event:Debug*', drop: true }] }), webhooks('crm', down), webhooks('legacy', gone)],
    },
  });
  core.writeKey = 'wk_web';
  handlers = createHandlers(core);
}, 30_000);

afterAll(async () => {
  await core?.dispose();
  await Promise.all(receivers.map((r) => r.close()));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("the delivery overview's counts per hour", () => {
  it('equal a recount after deliveries are made, skipped, delivered, retried, failed, reopened, cancelled and removed', async () => {
    // Two hours ago, then now: made pending, made skipped (the filter), delivered, retrying (500), failed (410).
    await post(core, '/v1/batch', { batch: [track('old-1'), track('old-2')] });
    await until(() => statusesOf('crm').length === 2 && statusesOf('crm').every((d) => d.status === 'retrying'), 20_000);
    now += 2 * HOUR;
    await post(core, '/v1/batch', { batch: [track('new-1'), track('new-2'), track('debug-1', 'Debug Ping'), track('new-3')] });
    await until(() => statusesOf('shop').filter((d) => d.status === 'delivered').length === 5 && statusesOf('crm').filter((d) => d.status === 'retrying').length === 6
      && statusesOf('legacy').some((d) => d.status === 'failed'), 20_000);
    await core.delivery.idle();
    expectCountsTrue();
    const before = counts().kept;

    // A cancel: retrying → cancelled.
    const crm = statusesOf('crm');
    await callOk(handlers, 'deliveries.cancel', { ids: [crm[0]!.id, crm[1]!.id] });
    expectCountsTrue();
    expect(counts().kept).not.toEqual(before);

    // Retried now, the receiver back: retrying → delivered.
    receivers[1]!.fallback = { status: 200, body: 'ok' };
    await callOk(handlers, 'deliveries.retryNow', { ids: crm.slice(2).map((d) => d.id) });
    await until(() => statusesOf('crm').filter((d) => d.status === 'delivered').length === 4, 20_000);
    await core.delivery.idle();
    expectCountsTrue();

    // A bulk retry of legacy's Issues group reopens its failed deliveries (failed → retrying).
    const legacyFailed = statusesOf('legacy').filter((d) => d.status === 'failed').length;
    expect(legacyFailed).toBeGreaterThan(0);
    const { issues } = await callOk(handlers, 'issues.list', {});
    const legacyIssue = issues.find((i) => i.destinationId === core.destinations.byName('legacy')!.id)!;
    const job = await callOk(handlers, 'issues.retry', { issueId: legacyIssue.id });
    for (let state = job.state; state === 'counting' || state === 'running'; ) {
      await new Promise((r) => setTimeout(r, 20));
      state = (await callOk(handlers, 'issues.retries', {})).jobs.find((j) => j.jobId === job.jobId)!.state;
    }
    await until(() => statusesOf('legacy').filter((d) => d.status === 'failed').length < legacyFailed, 20_000);
    await core.delivery.idle();
    expectCountsTrue();

    // Removed: a clear of the messages the stream's filter picks, with their deliveries.
    const cleared = await callOk(handlers, 'storage.clear', { scope: { filter: { search: 'messageId:old-*' } }, dryRun: false });
    expect(cleared.deliveries).toBe(6);
    expectCountsTrue();
  }, 60_000);
});

describe('the writer’s counts (store/delivery-hours.ts) on a real store', () => {
  it('keeps a unit released, drops one rolled back, and commutes with a move’s count in the same transaction', () => {
    const dir = tempDir();
    const db = openDatabase(dir);
    try {
      db.exec(`INSERT INTO destinations (id, name, enabled, settings, created_at, updated_at) VALUES (1, 'd', 1, '{}', 0, 0)`);
      const insert = db.prepare(`INSERT INTO deliveries (destination_id, trigger, status, created_at, updated_at) VALUES (1, 'automatic', ?, ?, ?)`);
      const hours = deliveryHours(db);
      const at = 5 * HOUR + 10;
      db.exec('BEGIN');
      // A unit kept: two made. A unit rolled back: its delivery gone with its savepoint, its count dropped.
      db.exec('SAVEPOINT u');
      const kept = Number(insert.run('pending', at, at).lastInsertRowid);
      insert.run('pending', at, at);
      hours.made(1, at, 'pending', null);
      hours.made(1, at, 'pending', null);
      db.exec('RELEASE u');
      hours.endUnit(true);
      db.exec('SAVEPOINT u');
      insert.run('pending', at, at);
      hours.made(1, at, 'pending', null);
      db.exec('ROLLBACK TO u');
      db.exec('RELEASE u');
      hours.endUnit(false);
      // Cancelled before the counts are written: the trigger's -1 lands on a row the writer writes after.
      db.prepare(`UPDATE deliveries SET status = 'cancelled' WHERE id = ?`).run(kept);
      hours.write();
      db.exec('COMMIT');
      const rows = db.prepare('SELECT status, n FROM delivery_hours WHERE n <> 0 ORDER BY status').all();
      expect(rows).toEqual([{ status: 'cancelled', n: 1 }, { status: 'pending', n: 1 }]);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
