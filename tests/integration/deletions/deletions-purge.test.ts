// A purge's preview and the purge itself, through the contract over a real core and a real SQLite file
// (read through a second connection): the counts deletions.preview gives before a purge are what the
// purge then removes, row for row; the built-in receiver's inbox loses the purged user's requests
// (a batch holding one of theirs too) and keeps everyone else's and the delete notifications; a
// userId no stored message has is told apart (0 messages), not refused.
import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { deletionWrites } from '../../../electron/core/store/deletion-writes.ts';
import type { CoreEvent } from '../../../shared/contract.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { streamEvents } from '../../../electron/core/api/event-stream.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { scratchStores } from '../../helpers/scratch-store.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
let db: DatabaseSync | undefined;
afterEach(async () => {
  db?.close();
  db = undefined;
  await core?.dispose();
  core = undefined;
});

async function setup() {
  core = await startCore({
    config: {
      sources: [
        { name: 'web', writeKey: 'wk_web', kind: 'web' },
        { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
      ],
      destinations: [],
    },
  });
  core.writeKey = 'wk_web';
  // Web messages go to two hooks in one delivery (two attempts each); iOS messages to one.
  core.saveDestination({ name: 'both', sources: ['web'], sharedSecret: 'sB', webhooks: [{ url: core.receiver.hookUrl('a') }, { url: core.receiver.hookUrl('b') }] });
  core.saveDestination({ name: 'app', sources: ['ios'], webhooks: [{ url: core.receiver.hookUrl('app') }] });
  db = new DatabaseSync(path.join(core.dataDir, DATABASE_FILE), { readOnly: true });
  return { core, db, handlers: createHandlers(core) };
}

/** Every delivery has ended (none pending or retrying) and no round is in flight. */
async function settled(c: TestCore) {
  await until(() => {
    const counts = c.deliveries.countByStatus();
    return (counts.pending ?? 0) + (counts.retrying ?? 0) === 0;
  });
  await c.delivery.idle();
}

/** What the store keeps of a user, counted independently of the core's own query. */
function kept(d: DatabaseSync, userId: string) {
  const ids = (d.prepare('SELECT id FROM messages WHERE user_id = ?').all(userId) as { id: number }[]).map((r) => r.id);
  const list = JSON.stringify(ids);
  const deliveries = (d.prepare('SELECT id FROM deliveries WHERE message_id IN (SELECT value FROM json_each(?))').all(list) as { id: number }[]).map((r) => r.id);
  const attempts = (
    d.prepare('SELECT id FROM attempts WHERE delivery_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(deliveries)) as { id: number }[]
  ).map((r) => r.id);
  const members = (d.prepare('SELECT count(*) AS n FROM audience_members WHERE user_id = ?').get(userId) as { n: number }).n;
  return { ids, deliveries, attempts, members };
}

function carries(body: string, userId: string): boolean {
  try {
    const value = JSON.parse(body) as { userId?: unknown; type?: unknown; batch?: { userId?: unknown }[] };
    if (value.type === 'delete') return false;
    return value.userId === userId || (value.batch ?? []).some((m) => m.userId === userId);
  } catch {
    return false;
  }
}

async function postToHook(c: TestCore, hook: string, body: unknown) {
  const res = await request(c.receiver.hookUrl(hook), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.body.dump();
}

describe('purging a user', () => {
  const scratch = scratchStores();
  it('previews exactly what the purge then removes, and the purge empties the inbox of that user only', async () => {
    const { core, db, handlers } = await setup();
    const events: CoreEvent[] = [];
    const stop = streamEvents(core.bus, (batch) => events.push(...batch), 5);
    try {
      const web = core.sources.byName('web')!.id;
      expect(
        (
          await post(core, '/v1/batch', {
            batch: [
              { type: 'identify', userId: 'alice', traits: { plan: 'pro' } },
              { type: 'track', userId: 'alice', event: 'Order Completed', properties: { sku: 'sku_1' } },
              { type: 'identify', userId: 'bob', traits: { plan: 'pro' } },
              { type: 'track', userId: 'bob', event: 'Order Completed' },
            ],
          })
        ).status,
      ).toBe(200);
      expect((await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_ios' }, '/v1/track', { userId: 'alice', event: 'App Opened' })).status).toBe(200);
      // Rejected (no event name): stored all the same, with the user's data, so purged too.
      expect((await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_ios' }, '/v1/track', { userId: 'alice' })).status).toBe(400);
      const audience = await core.audiences.save({ sourceId: web, name: 'Pro Users', rule: { match: 'all', conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] } });
      expect(await core.audiences.syncNow(audience.id)).toMatchObject({ joined: 2 });
      // An earlier deletion request without purge: its delete notification reaches the inbox and stays.
      await callOk(handlers, 'deletions.create', { userId: 'alice' });
      await settled(core);
      // Posted to the receiver directly: a forwarded batch holding one of alice's messages goes with her, bob's alone stays.
      await postToHook(core, 'direct', { batch: [{ type: 'track', userId: 'bob', event: 'X' }, { type: 'track', userId: 'alice', event: 'Y' }] });
      await postToHook(core, 'direct', { type: 'track', userId: 'bob', event: 'Z' });

      const before = kept(db, 'alice');
      const bobBefore = kept(db, 'bob');
      const inbox = core.receiver.inbox();
      const hers = inbox.filter((e) => carries(e.body, 'alice')).map((e) => e.id);
      const others = inbox.filter((e) => !carries(e.body, 'alice')).map((e) => e.id);
      expect(before.ids.length).toBe(5); // identify, track, App Opened, the rejected one, the audience sync's identify
      expect(before.attempts.length).toBeGreaterThan(before.deliveries.length); // web deliveries post to two hooks
      expect(before.members).toBe(1);
      expect(hers.length).toBeGreaterThanOrEqual(4);
      expect(inbox.some((e) => e.body.includes('"type":"delete"') && e.body.includes('"alice"'))).toBe(true);

      const preview = await callOk(handlers, 'deletions.preview', { userId: 'alice' });
      expect(preview).toEqual({
        userId: 'alice',
        messages: before.ids.length,
        sourceIds: [web, core.sources.byName('ios')!.id].sort((a, b) => a - b),
        notifications: 2,
        deliveries: before.deliveries.length,
        attempts: before.attempts.length,
        audienceMemberships: 1,
        inboxRequests: hers.length,
        profiles: 2, // web's and ios's: each source's messages of hers were folded into a profile
      });
      // Asking changed nothing.
      expect(kept(db, 'alice')).toEqual(before);
      expect(core.receiver.inbox().length).toBe(inbox.length);

      const purged = await callOk(handlers, 'deletions.create', { userId: 'alice', purge: true });
      expect(purged.purgedMessages).toBe(preview.messages);
      expect(purged.inboxRequests).toBe(preview.inboxRequests);
      expect(purged.deliveryIds).toHaveLength(preview.notifications);

      // The store: her messages gone; what each of her deliveries kept of them gone (the rows stay); her membership gone.
      expect(kept(db, 'alice')).toMatchObject({ ids: [], members: 0 });
      const scrubbed = db
        .prepare('SELECT count(*) AS n FROM deliveries WHERE id IN (SELECT value FROM json_each(?)) AND body IS NULL AND body_override IS NULL AND message_id IS NULL')
        .get(JSON.stringify(before.deliveries)) as { n: number };
      expect(scrubbed.n).toBe(preview.deliveries);
      const answered = db
        .prepare('SELECT count(*) AS n FROM attempts WHERE id IN (SELECT value FROM json_each(?)) AND response_body IS NOT NULL')
        .get(JSON.stringify(before.attempts)) as { n: number };
      expect(answered.n).toBe(0);
      expect(kept(db, 'bob')).toEqual(bobBefore);

      // The inbox: hers gone, everyone else's (and the delete notification) kept, in order.
      expect(core.receiver.inbox().map((e) => e.id).filter((id) => id <= Math.max(...inbox.map((e) => e.id)))).toEqual(others);
      expect(core.receiver.inbox().filter((e) => carries(e.body, 'alice'))).toEqual([]);
      expect(core.receiver.usage().entries).toBe(core.receiver.inbox().length);
      await until(() => events.some((e) => e.type === 'receiver.removed'));
      expect(events.filter((e) => e.type === 'receiver.removed').flatMap((e) => (e.type === 'receiver.removed' ? e.ids : [])).sort((a, b) => a - b)).toEqual(hers);

      // Asked again, nothing is left to purge but the new delete notifications' destinations.
      await settled(core);
      expect(await callOk(handlers, 'deletions.preview', { userId: 'alice' })).toMatchObject({ messages: 0, deliveries: 0, attempts: 0, audienceMemberships: 0, inboxRequests: 0 });
      expect(core.receiver.inbox().filter((e) => e.body.includes('"type":"delete"')).length).toBe(6); // each request's two notifications: "both" posts to hooks a and b, "app" to one
    } finally {
      stop();
    }
  });

  it('removes the requests only the user\'s messages used (their batch context and IP), and keeps those another message still uses', async () => {
    const { core, db, handlers } = await setup();
    const context = (build: string) => ({ context: { page: { url: `https://shop.example/${build}` }, app: { build } } });
    const batch = async (build: string, users: string[]) => {
      const res = await post(core, '/v1/batch', { ...context(build), batch: users.map((userId, i) => ({ type: 'track', userId, event: 'Viewed', messageId: `${build}-${i}` })) });
      expect(res.status).toBe(200);
    };
    await batch('only-hers', ['alice', 'alice']);
    await batch('between', ['alice', 'bob', 'alice']); // bob's message between hers
    await batch('before', ['bob', 'alice']); // bob's before hers
    await batch('after', ['alice', 'bob']); // bob's after hers
    await batch('bobs', ['bob']);
    expect((await post(core, '/v1/track', { userId: 'alice', event: 'Single', messageId: 'single' })).status).toBe(200);
    const requestOf = (messageId: string) => (db.prepare('SELECT request_id AS r FROM messages WHERE message_id = ?').get(messageId) as { r: number }).r;
    const requests = Object.fromEntries(['only-hers-0', 'between-0', 'before-0', 'after-0', 'bobs-0', 'single'].map((m) => [m.replace(/-0$/, ''), requestOf(m)]));
    /** Bob's messages as they read, their requests' context merged in. */
    const bobs = () => {
      const stored = core.messages.list({ limit: 100 });
      return ['between-1', 'before-0', 'after-1', 'bobs-0'].map((m) => core.messages.get(stored.find((s) => s.messageId === m)!.id)!.message);
    };
    const bobsBefore = bobs();

    await callOk(handlers, 'deletions.create', { userId: 'alice', purge: true });

    const left = (db.prepare('SELECT id FROM requests ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    expect(left).toEqual([requests.between, requests.before, requests.after, requests.bobs]);
    // Bob's messages read as they did: their requests' context is theirs still.
    const bobsAfter = bobs();
    expect(bobsAfter).toEqual(bobsBefore);
    expect(bobsAfter[0]).toMatchObject({ context: { page: { url: 'https://shop.example/between' } } });
  });

  it('looks past the Violation Generated events between a request\'s messages, keeps a request a refused message still uses, and purges each source\'s', async () => {
    core = await startCore({
      config: configFileSchema.parse({
        sources: [
          { name: 'web', writeKey: 'wk_web', kind: 'web' },
          { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
        ],
        // Violations go to a hook no source sends to: a Violation Generated event (no request of its own:
        // nothing came through another Sluice) is stored right after the message that broke the plan.
        destinations: [{ name: 'violations', sources: [], webhooks: [{ url: 'sluice://receiver/violations' }] }],
        trackingPlans: [{ name: 'shop', sources: ['web'], plan: { events: { Good: {} } }, unplanned: 'flag', forwardViolationsTo: 'violations' }],
      }),
    });
    core.writeKey = 'wk_web';
    db = new DatabaseSync(path.join(core.dataDir, DATABASE_FILE), { readOnly: true });
    const handlers = createHandlers(core);
    const send = async (build: string, events: { userId?: string; event?: string }[], writeKey = 'wk_web') => {
      const res = await post({ ingestUrl: core!.ingestUrl, writeKey }, '/v1/batch', {
        context: { app: { build } },
        batch: events.map((e, i) => ({ type: 'track', messageId: `${build}-${i}`, ...e })),
      });
      expect(res.status).toBe(200);
    };
    await send('violation-between', [{ userId: 'bob', event: 'Unplanned' }, { userId: 'alice', event: 'Good' }]);
    await send('refused-after', [{ userId: 'alice', event: 'Good' }, {}]); // the second is refused (no event, no user), and stored
    await send('ios', [{ userId: 'alice', event: 'Opened' }], 'wk_ios');
    const rows = db.prepare('SELECT message_id AS m, origin, request_id AS r FROM messages ORDER BY id').all() as { m: string; origin: string; r: number | null }[];
    expect(rows.map((row) => row.origin)).toEqual(['ingest', 'plan', 'ingest', 'ingest', 'ingest', 'ingest']);
    expect(rows[1]!.r).toBeNull();
    const request = (m: string) => rows.find((row) => row.m === m)!.r!;

    await callOk(handlers, 'deletions.create', { userId: 'alice', purge: true });

    // Bob's request stays (his message is past his Violation Generated event), so does the one whose refused
    // message stays; alice's request on ios carried only hers and goes.
    const left = (db.prepare('SELECT id FROM requests ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    expect(left).toEqual([request('violation-between-0'), request('refused-after-0')]);
    expect(db.prepare('SELECT count(*) AS n FROM messages WHERE request_id IS NOT NULL AND request_id NOT IN (SELECT id FROM requests)').get()).toEqual({ n: 0 });
  });

  it('leaves the loop-chain request of an audience identify to pruning: another user\'s identify beside it still uses it', () => {
    const store = scratch('purge-chain');
    // As an audience sync stores them (audiences/audience-writer.ts): one request per loop chain, its identifies in a run.
    const chain = Number(store.prepare("INSERT INTO requests (source_id, endpoint, received_at, envelope) VALUES (1, 'audience', 0, '{\"via\":[\"up\"]}')").run().lastInsertRowid);
    const identify = store.prepare("INSERT INTO messages (request_id, source_id, type, status, origin, user_id, received_at, raw) VALUES (?, 1, 'identify', 'accepted', 'audience', ?, 0, '{}')");
    identify.run(chain, 'bob');
    identify.run(chain, 'alice');
    store.exec('BEGIN');
    expect(deletionWrites(store).purgeUser('alice', 1)).toBe(1);
    store.exec('COMMIT');
    expect(store.prepare('SELECT id FROM requests').all()).toEqual([{ id: chain }]);
  });

  it('tells a userId no stored message has apart, without refusing it; an empty one is refused', async () => {
    const { core, handlers } = await setup();
    expect((await post(core, '/v1/track', { userId: 'alice', event: 'A' })).status).toBe(200);
    await settled(core);
    expect(await callOk(handlers, 'deletions.preview', { userId: 'alicee' })).toEqual({
      userId: 'alicee',
      messages: 0,
      sourceIds: [],
      notifications: 0,
      deliveries: 0,
      attempts: 0,
      audienceMemberships: 0,
      inboxRequests: 0,
      profiles: 0,
    });
    // Only the receiver has seen this one (posted to it directly): the preview says so, and a purge removes it.
    await postToHook(core, 'direct', { type: 'track', userId: 'ghost', event: 'Seen' });
    expect(await callOk(handlers, 'deletions.preview', { userId: 'ghost' })).toMatchObject({ messages: 0, inboxRequests: 1 });
    const created = await callOk(handlers, 'deletions.create', { userId: 'ghost', purge: true });
    expect(created).toMatchObject({ sourceIds: [], deliveryIds: [], purgedMessages: 0, inboxRequests: 1 });
    expect(core.receiver.inbox().some((e) => e.body.includes('ghost'))).toBe(false);

    expect(await invoke(handlers, 'deletions.preview', { userId: '' })).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('must not be empty') } });
    expect(await invoke(handlers, 'deletions.preview', {})).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });
});
