// Audiences and computed traits end to end over a real core (real SQLite file, real ingestion
// endpoint, real delivery engine) and a real webhook receiver; time comes from an injected clock.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { OperationError } from '../../../electron/core/operation-error.ts';
import type { AudienceInput } from '../../../shared/audiences.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach, type Receiver, type Received } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';
import { signBody } from '../../../electron/core/signature/signature.ts';

const newReceiver = receiversClosedAfterEach();
const SECRET = 'audience-s3cret';
const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const HOUR = 3_600_000;

let cores: TestCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
});

interface Setup {
  core: TestCore;
  receiver: Receiver;
  clock: { now: () => number; set: (t: number) => void; advance: (ms: number) => void };
  sourceId: number;
}

async function setup(options: { random?: () => number; withDestination?: boolean } = {}): Promise<Setup> {
  let now = T0;
  const clock = { now: () => now, set: (t: number) => void (now = t), advance: (ms: number) => void (now += ms) };
  const receiver = await newReceiver();
  const core = await startCore({
    clock,
    ...(options.random ? { random: options.random } : {}),
    config: {
      sources: [
        { name: 'web', writeKey: 'wk_web', kind: 'web' },
        { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
      ],
      destinations:
        options.withDestination === false
          ? []
          : [
              {
                name: 'hooks',
                enabled: true,
                sources: ['web'],
                sharedSecret: SECRET,
                webhooks: [{ url: `${receiver.url}/hook`, headers: {} }],
                options: { bodyShape: 'seed', concurrency: 8 },
              },
            ],
    },
  });
  cores.push(core);
  return { core, receiver, clock, sourceId: core.sources.byName('web')!.id };
}

/** Sends messages to the web source (an acknowledged batch is stored). */
async function send(core: TestCore, batch: Record<string, unknown>[], writeKey = 'wk_web'): Promise<void> {
  const res = await post({ ingestUrl: core.ingestUrl, writeKey }, '/v1/batch', { batch });
  expect(res.status).toBe(200);
}

const identify = (userId: string, traits: Record<string, unknown>) => ({ type: 'identify', userId, traits });
const track = (userId: string, event: string, timestamp?: number, properties: Record<string, unknown> = {}) => ({
  type: 'track',
  userId,
  event,
  properties,
  ...(timestamp !== undefined ? { timestamp: new Date(timestamp).toISOString() } : {}),
});

const pro = { kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' } as const;

function audience(sourceId: number, patch: Partial<AudienceInput> & Record<string, unknown> = {}) {
  return { sourceId, name: 'High Value Users', rule: { match: 'all', conditions: [pro] }, ...patch };
}

interface IdentifyBody {
  type: string;
  userId: string;
  traits: Record<string, unknown>;
}

/**
 * The requests that carried a sync's identifies: those whose traits hold the audience's property.
 * (The test's own messages reach the same webhook: the destination receives the whole source.)
 */
function syncRequests(receiver: Receiver, property: string): Received[] {
  return receiver.received.filter((r) => {
    const body = JSON.parse(r.body) as IdentifyBody;
    return body.type === 'identify' && Object.hasOwn(body.traits ?? {}, property);
  });
}

/** Waits for `count` sync identifies to have arrived; resolves with their bodies. */
async function syncBodies(receiver: Receiver, property: string, count: number): Promise<IdentifyBody[]> {
  const got = await until(() => {
    const requests = syncRequests(receiver, property);
    return requests.length >= count ? requests : undefined;
  }, 10_000, `${count} identifies carrying ${property}`);
  return got.map((r) => JSON.parse(r.body) as IdentifyBody);
}

/** userId → traits of the sync identifies received so far (from the `from`-th on). */
async function deliveredTraits(receiver: Receiver, property: string, count: number, from = 0): Promise<Map<string, unknown>> {
  const bodies = (await syncBodies(receiver, property, count)).slice(from);
  return new Map(bodies.map((b) => [b.userId, b.traits]));
}

/** Runs the syncs that are due and lets their deliveries finish. */
async function settle(core: TestCore): Promise<void> {
  await core.audiences.tick();
  await core.audiences.idle();
  await core.delivery.idle();
}

describe('audience rules', () => {
  it('evaluates each trait operator and event condition over what was stored for each user', async () => {
    const { core, sourceId, clock } = await setup({ withDestination: false });
    await send(core, [
      identify('ada', { plan: 'pro', seats: 12, email: 'ada@gmail.com', tags: ['beta', 'vip'], verified: true }),
      identify('bob', { plan: 'free', seats: 1, email: 'bob@example.com' }),
      identify('cyd', { plan: 'pro', seats: 3 }),
      identify('cyd', { plan: 'enterprise' }), // later identifies win, key by key: seats stays 3
      identify('dee', { plan: null }),
      track('eve', 'Signed In'),
      identify('num', { plan: 5 }),
    ]);
    const t = clock.now();
    await send(core, [
      ...[1, 2, 3].map((i) => track('ada', 'Order Completed', t - i * 60_000)),
      track('bob', 'Order Completed', t - 2 * 86_400_000), // two days ago
      track('bob', 'Order Completed', t - 60_000),
      track('cyd', 'Order Completed', t - 30_000),
      track('ada', 'Order Completed', undefined), // no timestamp: when it arrived
    ]);
    // A message from another source never counts for this one.
    await send(core, [identify('zed', { plan: 'pro' }), track('zed', 'Order Completed')], 'wk_ios');

    const members = async (conditions: unknown[], match: 'all' | 'any' = 'all') => {
      const preview = await core.audiences.preview({ sourceId, rule: { match, conditions }, sampleSize: 100 });
      return preview.sample.map((m) => m.userId);
    };
    const trait = (operator: string, value?: unknown, name = 'plan') => ({ kind: 'trait', trait: name, operator, ...(value === undefined ? {} : { value }) });
    const orders = (operator: 'at_least' | 'at_most', count: number, within?: { amount: number; unit: string }) => ({
      kind: 'event',
      event: 'Order Completed',
      operator,
      count,
      ...(within ? { within } : {}),
    });

    expect(await members([trait('equals', 'pro')])).toEqual(['ada']);
    expect(await members([trait('equals', 5)])).toEqual(['num']); // a number matches only a number
    expect(await members([trait('equals', '5')])).toEqual([]);
    expect(await members([trait('equals', true, 'verified')])).toEqual(['ada']);
    expect(await members([trait('not_equals', 'pro')])).toEqual(['bob', 'cyd', 'dee', 'eve', 'num']); // includes users without a plan
    expect(await members([trait('exists')])).toEqual(['ada', 'bob', 'cyd', 'num']); // null does not exist
    expect(await members([trait('not_exists')])).toEqual(['dee', 'eve']);
    expect(await members([trait('contains', 'gmail', 'email')])).toEqual(['ada']);
    expect(await members([trait('contains', 'vip', 'tags')])).toEqual(['ada']); // an array element
    expect(await members([trait('greater_than', 2, 'seats')])).toEqual(['ada', 'cyd']);
    expect(await members([trait('less_than', 3, 'seats')])).toEqual(['bob']);
    expect(await members([orders('at_least', 4)])).toEqual(['ada']);
    expect(await members([orders('at_least', 2)])).toEqual(['ada', 'bob']);
    expect(await members([orders('at_least', 2, { amount: 1, unit: 'days' })])).toEqual(['ada']); // bob's second order is too old
    expect(await members([orders('at_most', 0)])).toEqual(['dee', 'eve', 'num']); // users who never ordered
    expect(await members([orders('at_most', 1, { amount: 90, unit: 'seconds' })])).toEqual(['bob', 'cyd', 'dee', 'eve', 'num']);
    expect(await members([trait('equals', 'free'), orders('at_least', 1)], 'all')).toEqual(['bob']);
    expect(await members([trait('equals', 'enterprise'), trait('equals', 5)], 'any')).toEqual(['cyd', 'num']);

    // The window moves with the clock: an hour later, none of the orders is within 90 s.
    clock.advance(HOUR);
    expect(await members([orders('at_least', 1, { amount: 90, unit: 'seconds' })])).toEqual([]);
  });

  it('compares text traits as text even when they look like numbers', async () => {
    const { core, sourceId } = await setup({ withDestination: false });
    await send(core, [
      identify('a', { zip: '02134', version: '1.10', phone: '12345678901234567890', n: 2134 }),
      identify('b', { zip: '2134', version: '1.1', phone: '12345678901234567891', n: 2134.5 }),
    ]);
    const members = async (condition: Record<string, unknown>) => {
      const preview = await core.audiences.preview({ sourceId, rule: { match: 'all', conditions: [{ kind: 'trait', ...condition }] }, sampleSize: 100 });
      return preview.sample.map((m) => m.userId);
    };
    expect(await members({ trait: 'zip', operator: 'equals', value: '02134' })).toEqual(['a']);
    expect(await members({ trait: 'zip', operator: 'contains', value: '021' })).toEqual(['a']);
    expect(await members({ trait: 'zip', operator: 'not_equals', value: '02134' })).toEqual(['b']);
    expect(await members({ trait: 'version', operator: 'equals', value: '1.1' })).toEqual(['b']);
    expect(await members({ trait: 'version', operator: 'contains', value: '10' })).toEqual(['a']);
    expect(await members({ trait: 'phone', operator: 'equals', value: '12345678901234567891' })).toEqual(['b']);
    // Numbers stay numbers: a text zip is not the number 2134.
    expect(await members({ trait: 'n', operator: 'equals', value: 2134 })).toEqual(['a']);
    expect(await members({ trait: 'zip', operator: 'equals', value: 2134 })).toEqual([]);
    expect(await members({ trait: 'n', operator: 'greater_than', value: 2134 })).toEqual(['b']);
  });

  it('takes the latest trait and the last property value by the messages\' time, not by their arrival', async () => {
    const { core, sourceId, clock } = await setup({ withDestination: false });
    const t = clock.now();
    const at = (ms: number) => ({ timestamp: new Date(ms).toISOString() });
    // The newer values arrive first; an offline client's (or a backfill's) older ones arrive after them.
    await send(core, [{ ...identify('ada', { plan: 'pro' }), ...at(t - HOUR) }, track('ada', 'Order Completed', t - HOUR, { plan: 'pro' })]);
    await send(core, [{ ...identify('ada', { plan: 'free', seats: 2 }), ...at(t - 5 * HOUR) }, track('ada', 'Order Completed', t - 5 * HOUR, { plan: 'basic' })]);
    const preview = await core.audiences.preview({ sourceId, rule: { match: 'all', conditions: [pro] }, sampleSize: 100 });
    expect(preview.sample.map((m) => m.userId)).toEqual(['ada']);
    const seats = await core.audiences.preview({ sourceId, rule: { match: 'all', conditions: [{ kind: 'trait', trait: 'seats', operator: 'equals', value: 2 }] }, sampleSize: 100 });
    expect(seats.sample.map((m) => m.userId)).toEqual(['ada']); // a key only the older identify had still counts
    const last = await core.audiences.preview({ sourceId, kind: 'computed_trait', computation: { kind: 'last_property', event: 'Order Completed', property: 'plan' }, sampleSize: 100 });
    expect(Object.fromEntries(last.sample.map((m) => [m.userId, m.value]))).toEqual({ ada: 'pro' });
  });

  it('a store written before schema 8 (trait values turned into numbers) is folded again on start, and compares right', async () => {
    const dataDir = tempDir();
    const first = await startCore({ dataDir, config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    const sourceId = first.sources.byName('web')!.id;
    await send(first, [identify('a', { zip: '02134' }), identify('b', { zip: '2134' })]);
    await first.close();
    // Schema 7's profile_traits, filled as its fold did (NUMERIC affinity: "02134" became 2134), cursor at the end.
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE));
    db.exec(`DROP TABLE profile_traits;
      CREATE TABLE profile_traits (source_id INTEGER NOT NULL, key TEXT NOT NULL, user_id TEXT NOT NULL, type TEXT NOT NULL,
        value ANY, message_id INTEGER NOT NULL, PRIMARY KEY (source_id, key, user_id)) WITHOUT ROWID;
      INSERT INTO profile_traits SELECT m.source_id, t.key, m.user_id, t.type, t.value, m.id FROM messages m, json_each(m.raw, '$.traits') t;
      INSERT OR REPLACE INTO settings (key, value) VALUES ('profiles.folded_through', (SELECT max(id) FROM messages));
      ALTER TABLE sources DROP COLUMN allowed_origins; -- schema 9's
      DROP TRIGGER event_counts_deleted; DROP TRIGGER event_counts_rechecked; DROP TABLE event_counts; -- schema 10's
      DROP INDEX messages_violations; DROP INDEX deliveries_replay; ALTER TABLE messages DROP COLUMN violations; ALTER TABLE messages DROP COLUMN blocked;
      DROP TRIGGER messages_search_deleted; DROP TABLE messages_search; DROP TABLE search_index; -- schema 11's
      DROP TABLE messages_text; -- schema 12's
      ALTER TABLE audiences DROP COLUMN destination_ids; -- schema 13's
      ALTER TABLE profile_users DROP COLUMN via; -- schema 15's
      ALTER TABLE messages DROP COLUMN warning; -- schema 16's
      DROP TRIGGER forward_requests_released; DROP TABLE forward_attempts; DROP TABLE forward_requests; -- schema 17's
      DROP TRIGGER attempts_keep_signature; ALTER TABLE attempts DROP COLUMN header_set; DROP TABLE header_sets; -- schema 18's
      DROP INDEX messages_unaccepted; DROP INDEX messages_made; DROP INDEX deliveries_not_sent; -- schema 19's
      ALTER TABLE deliveries DROP COLUMN shaping; ALTER TABLE deliveries DROP COLUMN transform_run; ALTER TABLE deliveries DROP COLUMN transform_body;
      ALTER TABLE attempts DROP COLUMN transform_run; -- schema 21's (forward_attempts went with schema 17's)
      DROP TRIGGER delivery_hours_moved; DROP TRIGGER delivery_hours_gone; DROP INDEX deliveries_made; -- schema 26's
      DROP TABLE delivery_hours; DROP INDEX deliveries_funnel; -- schema 22's (made again by 26)
      DROP INDEX messages_pinned; ALTER TABLE messages DROP COLUMN pinned; -- schema 23's
      ALTER TABLE deliveries DROP COLUMN body_shape; -- schema 27's
      PRAGMA user_version = 7;`);
    expect(db.prepare(`SELECT typeof(value) AS t FROM profile_traits WHERE user_id = 'a'`).get()).toEqual({ t: 'integer' }); // the old bug, reproduced
    db.close();

    const again = await startCore({ dataDir, config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    try {
      const preview = await again.audiences.preview({ sourceId, rule: { match: 'all', conditions: [{ kind: 'trait', trait: 'zip', operator: 'equals', value: '02134' }] }, sampleSize: 100 });
      expect(preview.sample.map((m) => m.userId)).toEqual(['a']);
    } finally {
      await again.dispose();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('computes traits: an event count (within a window) and the last value of an event property', async () => {
    const { core, sourceId, clock } = await setup({ withDestination: false });
    const t = clock.now();
    await send(core, [
      track('ada', 'Order Completed', t - 3 * HOUR, { plan: 'basic', total: 10 }),
      track('ada', 'Order Completed', t - 2 * HOUR, { plan: 'pro', total: 20 }),
      track('ada', 'Order Completed', t - HOUR, { total: 5 }), // no plan: the last plan stays "pro"
      track('bob', 'Order Completed', t - 30 * HOUR, { plan: { tier: 2 } }),
      track('cyd', 'Signed In', t),
    ]);
    const values = async (computation: unknown) => {
      const preview = await core.audiences.preview({ sourceId, kind: 'computed_trait', computation, sampleSize: 100 });
      return Object.fromEntries(preview.sample.map((m) => [m.userId, m.value]));
    };
    expect(await values({ kind: 'event_count', event: 'Order Completed' })).toEqual({ ada: 3, bob: 1 });
    expect(await values({ kind: 'event_count', event: 'Order Completed', within: { amount: 1, unit: 'days' } })).toEqual({ ada: 3 });
    expect(await values({ kind: 'last_property', event: 'Order Completed', property: 'plan' })).toEqual({ ada: 'pro', bob: { tier: 2 } });
    expect(await values({ kind: 'last_property', event: 'Order Completed', property: 'total' })).toEqual({ ada: 5 });
  });
});

describe('audience syncs', () => {
  it('sends every member on the first sync, signed, through the delivery engine, and nothing on a sync without change', async () => {
    const { core, receiver, sourceId } = await setup();
    await send(core, [identify('u1', { plan: 'pro' }), identify('u2', { plan: 'pro' }), identify('u3', { plan: 'free' })]);
    const saved = await core.audiences.save(audience(sourceId));
    expect(saved.property).toBe('high_value_users');

    // Demo mode syncs at once after creation: the scheduler's own timer runs it.
    const traits = await deliveredTraits(receiver, 'high_value_users', 2);
    expect(traits).toEqual(new Map([['u1', { high_value_users: true }], ['u2', { high_value_users: true }]]));
    await settle(core);
    for (const request of syncRequests(receiver, 'high_value_users')) {
      const body = JSON.parse(request.body) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['version', 'type', 'userId', 'traits', 'timestamp']); // the seed's identify body
      expect(body).toMatchObject({ version: 1, type: 'identify', timestamp: new Date(T0).toISOString() });
      expect(request.headers['x-signature']).toBe(signBody(request.body, SECRET));
      expect(request.headers['user-agent']).toBe('Sluice/1.0');
    }
    const [first] = core.audiences.repo.syncs(saved.id, 10);
    expect(first).toMatchObject({ initial: true, reason: 'scheduled', members: 2, joined: 2, left: 0, messages: 2, deliveries: 2 });
    expect(first!.deliveryStatus).toEqual({ delivered: 2 });

    // Marked as audience syncs in the store and on the stream's rows.
    const messages = core.audiences.repo.syncMessages(first!.id, 0, 10);
    expect(messages.map((m) => [m.userId, m.value, m.change, m.delivery?.status])).toEqual([
      ['u1', true, 'joined', 'delivered'],
      ['u2', true, 'joined', 'delivered'],
    ]);
    const stored = core.messages.get(messages[0]!.id)!;
    expect(stored).toMatchObject({ origin: 'audience', type: 'identify', userId: 'u1', sourceId });
    expect(core.deliveries.forMessage(stored.id).map((d) => d.trigger)).toEqual(['audience']);
    const handlers = createHandlers(core);
    const summaries = await invoke(handlers, 'messages.byIds', { ids: [stored.id] });
    expect(summaries).toMatchObject({
      ok: true,
      value: { messages: [{ origin: 'audience', audience: { audienceId: saved.id, audienceName: 'High Value Users', property: 'high_value_users', value: true, change: 'joined' } }] },
    });

    // Nothing changed: the next sync sends nothing.
    const second = await core.audiences.syncNow(saved.id);
    expect(second).toMatchObject({ initial: false, members: 2, joined: 0, left: 0, messageIds: [], deliveries: 0 });
    await settle(core);
    expect(syncRequests(receiver, 'high_value_users')).toHaveLength(2);
  });

  it('sends exactly one true identify to a user who joins and one false identify to a user who leaves', async () => {
    const { core, receiver, sourceId } = await setup();
    await send(core, [identify('stays', { plan: 'pro' }), identify('leaves', { plan: 'pro' }), identify('joins', { plan: 'free' })]);
    const saved = await core.audiences.save(audience(sourceId));
    await settle(core);
    expect(await deliveredTraits(receiver, 'high_value_users', 2)).toEqual(new Map([['leaves', { high_value_users: true }], ['stays', { high_value_users: true }]]));

    await send(core, [identify('joins', { plan: 'pro' }), identify('leaves', { plan: 'free' }), identify('stays', { plan: 'pro', seats: 3 })]);
    const sync = await core.audiences.syncNow(saved.id);
    expect(sync).toMatchObject({ initial: false, members: 2, joined: 1, left: 1 });
    await settle(core);
    const later = (await syncBodies(receiver, 'high_value_users', 4)).slice(2);
    expect(later.map((b) => [b.userId, b.traits]).sort()).toEqual([
      ['joins', { high_value_users: true }],
      ['leaves', { high_value_users: false }],
    ]);
    expect(core.audiences.repo.members(saved.id, { limit: 10 }).members.map((m) => m.userId)).toEqual(['joins', 'stays']);

    // The audience's own identifies never feed back into the profiles: a trait named like the
    // property does not make anyone a member of a rule on it.
    const echo = await core.audiences.preview({ sourceId, rule: { conditions: [{ kind: 'trait', trait: 'high_value_users', operator: 'exists' }] } });
    expect(echo.members).toBe(0);

    await core.audiences.syncNow(saved.id);
    await settle(core);
    expect(syncRequests(receiver, 'high_value_users')).toHaveLength(4);
  });

  it('syncs computed traits when their value changes, and resets to 0 when a count empties', async () => {
    const { core, receiver, sourceId, clock } = await setup();
    await send(core, [track('ada', 'Order Completed', clock.now()), track('ada', 'Order Completed', clock.now()), track('bob', 'Order Completed', clock.now())]);
    const saved = await core.audiences.save({
      sourceId,
      name: 'Orders last hour',
      kind: 'computed_trait',
      computation: { kind: 'event_count', event: 'Order Completed', within: { amount: 1, unit: 'hours' } },
    });
    await settle(core);
    expect(await deliveredTraits(receiver, 'orders_last_hour', 2)).toEqual(new Map([['ada', { orders_last_hour: 2 }], ['bob', { orders_last_hour: 1 }]]));

    clock.advance(30 * 60_000);
    await send(core, [track('bob', 'Order Completed', clock.now())]);
    await core.audiences.syncNow(saved.id);
    await settle(core);
    expect((await syncBodies(receiver, 'orders_last_hour', 3))[2]).toMatchObject({ userId: 'bob', traits: { orders_last_hour: 2 } });

    clock.advance(2 * HOUR); // every order is now older than an hour
    const sync = await core.audiences.syncNow(saved.id);
    expect(sync).toMatchObject({ joined: 0, left: 2, members: 0 });
    await settle(core);
    const last = (await syncBodies(receiver, 'orders_last_hour', 5)).slice(3);
    expect(last.map((b) => [b.userId, b.traits]).sort()).toEqual([
      ['ada', { orders_last_hour: 0 }],
      ['bob', { orders_last_hour: 0 }],
    ]);
  });

  it('retries a failed audience delivery like any other (same body, same signature)', async () => {
    const { core, receiver, sourceId, clock } = await setup({ random: () => 0.5 });
    await send(core, [identify('u1', { plan: 'pro' })]);
    await core.delivery.idle();
    await receiver.waitFor(1); // the identify itself
    receiver.script({ status: 503 });
    const saved = await core.audiences.save(audience(sourceId));
    await settle(core);
    await syncBodies(receiver, 'high_value_users', 1);
    clock.advance(60_000); // past the first retry (about 5 s)
    core.delivery.kick();
    const [failed, retried] = await until(() => {
      const requests = syncRequests(receiver, 'high_value_users');
      return requests.length >= 2 ? requests : undefined;
    });
    await core.delivery.idle(); // the second round's result is committed
    const [sync] = core.audiences.repo.syncs(saved.id, 1);
    const [message] = core.audiences.repo.syncMessages(sync!.id, 0, 1);
    expect(core.deliveries.forMessage(message!.id).map((d) => [d.trigger, d.attemptCount])).toEqual([['audience', 2]]);
    expect(retried!.body).toBe(failed!.body);
    expect(retried!.headers['x-signature']).toBe(failed!.headers['x-signature']);
  });

  it('stores the identifies even when no destination is connected, so the sync is visible', async () => {
    const { core, sourceId } = await setup({ withDestination: false });
    await send(core, [identify('u1', { plan: 'pro' })]);
    const saved = await core.audiences.save(audience(sourceId));
    await settle(core);
    const [sync] = core.audiences.repo.syncs(saved.id, 1);
    expect(sync).toMatchObject({ joined: 1, deliveries: 0 });
    expect(core.audiences.repo.syncMessages(sync!.id, 0, 10)).toMatchObject([{ userId: 'u1', delivery: null, deliveryCount: 0 }]);
  });

  it('drops a purged user from the audience without telling the destination again', async () => {
    const { core, receiver, sourceId } = await setup();
    await send(core, [identify('gone', { plan: 'pro' }), identify('kept', { plan: 'pro' })]);
    const saved = await core.audiences.save(audience(sourceId));
    await settle(core);
    await syncBodies(receiver, 'high_value_users', 2);
    await core.operations['deletions.create']({ userId: 'gone', purge: true });
    await settle(core);
    const sync = await core.audiences.syncNow(saved.id);
    expect(sync).toMatchObject({ members: 1, joined: 0, left: 0 });
    await settle(core);
    // The delete notification went out; no identify followed it.
    expect(receiver.received.filter((r) => (JSON.parse(r.body) as { type: string }).type === 'delete')).toHaveLength(1);
    expect(syncRequests(receiver, 'high_value_users')).toHaveLength(2);
    expect(core.audiences.repo.members(saved.id, { limit: 10 }).members.map((m) => m.userId)).toEqual(['kept']);
  });
});

describe('audience timing', () => {
  it('realistic mode: the first sync not before 6 h after creation, later ones 2 to 3 h apart', async () => {
    const randoms = [0, 0.999, 0.5, 0.25];
    let i = 0;
    const { core, receiver, sourceId, clock } = await setup({ random: () => randoms[i++ % randoms.length]! });
    await send(core, [identify('u1', { plan: 'pro' })]);
    const saved = await core.audiences.save(audience(sourceId, { mode: 'realistic' }));
    expect(saved.nextSyncAt).toBe(T0 + 6 * HOUR); // random 0: the earliest allowed

    clock.set(T0 + 6 * HOUR - 1);
    expect(await core.audiences.tick()).toEqual([]);
    expect(core.audiences.repo.syncs(saved.id, 10)).toEqual([]);
    await settle(core);
    expect(syncRequests(receiver, 'high_value_users')).toHaveLength(0);

    clock.set(T0 + 6 * HOUR);
    const [first] = await core.audiences.tick();
    expect(first).toMatchObject({ initial: true, joined: 1 });
    await settle(core);
    await syncBodies(receiver, 'high_value_users', 1);

    let last = T0 + 6 * HOUR;
    for (let n = 0; n < 3; n++) {
      const next = core.audiences.view(saved.id).nextSyncAt!;
      expect(next - last).toBeGreaterThanOrEqual(2 * HOUR);
      expect(next - last).toBeLessThan(3 * HOUR);
      clock.set(next - 1);
      expect(await core.audiences.tick()).toEqual([]);
      clock.set(next);
      expect(await core.audiences.tick()).toHaveLength(1);
      last = next;
    }
    // The three later syncs found nothing to send: they are not recorded (the history keeps the one
    // that sent something), and the audience's last sync is the last of them.
    expect(core.audiences.repo.syncs(saved.id, 10).map((s) => s.at)).toEqual([T0 + 6 * HOUR]);
    expect(core.audiences.view(saved.id).lastSyncAt).toBe(last);
    expect(last - (T0 + 6 * HOUR)).toBe([2.999 * HOUR, 2.5 * HOUR, 2.25 * HOUR].map(Math.floor).reduce((a, b) => a + b));
  });

  it('demo mode: at once, then every interval; switching modes reschedules from the last sync', async () => {
    const { core, sourceId, clock } = await setup({ random: () => 0.5 });
    await send(core, [identify('u1', { plan: 'pro' })]);
    const saved = await core.audiences.save(audience(sourceId, { intervalSeconds: 10 }));
    expect(saved.nextSyncAt).toBe(T0);
    await settle(core);
    expect(core.audiences.view(saved.id)).toMatchObject({ lastSyncAt: T0, nextSyncAt: T0 + 10_000 });

    clock.advance(9_999);
    expect(await core.audiences.tick()).toEqual([]);
    clock.advance(1);
    expect(await core.audiences.tick()).toHaveLength(1);

    const realistic = await core.audiences.save(audience(sourceId, { id: saved.id, mode: 'realistic', intervalSeconds: 10 }));
    expect(realistic.nextSyncAt).toBe(T0 + 10_000 + 2.5 * HOUR);
    const demo = await core.audiences.save(audience(sourceId, { id: saved.id, mode: 'demo', intervalSeconds: 60 }));
    expect(demo.nextSyncAt).toBe(T0 + 10_000 + 60_000);
  });
});

describe('audience definitions', () => {
  it('refuses invalid definitions with the field and the fix, through the contract too', async () => {
    const { core, sourceId } = await setup({ withDestination: false });
    await expect(core.audiences.save({ sourceId, name: 'X', rule: { conditions: [] } })).rejects.toMatchObject({
      code: 'invalid_audience',
      message: 'rule.conditions: add at least one condition',
    });
    await expect(core.audiences.save(audience(999))).rejects.toMatchObject({ code: 'invalid_audience', message: 'sourceId: there is no source 999' });
    await core.audiences.save(audience(sourceId));
    await expect(core.audiences.save(audience(sourceId, { name: 'high-value users' }))).rejects.toMatchObject({
      code: 'invalid_audience',
      message: 'name: "High Value Users" already sends the trait high_value_users for this source; choose a name that gives another trait',
    });
    await expect(core.audiences.save(audience(sourceId))).rejects.toBeInstanceOf(OperationError);

    const handlers = createHandlers(core);
    expect(await invoke(handlers, 'audiences.save', { sourceId, name: 'Y', rule: { conditions: [{ kind: 'trait', trait: 'seats', operator: 'greater_than', value: 'ten' }] } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: 'rule.conditions[0].value: "greater_than" compares numbers: give a number' },
    });
    expect(await invoke(handlers, 'audiences.syncNow', { id: 12345 })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: 'there is no audience 12345; it may have been deleted' },
    });
  });

  it('renaming starts afresh under the new trait; deleting stops the syncs', async () => {
    const { core, receiver, sourceId } = await setup();
    await send(core, [identify('u1', { plan: 'pro' })]);
    const saved = await core.audiences.save(audience(sourceId));
    await settle(core);
    await syncBodies(receiver, 'high_value_users', 1);
    const renamed = await core.audiences.save(audience(sourceId, { id: saved.id, name: 'Big Spenders' }));
    expect(renamed).toMatchObject({ property: 'big_spenders', members: 0 });
    await settle(core);
    expect(await syncBodies(receiver, 'big_spenders', 1)).toMatchObject([{ userId: 'u1', traits: { big_spenders: true } }]);

    await core.audiences.delete(saved.id);
    expect(core.audiences.list()).toEqual([]);
    await expect(core.audiences.syncNow(saved.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('creates the audiences of a --config file, and keeps their members across a restart', async () => {
    const receiver = await newReceiver();
    const dataDir = tempDir('sluice-audience-config-');
    const file = path.join(tempDir('sluice-audience-config-file-'), 'sluice.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [{ name: 'hooks', sources: ['web'], sharedSecret: SECRET, webhooks: [{ url: `${receiver.url}/hook` }] }],
        audiences: [
          { name: 'Pro Users', source: 'web', rule: { conditions: [pro] }, intervalSeconds: 3600 },
          { name: 'Order Count', source: 'web', kind: 'computed_trait', computation: { kind: 'event_count', event: 'Order Completed' }, mode: 'realistic' },
        ],
      }),
    );
    const config = parseConfig(fs.readFileSync(file, 'utf8'), file);
    const first = await startCore({ dataDir, config });
    try {
      expect(first.audiences.list().map((a) => [a.name, a.property, a.kind, a.mode, a.intervalSeconds])).toEqual([
        ['Order Count', 'order_count', 'computed_trait', 'realistic', 30],
        ['Pro Users', 'pro_users', 'audience', 'demo', 3600],
      ]);
      await send(first, [identify('u1', { plan: 'pro' })]);
      const proUsers = first.audiences.list().find((a) => a.name === 'Pro Users')!;
      await first.audiences.syncNow(proUsers.id);
      await settle(first);
    } finally {
      await first.close();
    }
    const second = await startCore({ dataDir, config });
    cores.push(second);
    const proUsers = second.audiences.list().find((a) => a.name === 'Pro Users')!;
    expect(proUsers.members).toBe(1);
    expect(await second.audiences.syncNow(proUsers.id)).toMatchObject({ joined: 0, left: 0 });
    await settle(second);
    expect(syncRequests(receiver, 'pro_users').map((r) => JSON.parse(r.body).traits)).toEqual([{ pro_users: true }]);
  });

  it('refuses a config file whose audiences are invalid, naming the entry', async () => {
    expect(() =>
      parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web' }], audiences: [{ name: 'A', source: 'app', rule: { conditions: [pro] } }] })),
    ).toThrow('audiences[0].source: unknown source "app"; declare it under "sources"');
    // Two audiences that would send the same trait: refused when the file is read, before anything is
    // written (the core used to refuse it only after storing the file's sources and destinations).
    expect(() =>
      parseConfig(
        JSON.stringify({
          sources: [{ name: 'web', writeKey: 'wk_web' }],
          destinations: [{ name: 'new-dest', sources: ['web'], webhooks: [{ url: 'http://127.0.0.1:9/x' }] }],
          audiences: [
            { name: 'High Value', source: 'web', rule: { conditions: [pro] } },
            { name: 'high-value', source: 'web', rule: { conditions: [pro] } },
          ],
        }),
      ),
    ).toThrow('audiences[1].name: "high-value" sends the trait high_value, as "High Value" does for the same source; choose a name that gives another trait');
    // For different sources the same trait name is fine.
    expect(() =>
      parseConfig(
        JSON.stringify({
          sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }],
          audiences: [
            { name: 'High Value', source: 'web', rule: { conditions: [pro] } },
            { name: 'high-value', source: 'ios', rule: { conditions: [pro] } },
          ],
        }),
      ),
    ).not.toThrow();
  });
});
