// The store's reads behind per-destination delivery and "replay all failed", in a real SQLite file
// migrated like the app's: what they return (a destination filter and deleted destinations applied
// before the limit; the limit reported), and that they seek their indexes instead of scanning.
import { describe, expect, it } from 'vitest';
import { replay } from '../../../electron/core/delivery/replay.ts';
import { transaction } from '../../../electron/core/store/connection.ts';
import { DeliveriesRepo, DUE_AFTER_SQL, DUE_FOR_SQL, failedNowSql, NEXT_DUE_AFTER_SQL } from '../../../electron/core/store/deliveries-repo.ts';
import { DestinationsRepo } from '../../../electron/core/store/destinations-repo.ts';
import { MessagesRepo } from '../../../electron/core/store/messages-repo.ts';
import { SourcesRepo } from '../../../electron/core/store/sources-repo.ts';
import { scratchStores } from '../../helpers/scratch-store.ts';

const scratchStore = scratchStores();

/** A store with destinations 1 (A), 2 (B) and 3 (C, deleted); `add` stores a message with one delivery. */
function open() {
  const db = scratchStore('sluice-store-queries-');
  for (const [id, name] of [[1, 'A'], [2, 'B'], [3, 'C']] as const) {
    db.exec(`INSERT INTO destinations (id, name, enabled, settings, created_at, updated_at) VALUES (${id}, '${name}', 1, '{"webhooks":[],"options":{"bodyShape":"seed","concurrency":4}}', 0, 0)`);
    db.exec(`INSERT INTO destination_sources (destination_id, source_id) VALUES (${id}, 1)`);
  }
  db.exec(`UPDATE destinations SET deleted_at = 1, enabled = 0 WHERE id = 3`);
  const insertMessage = db.prepare(`INSERT INTO messages (source_id, message_id, type, status, received_at, raw) VALUES (1, ?, 'track', 'accepted', 0, '{}')`);
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (message_id, destination_id, trigger, status, next_attempt_at, created_at, updated_at) VALUES (?, ?, 'automatic', ?, ?, 0, 0)`,
  );
  let n = 0;
  const store = {
    db,
    /** Stores `count` messages, each with one delivery to `destinationId`; returns the delivery ids. */
    add(count: number, destinationId: number, status: string, nextAttemptAt: number | null = null): number[] {
      return transaction(db!, () =>
        Array.from({ length: count }, () => {
          const messageId = Number(insertMessage.run(`m-${n++}`).lastInsertRowid);
          return Number(insertDelivery.run(messageId, destinationId, status, nextAttemptAt).lastInsertRowid);
        }),
      );
    },
    plan: (sql: string) => (db!.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail),
  };
  return store;
}

describe('failed now (replay all failed)', () => {
  it("filters by destination before the limit: B's failures are found behind 10,000 older ones of A", () => {
    const store = open();
    const deliveries = new DeliveriesRepo(store.db);
    const deleted = store.add(5, 3, 'failed'); // oldest of all, to a deleted destination
    const ofA = store.add(10_001, 1, 'failed');
    const ofB = store.add(3, 2, 'failed');
    store.add(2, 2, 'delivered');

    expect(deliveries.failedNow({ destinationId: 2 })).toEqual({ deliveries: expect.any(Array), truncated: false });
    expect(deliveries.failedNow({ destinationId: 2 }).deliveries.map((d) => d.id)).toEqual(ofB);
    // A deleted destination's failures are left out before the limit too: the oldest 10,000 are A's.
    const all = deliveries.failedNow();
    expect(all.truncated).toBe(true);
    expect(all.deliveries.map((d) => d.id)).toEqual(ofA.slice(0, 10_000));
    expect(all.deliveries.some((d) => deleted.includes(d.id))).toBe(false);
    expect(deliveries.failedNow({ destinationId: 3 })).toEqual({ deliveries: [], truncated: false });
    // Exactly at the limit is not cut short.
    expect(deliveries.failedNow({ destinationId: 2, limit: 3 }).truncated).toBe(false);
    expect(deliveries.failedNow({ destinationId: 2, limit: 2 })).toMatchObject({ truncated: true });
    expect(deliveries.failedNow({ destinationId: 2, limit: 2 }).deliveries.map((d) => d.id)).toEqual(ofB.slice(0, 2));
  });

  it('replay reports when "all failed" was cut short, and replays the chosen destination\'s failures', async () => {
    const store = open();
    const sources = new SourcesRepo(store.db);
    const deps = {
      messages: new MessagesRepo(store.db),
      deliveries: new DeliveriesRepo(store.db),
      destinations: new DestinationsRepo(store.db, sources),
      writer: undefined as never, // dry runs write nothing
      clock: { now: () => 1_000 },
    };
    store.add(10_000, 1, 'failed');
    store.add(3, 2, 'failed');
    const forB = await replay(deps, { allFailed: true, destinationId: 2, dryRun: true });
    expect(forB).toEqual({ deliveryIds: [], messages: 3, deliveries: 3, leftOut: { rejected: 0, noDestination: 0 } });
    const everything = await replay(deps, { allFailed: true, dryRun: true });
    expect(everything).toEqual({ deliveryIds: [], messages: 10_000, deliveries: 10_000, leftOut: { rejected: 0, noDestination: 0 }, truncated: true });
  });

  it('reads the failed deliveries from deliveries_failed in id order (no sort, no table scan)', () => {
    const store = open();
    for (const forDestination of [false, true]) {
      const plan = store.plan(failedNowSql(forDestination));
      expect(plan).toContain('SCAN d USING INDEX deliveries_failed');
      expect(plan).toContain('SEARCH later USING INDEX deliveries_message (message_id=? AND rowid>?)');
      expect(plan.some((step) => step.includes('TEMP B-TREE'))).toBe(false);
    }
  });
});

describe("a destination's due deliveries", () => {
  it("are read per destination, earliest first, and the next one's time is found after now", () => {
    const store = open();
    const deliveries = new DeliveriesRepo(store.db);
    store.add(50, 1, 'pending', 100); // A's backlog, due long ago
    const laterB = store.add(1, 2, 'retrying', 5_000);
    const dueB = store.add(1, 2, 'pending', 900);
    store.add(1, 2, 'delivered', 10);
    expect(deliveries.dueFor(2, 1_000, 10).map((d) => d.id)).toEqual(dueB);
    expect(deliveries.dueFor(1, 1_000, 10)).toHaveLength(10);
    expect(deliveries.nextDueAfter(2, 1_000)).toBe(5_000);
    expect(deliveries.nextDueAfter(1, 1_000)).toBeNull();
    expect(deliveries.dueFor(2, 5_000, 10).map((d) => d.id)).toEqual([...dueB, ...laterB]);
  });

  it('after a cursor, are the ones a previous read did not reach: later due times, and later ids at the same time', () => {
    const store = open();
    const deliveries = new DeliveriesRepo(store.db);
    const first = store.add(3, 1, 'pending', 100);
    const second = store.add(2, 1, 'retrying', 200);
    const firstRead = deliveries.dueFor(1, 1_000, 2);
    expect(firstRead.map((d) => d.id)).toEqual(first.slice(0, 2));
    const last = firstRead.at(-1)!;
    // The same due time as the cursor, a later id; then a later time.
    expect(deliveries.dueFor(1, 1_000, 10, { at: last.nextAttemptAt, id: last.id }).map((d) => d.id)).toEqual([first[2], ...second]);
    expect(deliveries.dueFor(1, 1_000, 1, { at: 100, id: first[2]! }).map((d) => d.id)).toEqual([second[0]]);
    expect(deliveries.dueFor(1, 150, 10, { at: 100, id: first[2]! })).toEqual([]);
  });

  it('seek the partial index deliveries_destination_due', () => {
    const store = open();
    expect(store.plan(DUE_FOR_SQL)).toEqual(['SEARCH deliveries USING INDEX deliveries_destination_due (destination_id=? AND next_attempt_at<?)']);
    // After a cursor: a seek to it, not a walk over the rows before it.
    expect(store.plan(DUE_AFTER_SQL)).toEqual([
      'SEARCH deliveries USING INDEX deliveries_destination_due (destination_id=? AND next_attempt_at>? AND next_attempt_at<?)',
    ]);
    expect(store.plan(NEXT_DUE_AFTER_SQL)).toEqual(['SEARCH deliveries USING INDEX deliveries_destination_due (destination_id=? AND next_attempt_at>?)']);
  });
});
