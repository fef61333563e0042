// Which destinations an audience's syncs go to, over a real core (real SQLite file, real ingestion,
// the real delivery engine) and two real webhook receivers on 127.0.0.1: the ones it chose, or, by
// default (every audience from before the choice), the enabled destinations connected to its source.
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { databaseFile } from '../../../electron/core/store/database.ts';
import { migrate } from '../../../electron/core/store/migrations.ts';
import type { AudienceRule, AudienceView } from '../../../shared/audiences.ts';
import type { Result } from '../../../shared/contract.ts';
import type { ConfigFile } from '../../../shared/settings.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach, type Receiver } from '../../helpers/receiver.ts';

const newReceiver = receiversClosedAfterEach();
const T0 = Date.parse('2026-11-22T10:00:00.000Z');

let cores: TestCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
});

interface Setup {
  core: TestCore;
  a: Receiver;
  b: Receiver;
  ids: { a: number; b: number; web: number };
}

/** Two destinations, each its own receiver; `b` connected to the web source or not. */
async function setup(options: { bConnected?: boolean; audiences?: ConfigFile['audiences']; clock?: { now(): number } } = {}): Promise<Setup> {
  const [a, b] = [await newReceiver(), await newReceiver()];
  const core = await startCore({
    clock: options.clock ?? { now: () => T0 },
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [
        { name: 'a', enabled: true, sources: ['web'], webhooks: [{ url: `${a.url}/a`, headers: {} }], options: { bodyShape: 'seed', concurrency: 8 } },
        { name: 'b', enabled: true, sources: options.bConnected === false ? [] : ['web'], webhooks: [{ url: `${b.url}/b`, headers: {} }], options: { bodyShape: 'seed', concurrency: 8 } },
      ],
      ...(options.audiences ? { audiences: options.audiences } : {}),
    },
  });
  cores.push(core);
  const res = await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', {
    batch: [
      { type: 'identify', userId: 'ada', traits: { plan: 'pro' } },
      { type: 'identify', userId: 'bob', traits: { plan: 'pro' } },
    ],
  });
  expect(res.status).toBe(200);
  await core.delivery.idle(); // the identifies themselves reach a (and b when connected)
  a.received.length = 0;
  b.received.length = 0;
  return { core, a, b, ids: { a: core.destinations.byName('a')!.id, b: core.destinations.byName('b')!.id, web: core.sources.byName('web')!.id } };
}

const rule: AudienceRule = { match: 'all', conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] };

/** Syncs now and waits until every delivery it made has been sent; answers the users each receiver got the trait for. */
async function syncAndDeliver(core: TestCore, audienceId: number, receivers: Receiver[]): Promise<string[][]> {
  await core.audiences.syncNow(audienceId);
  await core.delivery.idle();
  return receivers.map((r) =>
    r.received
      .map((request) => JSON.parse(request.body) as { userId: string; traits?: Record<string, unknown> })
      .filter((body) => body.traits?.pro_users !== undefined)
      .map((body) => body.userId)
      .sort(),
  );
}

describe('an audience chooses its destinations', () => {
  it('sends its syncs only to the one chosen: b gets every member, a (connected to the same source) nothing', async () => {
    const { core, a, b, ids } = await setup();
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.b] });
    expect(saved.destinationIds).toEqual([ids.b]);

    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
    // In the store too: the sync's identifies have one delivery each, to b.
    const [sync] = core.audiences.repo.syncs(saved.id, 1);
    expect(sync).toMatchObject({ messages: 2, deliveries: 2, deliveryStatus: { delivered: 2 } });
    for (const m of core.audiences.repo.syncMessages(sync!.id, 0, 10)) {
      expect(core.deliveries.forMessage(m.id).map((d) => d.destinationId)).toEqual([ids.b]);
    }
  });

  it('by default (no choice, as every audience had before) it goes to the enabled destinations connected to its source', async () => {
    const { core, a, b, ids } = await setup();
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule });
    expect(saved.destinationIds).toBeNull();
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([
      ['ada', 'bob'],
      ['ada', 'bob'],
    ]);
  });

  it('a chosen destination need not be connected to the source; a disabled one gets nothing; none chosen sends nowhere', async () => {
    const { core, a, b, ids } = await setup({ bConnected: false });
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.b] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);

    // a chosen too, but disabled: a new member's identify goes to b alone.
    core.saveDestination({ name: 'a', enabled: false, sources: ['web'], webhooks: [{ url: `${a.url}/a` }] });
    await core.audiences.save({ id: saved.id, sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.b, ids.a] });
    b.received.length = 0;
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/identify', { userId: 'cyd', traits: { plan: 'pro' } });
    const [toA, toB] = await syncAndDeliver(core, saved.id, [a, b]);
    expect(toA).toEqual([]);
    expect(toB).toContain('cyd');
    expect(core.deliveries.forMessage(core.audiences.repo.syncMessages(core.audiences.repo.syncs(saved.id, 1)[0]!.id, 0, 10)[0]!.id).map((d) => d.destinationId)).toEqual([ids.b]);

    // None chosen: the sync is stored and shown, with no delivery.
    await core.audiences.save({ id: saved.id, sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [] });
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/identify', { userId: 'dee', traits: { plan: 'pro' } });
    b.received.length = 0;
    const sync = await core.audiences.syncNow(saved.id);
    expect(sync).toMatchObject({ joined: 1, deliveries: 0 });
    await core.delivery.idle();
    expect(b.received).toEqual([]);
  });

  it('a destination added to an existing audience gets every member at the next sync', async () => {
    const { core, a, b, ids } = await setup();
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([['ada', 'bob'], []]);
    a.received.length = 0;
    // Nothing changed but the destinations: b learns who is in it, a hears nothing again (until
    // 2026-12-01 a was sent every member again).
    await core.audiences.save({ id: saved.id, sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a, ids.b] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
    // Dropping one sends nothing again to the other.
    a.received.length = 0;
    b.received.length = 0;
    await core.audiences.save({ id: saved.id, sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.b] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], []]);
  });

  it('an audience last synced before syncs recorded where they went: a destination added by a save still learns the members', async () => {
    const { core, a, b, ids } = await setup();
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([['ada', 'bob'], []]);
    a.received.length = 0;
    // As a store from before 2026-12-01 is: no record of where the last sync went.
    const db = new DatabaseSync(databaseFile(core.dataDir));
    expect(Number(db.prepare("DELETE FROM settings WHERE key LIKE 'audience.sent.%'").run().changes)).toBe(1);
    db.close();
    await core.audiences.save({ id: saved.id, sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a, ids.b] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
  });

  it('a destination added while a member has left: the others are still told who left, and the members stay shown until the sync', async () => {
    const { core, a, b, ids } = await setup();
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([['ada', 'bob'], []]);
    a.received.length = 0;
    // Bob leaves; before the next sync, b is added.
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/identify', { userId: 'bob', traits: { plan: 'free' } });
    await core.delivery.idle();
    a.received.length = 0;
    await core.audiences.save({ id: saved.id, sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a, ids.b] });
    expect(core.audiences.view(saved.id).members).toBe(2); // what the last sync sent, until the next one
    await core.audiences.syncNow(saved.id);
    await core.delivery.idle();
    const sent = (r: typeof a) => r.received.map((q) => JSON.parse(q.body) as { userId: string; traits?: Record<string, unknown> }).filter((q) => q.traits?.pro_users !== undefined).map((q) => [q.userId, q.traits!.pro_users]).sort();
    expect(sent(a)).toEqual([['bob', false]]); // a had bob: it hears that he left, and nothing of ada again
    expect(sent(b)).toEqual([['ada', true]]); // b learns ada, and is not told of bob, whom it never had
    expect(core.audiences.view(saved.id).members).toBe(1);
    // The next sync without change sends nothing to either.
    a.received.length = 0;
    b.received.length = 0;
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], []]);
  });
});

describe('an audience on its source\'s destinations (none chosen)', () => {
  it('a destination connected to the source later, or enabled again, learns the members at the next sync', async () => {
    const { core, a, b, ids } = await setup({ bConnected: false });
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([['ada', 'bob'], []]);
    a.received.length = 0;

    // b is connected to web: nothing about the audience changed, but where its syncs go did. Before
    // 2026-12-01 b never heard of ada and bob (only of who joined or left later).
    core.saveDestination({ name: 'b', enabled: true, sources: ['web'], webhooks: [{ url: `${b.url}/b` }], options: { bodyShape: 'seed' } });
    const preview = await core.audiences.preview({ kind: 'audience', sourceId: ids.web, rule, audienceId: saved.id });
    expect(preview).toMatchObject({ members: 2, joining: 2, leaving: 0 });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
    b.received.length = 0;
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], []]);
    expect(await core.audiences.preview({ kind: 'audience', sourceId: ids.web, rule, audienceId: saved.id })).toMatchObject({ joining: 0 });

    // a disabled: a sync without change sends nowhere; enabled again, a is sent the members once more
    // (it may have missed a change while it was off).
    core.saveDestination({ name: 'a', enabled: false, sources: ['web'], webhooks: [{ url: `${a.url}/a` }], options: { bodyShape: 'seed' } });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], []]);
    core.saveDestination({ name: 'a', enabled: true, sources: ['web'], webhooks: [{ url: `${a.url}/a` }], options: { bodyShape: 'seed' } });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([['ada', 'bob'], []]);
  });

  it('synced before syncs recorded where they went: a destination connected since is found from the last sync\'s deliveries', async () => {
    const { core, a, b, ids } = await setup({ bConnected: false });
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([['ada', 'bob'], []]);
    a.received.length = 0;
    const db = new DatabaseSync(databaseFile(core.dataDir));
    expect(Number(db.prepare("DELETE FROM settings WHERE key LIKE 'audience.sent.%'").run().changes)).toBe(1);
    db.close();
    core.saveDestination({ name: 'b', enabled: true, sources: ['web'], webhooks: [{ url: `${b.url}/b` }], options: { bodyShape: 'seed' } });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
  });

  it('a scheduled sync with nothing changed still tells a destination gained since', async () => {
    let now = T0;
    const { core, a, b, ids } = await setup({ bConnected: false, clock: { now: () => now } });
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, intervalSeconds: 30 });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([['ada', 'bob'], []]);
    a.received.length = 0;
    // A scheduled sync that finds nothing changed is not recorded and sends nothing ...
    now += 3_600_000;
    expect(await core.audiences.tick()).toMatchObject([{ syncId: null, joined: 0, deliveries: 0 }]);
    // ... but a destination gained since is a change.
    core.saveDestination({ name: 'b', enabled: true, sources: ['web'], webhooks: [{ url: `${b.url}/b` }], options: { bodyShape: 'seed' } });
    now += 3_600_000;
    const [sync] = await core.audiences.tick();
    expect(sync).toMatchObject({ joined: 2, left: 0, deliveries: 2 });
    expect(sync!.syncId).not.toBeNull();
    await core.delivery.idle();
    expect(b.received.map((r) => (JSON.parse(r.body) as { userId: string }).userId).sort()).toEqual(['ada', 'bob']);
    expect(a.received).toEqual([]);
  });
});

describe('a deletion request', () => {
  it('notifies the destination an audience sent the user to, connected to the source or not', async () => {
    const { core, a, b, ids } = await setup({ bConnected: false });
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.b] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
    a.received.length = 0;
    b.received.length = 0;
    expect(await core.operations['deletions.preview']({ userId: 'ada' })).toMatchObject({ notifications: 2 });
    const deletion = await core.operations['deletions.create']({ userId: 'ada', purge: false });
    expect(deletion.deliveryIds).toHaveLength(2); // a: connected to web; b: the audience sent ada there
    await core.delivery.idle();
    const deletes = (r: typeof a) => r.received.map((q) => JSON.parse(q.body) as { type: string; userId: string }).filter((q) => q.type === 'delete').map((q) => q.userId);
    expect(deletes(a)).toEqual(['ada']);
    expect(deletes(b)).toEqual(['ada']);
    // A user the audience never sent there: b is not told.
    b.received.length = 0;
    expect((await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/identify', { userId: 'cyd', traits: { plan: 'free' } })).status).toBe(200);
    await core.delivery.idle();
    await core.operations['deletions.create']({ userId: 'cyd', purge: false });
    await core.delivery.idle();
    expect(deletes(b)).toEqual([]);
  });

  it('still notifies it once the identifies the audience sent are gone (a clear, retention), the user no longer a member', async () => {
    const { core, a, b, ids } = await setup({ bConnected: false });
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.b] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
    // ada leaves: b is told, and she is no member any more.
    expect((await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/identify', { userId: 'ada', traits: { plan: 'free' } })).status).toBe(200);
    await core.delivery.idle();
    b.received.length = 0;
    expect(await syncAndDeliver(core, saved.id, [b])).toEqual([['ada']]);
    // Every message cleared: the syncs' identifies with them (retention takes them the same way).
    await core.operations['storage.clear']({ scope: { all: true }, dryRun: false });
    a.received.length = 0;
    b.received.length = 0;
    // Before 2026-12-01 b was found through those identifies only, and not told: it still had ada's data.
    expect(await core.operations['deletions.preview']({ userId: 'ada' })).toMatchObject({ notifications: 2 });
    const deletion = await core.operations['deletions.create']({ userId: 'ada', purge: true });
    expect(deletion.deliveryIds).toHaveLength(2);
    await core.delivery.idle();
    const deletes = (r: typeof a) => r.received.map((q) => JSON.parse(q.body) as { type: string; userId: string }).filter((q) => q.type === 'delete').map((q) => q.userId);
    expect(deletes(b)).toEqual(['ada']);
    // The purge took the record with the rest of ada's data: a second request has nothing left to tell b.
    expect(await core.operations['deletions.preview']({ userId: 'ada' })).toMatchObject({ notifications: 0 });
  });
  it('still notifies it after the audience was edited to send elsewhere, or deleted', async () => {
    const { core, a, b, ids } = await setup({ bConnected: false });
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.b] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
    // Edited to send to a only: b still holds ada's membership.
    await core.audiences.save({ id: saved.id, sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a] });
    expect(await core.operations['deletions.preview']({ userId: 'ada' })).toMatchObject({ notifications: 2 });
    // Deleted: b (and a, connected to the source) still hold what it sent.
    await core.audiences.delete(saved.id);
    expect(await core.operations['deletions.preview']({ userId: 'bob' })).toMatchObject({ notifications: 2 });
    const deletion = await core.operations['deletions.create']({ userId: 'bob', purge: false });
    expect(deletion.deliveryIds).toHaveLength(2);
  });

  it('a store from before the record (schema 29) has it made from the syncs it kept', async () => {
    const { core, a, b, ids } = await setup({ bConnected: false });
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.b] });
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
    await core.close();
    const db = new DatabaseSync(databaseFile(core.dataDir));
    try {
      db.exec('DROP TABLE audience_sent_users; PRAGMA user_version = 29;');
      migrate(db);
      expect(db.prepare('SELECT user_id AS userId, source_id AS sourceId, destination_id AS destinationId FROM audience_sent_users ORDER BY user_id').all())
        .toEqual([{ userId: 'ada', sourceId: ids.web, destinationId: ids.b }, { userId: 'bob', sourceId: ids.web, destinationId: ids.b }]);
    } finally {
      db.close();
    }
  });
});

describe('validation', () => {
  it('an unknown destination is refused through the contract, on its place in the list', async () => {
    const { core, ids } = await setup();
    const handlers = createHandlers(core);
    const refused = (await invoke(handlers, 'audiences.save', { sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a, 999] })) as Result<AudienceView>;
    const message = 'there is no destination 999; it may have been deleted — choose from the destinations listed';
    expect(refused).toEqual({
      ok: false,
      error: { code: 'invalid_audience', message: `destinationIds[1]: ${message}`, issues: [{ path: ['destinationIds', 1], message }] },
    });
    const twice = (await invoke(handlers, 'audiences.save', { sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a, ids.a] })) as Result<AudienceView>;
    expect(twice).toMatchObject({ ok: false, error: { issues: [{ path: ['destinationIds', 1], message: `destination ${ids.a} is listed twice` }] } });
    expect(core.audiences.list()).toEqual([]);
  });

  it('a deleted destination leaves the choice: the view no longer lists it and nothing is sent there', async () => {
    const { core, a, b, ids } = await setup();
    const saved = await core.audiences.save({ sourceId: ids.web, name: 'Pro Users', rule, destinationIds: [ids.a, ids.b] });
    await core.operations['destinations.delete']({ id: ids.a, dryRun: false });
    expect(core.audiences.view(saved.id).destinationIds).toEqual([ids.b]);
    expect(await syncAndDeliver(core, saved.id, [a, b])).toEqual([[], ['ada', 'bob']]);
  });
});

describe('in the config file', () => {
  it('names the destinations; an audience declared without them keeps the default', async () => {
    const { core, a, b, ids } = await setup({
      audiences: [
        { name: 'Pro Users', source: 'web', rule, destinations: ['b'], mode: 'realistic', intervalSeconds: 30, kind: 'audience' },
        { name: 'Everyone Pro', source: 'web', rule, mode: 'realistic', intervalSeconds: 30, kind: 'audience' },
      ],
    });
    const byName = new Map(core.audiences.list().map((v) => [v.name, v]));
    expect(byName.get('Pro Users')!.destinationIds).toEqual([ids.b]);
    expect(byName.get('Everyone Pro')!.destinationIds).toBeNull();
    expect(await syncAndDeliver(core, byName.get('Pro Users')!.id, [a, b])).toEqual([[], ['ada', 'bob']]);
  });

  it('refuses a destination it does not declare, naming the field', () => {
    const text = JSON.stringify({
      sources: [{ name: 'web', writeKey: 'wk_web' }],
      destinations: [{ name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/h' }] }],
      audiences: [{ name: 'Pro Users', source: 'web', rule, destinations: ['hooks', 'crm', 'hooks'] }],
    });
    expect(() => parseConfig(text, 'sluice.json')).toThrow(
      'sluice.json: \n  audiences[0].destinations[2]: "hooks" is listed twice\n  audiences[0].destinations[1]: unknown destination "crm"; declare it under "destinations"',
    );
  });
});
