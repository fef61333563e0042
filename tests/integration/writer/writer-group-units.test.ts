// The store's single writer group-commits ingestion requests, delivery results and write ops in one
// transaction; each is its own unit (a savepoint). A unit that fails is undone and rejected alone,
// with its own error; the others in the group are stored. Real writer thread, real SQLite file.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreWriter } from '../../../electron/core/writer/store-writer.ts';
import type { CommittedRequest } from '../../../electron/core/store/stored-request.ts';
import type { DeliveryResult } from '../../../electron/core/store/delivery-types.ts';
import { DATABASE_FILE, openDatabase } from '../../../electron/core/store/database.ts';
import { DeliveriesRepo } from '../../../electron/core/store/deliveries-repo.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const newReceiver = receiversClosedAfterEach();
const NOW = Date.parse('2026-11-22T10:00:00.000Z');

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A migrated store with two sources and one destination, and a writer on it (no delivery engine). */
async function writerOnStore() {
  const dir = tempDir();
  const db = openDatabase(dir);
  db.exec(`INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'web', 'wk_web', 'web', 0), (2, 'ios', 'wk_ios', 'mobile', 0);
    INSERT INTO destinations (id, name, enabled, settings, created_at, updated_at) VALUES (1, 'hooks', 1, '{}', 0, 0);`);
  const pipeline = new StoreWriter(path.join(dir, DATABASE_FILE), () => {});
  pipeline.setRoutes([{ sourceId: 1, destinationIds: [1] }]);
  cleanup.push(async () => {
    await pipeline.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const submit = (sourceId: number, message: Record<string, unknown>): Promise<CommittedRequest> =>
    pipeline.submit({ body: Buffer.from(JSON.stringify(message)), sourceId, endpoint: 'track', singleType: 'track', receivedAt: NOW, ip: null });
  const rows = (sql: string, ...params: (number | string)[]) => db.prepare(sql).all(...params) as Record<string, unknown>[];
  /** Alice's track on source 1, stored, and the delivery it got: the message the purge tests purge. */
  const aliceStored = async () => {
    const alice = (await submit(1, { type: 'track', userId: 'alice', event: 'A' })).ids[0]!;
    const aliceDelivery = (rows('SELECT id FROM deliveries WHERE message_id = ?', alice) as { id: number }[])[0]!.id;
    return { alice, aliceDelivery };
  };
  return { db, pipeline, submit, rows, aliceStored };
}

function delivered(deliveryId: number): DeliveryResult {
  return {
    deliveryId,
    status: 'delivered',
    attemptCount: 1,
    firstAttemptAt: NOW,
    nextAttemptAt: null,
    deadlineAt: NOW + 4 * 3_600_000,
    lastError: null,
    body: '{}',
    signature: null,
    attempts: [
      {
        url: 'http://127.0.0.1:9/hook', startedAt: NOW, durationMs: 3, requestHeaders: '{}', headerSet: null, responseStatus: 200,
        responseHeaders: '{}', responseBody: 'ok', errorCode: null, errorMessage: null, outcome: 'success', retryAt: null,
      },
    ],
  };
}

/** A writer over a store with three deliveries (a, b, c), results with a header set, and two sets. */
async function threeDeliveries() {
  const { db, pipeline, submit, rows } = await writerOnStore();
  const ids = [];
  for (const user of ['a', 'b', 'c']) ids.push((await submit(1, { type: 'track', userId: user, event: 'E' })).ids[0]!);
  const [a, b, c] = ids.map((id) => (rows('SELECT id FROM deliveries WHERE message_id = ?', id) as { id: number }[])[0]!.id);
  const withSet = (deliveryId: number, set: Record<string, string | null>) => {
    const result = delivered(deliveryId);
    result.attempts[0]!.headerSet = JSON.stringify(set);
    return result;
  };
  return { db, pipeline, a: a!, b: b!, c: c!, withSet, first: { 'User-Agent': 'Sluice/1.0', 'X-Team': 'first' }, second: { 'User-Agent': 'Sluice/1.0', 'X-Team': 'second' } };
}

describe('group commit units', () => {
  it('a unit that fails is rejected alone, with its own error, and undone entirely; the rest of the group is stored', async () => {
    const { pipeline, submit, rows } = await writerOnStore();
    const first = await submit(1, { type: 'track', userId: 'alice', event: 'A' });
    const messageId = first.ids[0]!;
    const deliveryId = (rows('SELECT id FROM deliveries WHERE message_id = ?', messageId) as { id: number }[])[0]!.id;
    // Source 2's messages route to a destination that does not exist: its request fails at insert.
    pipeline.setRoutes([{ sourceId: 1, destinationIds: [1] }, { sourceId: 2, destinationIds: [99] }]);

    // All posted in one tick: the worker takes them into one transaction.
    const settled = await Promise.allSettled([
      pipeline.commitResults([delivered(deliveryId)]),
      // A valid delivery, then one to a missing destination: neither may be stored.
      pipeline.write({
        op: 'createDeliveries',
        now: NOW,
        deliveries: [
          { messageId, destinationId: 1, trigger: 'replay', replayOf: null, targetUrl: null, bodyOverride: null, due: NOW },
          { messageId, destinationId: 99, trigger: 'replay', replayOf: null, targetUrl: null, bodyOverride: null, due: NOW },
        ],
      }),
      submit(1, { type: 'track', userId: 'bob', event: 'B' }),
      submit(2, { type: 'track', userId: 'carol', event: 'C' }),
      pipeline.commitResults([delivered(424242)]), // a delivery that does not exist: its attempt cannot be stored
      pipeline.write({ op: 'retryNow', deliveryIds: [deliveryId], now: NOW }),
    ]);
    const [results, badWrite, bob, carol, badResults, retry] = settled;

    expect(results.status).toBe('fulfilled');
    expect(badWrite).toMatchObject({ status: 'rejected', reason: { message: 'could not store the new deliveries: FOREIGN KEY constraint failed' } });
    expect(bob.status).toBe('fulfilled');
    expect(carol).toMatchObject({ status: 'rejected', reason: { message: 'FOREIGN KEY constraint failed' } });
    expect(badResults).toMatchObject({ status: 'rejected', reason: { message: 'could not store delivery results: FOREIGN KEY constraint failed' } });
    expect(retry).toMatchObject({ status: 'fulfilled', value: { changed: 0 } }); // already delivered by the results before it

    // What was stored: the results and bob's message with its delivery; nothing of the failed units.
    expect(rows('SELECT status, attempt_count FROM deliveries WHERE id = ?', deliveryId)).toEqual([{ status: 'delivered', attempt_count: 1 }]);
    expect(rows('SELECT delivery_id, response_status FROM attempts')).toEqual([{ delivery_id: deliveryId, response_status: 200 }]);
    expect(rows('SELECT user_id FROM messages ORDER BY id').map((r) => r.user_id)).toEqual(['alice', 'bob']);
    expect(rows('SELECT count(*) AS n FROM requests')).toEqual([{ n: 2 }]);
    const bobId = (bob as PromiseFulfilledResult<CommittedRequest>).value.ids[0]!;
    expect(rows('SELECT trigger FROM deliveries WHERE message_id = ?', bobId)).toEqual([{ trigger: 'automatic' }]);
    expect(rows('SELECT count(*) AS n FROM deliveries WHERE message_id = ?', messageId)).toEqual([{ n: 1 }]);
  });

  it('purge, a replay of the purged message and another request in one group: each gets its own result', async () => {
    const { pipeline, submit, rows, aliceStored } = await writerOnStore();
    const { alice, aliceDelivery } = await aliceStored();

    const [purge, replay, bob, results] = await Promise.all([
      pipeline.write({ op: 'deletionRequest', userId: 'alice', purge: true, sourceIds: [1], deliveries: [], now: NOW }),
      pipeline.write({
        op: 'createDeliveries',
        now: NOW,
        deliveries: [
          { messageId: alice, destinationId: 1, trigger: 'replay', replayOf: aliceDelivery, targetUrl: null, bodyOverride: null, due: NOW },
          { messageId: null, destinationId: 1, trigger: 'test', replayOf: null, targetUrl: null, bodyOverride: '{"type":"track"}', due: NOW },
        ],
      }),
      submit(1, { type: 'track', userId: 'bob', event: 'B' }),
      pipeline.commitResults([delivered(aliceDelivery)]), // the round that was under way when she was purged
    ]);

    expect(purge).toMatchObject({ changed: 1 });
    // The replay's delivery of the purged message is left out and reported; the rest is created.
    expect(replay.ids).toHaveLength(1);
    expect(replay.goneMessageIds).toEqual([alice]);
    expect(rows('SELECT trigger, message_id FROM deliveries WHERE id = ?', replay.ids[0]!)).toEqual([{ trigger: 'test', message_id: null }]);
    expect(rows("SELECT count(*) AS n FROM deliveries WHERE trigger = 'replay'")).toEqual([{ n: 0 }]);
    expect(rows('SELECT user_id FROM messages').map((r) => r.user_id)).toEqual(['bob']);
    expect(bob.statuses[0]).toBe(0);
    expect(results).toBeUndefined();
    expect(rows('SELECT status, message_id FROM deliveries WHERE id = ?', aliceDelivery)).toEqual([{ status: 'delivered', message_id: null }]);
    expect(rows('SELECT count(*) AS n FROM attempts WHERE delivery_id = ?', aliceDelivery)).toEqual([{ n: 1 }]);
  });
});

describe('a round under way when its message was purged', () => {
  it('is recorded (it happened) but does not store the purged body again', async () => {
    const { pipeline, rows, aliceStored } = await writerOnStore();
    const { aliceDelivery } = await aliceStored();
    await pipeline.write({ op: 'deletionRequest', userId: 'alice', purge: true, sourceIds: [1], deliveries: [], now: NOW });
    await pipeline.commitResults([delivered(aliceDelivery)]); // its answer came after the purge
    expect(rows('SELECT status, message_id, body FROM deliveries WHERE id = ?', aliceDelivery)).toEqual([{ status: 'delivered', message_id: null, body: null }]);
    // The attempt is recorded, without the receiver's answer (it may echo the purged message).
    expect(rows('SELECT response_status, response_body FROM attempts WHERE delivery_id = ?', aliceDelivery)).toEqual([{ response_status: 200, response_body: null }]);
  });

  it('keeps the body and answer of deliveries that never had a message (a test event, a replayed delete notification)', async () => {
    const { pipeline, rows } = await writerOnStore();
    const body = '{"type":"delete","userId":"alice","timestamp":"2026-11-21T10:00:00.000Z"}';
    const created = await pipeline.write({
      op: 'createDeliveries',
      now: NOW,
      deliveries: [{ messageId: null, destinationId: 1, trigger: 'replay', replayOf: null, targetUrl: null, bodyOverride: body, due: NOW }],
    });
    const id = created.ids[0]!;
    await pipeline.commitResults([{ ...delivered(id), body }]);
    expect(rows('SELECT body FROM deliveries WHERE id = ?', id)).toEqual([{ body }]);
    expect(rows('SELECT response_body FROM attempts WHERE delivery_id = ?', id)).toEqual([{ response_body: 'ok' }]);
  });
});

describe('message ids reused after a purge', () => {
  it('a replay planned before a purge is not sent as the new message that took the purged one’s id', async () => {
    const { pipeline, submit, rows, aliceStored } = await writerOnStore();
    const { alice, aliceDelivery } = await aliceStored();
    // The replay is planned now (alice's delivery, alice's message id), the purge lands first...
    await pipeline.write({ op: 'deletionRequest', userId: 'alice', purge: true, sourceIds: [1], deliveries: [], now: NOW });
    // ...then bob's message, which takes the newest id again (no AUTOINCREMENT): alice's old id.
    const bob = (await submit(1, { type: 'track', userId: 'bob', event: 'B' })).ids[0]!;
    expect(bob).toBe(alice);
    const replay = await pipeline.write({
      op: 'createDeliveries',
      now: NOW,
      deliveries: [{ messageId: alice, destinationId: 1, trigger: 'replay', replayOf: aliceDelivery, targetUrl: null, bodyOverride: null, due: NOW }],
    });
    expect(replay.ids).toEqual([]);
    expect(replay.goneMessageIds).toEqual([alice]);
    expect(rows("SELECT count(*) AS n FROM deliveries WHERE trigger = 'replay'")).toEqual([{ n: 0 }]);
  });
});

describe('message ids reused after a purge, for a replay that repeats no delivery', () => {
  it('is not made for the new message that took the id: the message must still carry the messageId it was planned with', async () => {
    const { pipeline, submit, rows } = await writerOnStore();
    // Source 2 has no destination: the replay (to destination 1, chosen) repeats no earlier delivery.
    const alice = (await submit(2, { type: 'track', userId: 'alice', event: 'A', messageId: 'alice-1' })).ids[0]!;
    const planned = { messageId: alice, messageKey: 'alice-1', destinationId: 1, trigger: 'replay' as const, replayOf: null, targetUrl: null, bodyOverride: null, due: NOW };
    await pipeline.write({ op: 'deletionRequest', userId: 'alice', purge: true, sourceIds: [2], deliveries: [], now: NOW });
    const bob = (await submit(2, { type: 'track', userId: 'bob', event: 'B', messageId: 'bob-1' })).ids[0]!;
    expect(bob).toBe(alice);
    const replay = await pipeline.write({ op: 'createDeliveries', now: NOW, deliveries: [planned] });
    expect(replay.ids).toEqual([]);
    expect(replay.goneMessageIds).toEqual([alice]);
    // Planned for bob's message as it is now, the same replay is made.
    const again = await pipeline.write({ op: 'createDeliveries', now: NOW, deliveries: [{ ...planned, messageKey: 'bob-1' }] });
    expect(again.ids).toHaveLength(1);
    expect(rows("SELECT message_id FROM deliveries WHERE trigger = 'replay'")).toEqual([{ message_id: bob }]);
  });

  it('a header set stored by a unit that failed is not taken for stored: the next attempt with it stores it again', async () => {
    const { db, pipeline, a, b, c, withSet, first, second } = await threeDeliveries();
    // One unit: the first set is stored, then a result for a delivery that does not exist fails the unit.
    await expect(pipeline.commitResults([withSet(a!, first), withSet(424242, first)])).rejects.toThrow(/FOREIGN KEY/);
    // Another set now takes the id the undone one had…
    await pipeline.commitResults([withSet(b!, second)]);
    // …and the first set, used again, must be stored again, not read as the id the writer saw before.
    await pipeline.commitResults([withSet(c!, first)]);
    const repo = new DeliveriesRepo(db);
    expect(repo.attempts(b!)[0]!.requestHeaders).toEqual(second);
    expect(repo.attempts(c!)[0]!.requestHeaders).toEqual(first);
    expect(repo.attempts(a!)).toEqual([]);
  });

  it('…and so in the same group: the units after the failed one store the set again', async () => {
    const { db, pipeline, a, b, c, withSet, first, second } = await threeDeliveries();
    // Three units handed over in one turn: one group. The first fails after storing its set.
    const settled = await Promise.allSettled([
      pipeline.commitResults([withSet(a!, first), withSet(424242, first)]),
      pipeline.commitResults([withSet(b!, second)]),
      pipeline.commitResults([withSet(c!, first)]),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    const repo = new DeliveriesRepo(db);
    expect(repo.attempts(b!)[0]!.requestHeaders).toEqual(second);
    expect(repo.attempts(c!)[0]!.requestHeaders).toEqual(first);
  });
});

describe("the reviewer's scenario over a real core", () => {
  it('a purge, a replay of the purged message and another client under load: nothing fails but the replayed delivery', async () => {
    const receiver = await newReceiver();
    const core: TestCore = await startCore({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [
          { name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: `${receiver.url}/hook`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } },
        ],
      },
    } as never);
    cleanup.push(() => core.dispose());
    core.writeKey = 'wk_web';
    const errors = vi.spyOn(console, 'error');
    cleanup.push(async () => errors.mockRestore());

    expect((await post(core, '/v1/track', { userId: 'alice', event: 'A' })).status).toBe(200);
    await until(() => (core.deliveries.countByStatus().delivered === 1 ? true : undefined));
    const alice = core.messages.list()[0]!.id;

    // Busy batches keep the writer busy (and deliveries' results flowing) so the rest queue up together.
    const big = { batch: Array.from({ length: 2000 }, (_, i) => ({ type: 'track', userId: 'carol', event: 'C', properties: { i, pad: 'x'.repeat(100) } })) };
    const busy = [post(core, '/v1/batch', big), post(core, '/v1/batch', big)];
    await new Promise((resolve) => setTimeout(resolve, 15));
    const [[b1, b2], deletion, replay, bob] = await Promise.all([
      Promise.all(busy),
      core.operations['deletions.create']({ userId: 'alice', purge: true }),
      // Planned on the request thread: before the purge commits (then written after it) or, on a
      // loaded machine, after (then refused: the message is gone). Either is right; nothing is sent.
      Promise.resolve(core.operations['deliveries.replay']({ messageIds: [alice] })).catch((error: { code?: string }) => {
        expect(error.code).toBe('unknown_message');
        return { deliveryIds: [] as number[] };
      }),
      post(core, '/v1/track', { userId: 'bob', event: 'B' }),
    ]);

    expect([b1!.status, b2!.status, bob.status]).toEqual([200, 200, 200]);
    expect(core.messages.list({ limit: 10_000 } as never).filter((m) => m.userId === 'bob')).toHaveLength(1);
    expect(deletion.purgedMessages).toBe(1);
    // Gone. (Its id may be a new message's by now: a purge that commits before the busy batches frees the
    // newest id, which SQLite gives out again — seen under load.)
    expect(core.messages.get(alice)?.userId).not.toBe('alice');
    expect(core.messages.list({ limit: 10_000 } as never).filter((m) => m.userId === 'alice')).toEqual([]);
    // Planned before the purge and written after it, its delivery is left out, not an error.
    expect(replay.deliveryIds).toEqual([]);

    // Every delivery gets its results recorded (alice's first, carol's 4,000, bob's, the delete
    // notification), none fails to store.
    await until(() => (core.deliveries.countByStatus().delivered === 4003 ? true : undefined), 30_000, '4003 delivered');
    expect(core.deliveries.countByStatus()).toEqual({ delivered: 4003 });
    expect(errors.mock.calls.filter((args) => String(args[0]).includes('could not store'))).toEqual([]);
  }, 60_000);
});
