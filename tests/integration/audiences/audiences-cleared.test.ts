// Profiles outlive the messages they were folded from (a clear or a prune keeps them), but the store
// gives the highest message ids again once the newest messages are gone (messages has no AUTOINCREMENT).
// So after a clear, the messages stored next must still be folded, and a computed trait that reads an
// event's message by id must not read another user's message that took that id; and a trait whose value
// was read from messages now gone keeps it, rather than sending null. Real core, real store, a receiver.
import { afterEach, expect, it } from 'vitest';
import { post, startCore, storedMessages, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function setup(): Promise<{ core: TestCore; sourceId: number }> {
  core = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
  core.writeKey = 'wk_web';
  return { core, sourceId: core.sources.byName('web')!.id };
}

/** A core whose web source goes to `hook` (destination crm); `traits()`: the values of `trait` it received, by user. */
async function withHook(hook: Receiver, trait: string): Promise<{ core: TestCore; sourceId: number; traits: () => unknown[][] }> {
  const started = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'crm', enabled: true, sources: ['web'], webhooks: [{ url: `${hook.url}/crm`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
    },
  });
  core = started;
  started.writeKey = 'wk_web';
  const traits = () => hook.received.map((r) => JSON.parse(r.body) as { userId: string; traits?: Record<string, unknown> })
    .filter((b) => b.traits?.[trait] !== undefined).map((b) => [b.userId, b.traits![trait]]);
  return { core: started, sourceId: started.sources.byName('web')!.id, traits };
}

async function clearAll(core: TestCore): Promise<void> {
  const cleared = await core.operations['storage.clear']({ scope: { all: true }, dryRun: false });
  expect(cleared.messages).toBeGreaterThan(0);
  expect(storedMessages(core)).toEqual([]);
}

it('after every message is cleared, the messages stored next still reach the audiences', async () => {
  const { core, sourceId } = await setup();
  const pro = { sourceId, rule: { match: 'all' as const, conditions: [{ kind: 'trait' as const, trait: 'plan', operator: 'equals' as const, value: 'pro' }] }, sampleSize: 100 };
  expect((await post(core, '/v1/batch', { batch: ['alice', 'carol', 'dan'].map((userId) => ({ type: 'identify', userId, traits: { plan: 'pro' } })) })).status).toBe(200);
  expect((await core.audiences.preview(pro)).sample.map((m) => m.userId).sort()).toEqual(['alice', 'carol', 'dan']);
  await clearAll(core);
  // Stored under ids 1 and 2 again, below where the profiles had been folded to.
  expect((await post(core, '/v1/batch', { batch: [{ type: 'identify', userId: 'bob', traits: { plan: 'pro' } }, { type: 'identify', userId: 'erin', traits: { plan: 'pro' } }] })).status).toBe(200);
  expect(storedMessages(core).map((m) => m.id)).toEqual([1, 2]);
  expect((await core.audiences.preview(pro)).sample.map((m) => m.userId).sort()).toEqual(['alice', 'bob', 'carol', 'dan', 'erin']);
});

it("a computed trait's last value is never read from another user's message that took a cleared message's id", async () => {
  const { core, sourceId } = await setup();
  const lastPlan = { sourceId, kind: 'computed_trait' as const, computation: { kind: 'last_property' as const, event: 'Order Completed', property: 'plan' }, sampleSize: 100 };
  const values = async () => Object.fromEntries((await core.audiences.preview(lastPlan)).sample.map((m) => [m.userId, m.value]));
  const orderBy = (userId: string, plan: string) => [{ type: 'identify', userId, traits: {} }, { type: 'track', userId, event: 'Order Completed', properties: { plan } }];
  expect((await post(core, '/v1/batch', { batch: orderBy('alice', 'alice-plan') })).status).toBe(200);
  expect(await values()).toEqual({ alice: 'alice-plan' });
  await clearAll(core);
  // Bob's order is stored under the id alice's had (2).
  expect((await post(core, '/v1/batch', { batch: orderBy('bob', 'bob-plan') })).status).toBe(200);
  expect(storedMessages(core).map((m) => [m.id, m.userId])).toEqual([[1, 'bob'], [2, 'bob']]);
  expect(await values()).toEqual({ bob: 'bob-plan' }); // alice's order is gone with its message: no value, never bob's
});

it("a computed trait's last value outlives the messages it was read from: a clear or a prune sends no null, a newer event its value", async () => {
  const hook = await startReceiver();
  try {
    const { core, sourceId, traits } = await withHook(hook, 'last_plan');
    const order = (userId: string, plan: string) => ({ type: 'track', userId, event: 'Order Completed', properties: { plan } });
    expect((await post(core, '/v1/batch', { batch: [order('alice', 'pro'), order('bob', 'free')] })).status).toBe(200);
    const computation = { kind: 'last_property' as const, event: 'Order Completed', property: 'plan' };
    const saved = await core.audiences.save({ sourceId, name: 'Last plan', kind: 'computed_trait', computation });
    await core.audiences.syncNow(saved.id);
    await core.delivery.idle();
    expect(traits().sort()).toEqual([['alice', 'pro'], ['bob', 'free']]);

    await clearAll(core); // what a prune does to the oldest messages
    hook.received.length = 0;
    // The saved definition's preview says no one leaves; a sync sends nothing (before 2026-12-01: null to both).
    expect(await core.audiences.preview({ sourceId, kind: 'computed_trait', computation, sampleSize: 10, audienceId: saved.id })).toMatchObject({ members: 2, leaving: 0 });
    await core.audiences.syncNow(saved.id);
    await core.delivery.idle();
    expect(traits()).toEqual([]);
    expect(core.audiences.list().find((a) => a.id === saved.id)).toMatchObject({ members: 2 });

    // A newer event with the property: its value is sent.
    expect((await post(core, '/v1/track', order('alice', 'max'))).status).toBe(200);
    await core.audiences.syncNow(saved.id);
    await core.delivery.idle();
    expect(traits()).toEqual([['alice', 'max']]);
  } finally {
    await hook.close();
  }
});

it('a last-property trait whose event or property is edited keeps no value computed under the old one', async () => {
  const hook = await startReceiver();
  try {
    const { core, sourceId, traits } = await withHook(hook, 'last_value');
    expect((await post(core, '/v1/track', { type: 'track', userId: 'alice', event: 'Order Completed', properties: { plan: 'pro' } })).status).toBe(200);
    const saved = await core.audiences.save({ sourceId, name: 'Last value', kind: 'computed_trait', computation: { kind: 'last_property', event: 'Order Completed', property: 'plan' } });
    await core.audiences.syncNow(saved.id);
    await core.delivery.idle();
    expect(traits()).toEqual([['alice', 'pro']]);
    hook.received.length = 0;

    const edited = { kind: 'last_property' as const, event: 'Order Completed', property: 'tier' };
    expect(await core.audiences.preview({ sourceId, kind: 'computed_trait', computation: edited, sampleSize: 10, audienceId: saved.id })).toMatchObject({ members: 0, leaving: 1 });
    await core.audiences.save({ id: saved.id, sourceId, name: 'Last value', kind: 'computed_trait', computation: edited });
    expect(await core.audiences.preview({ sourceId, kind: 'computed_trait', computation: edited, sampleSize: 10, audienceId: saved.id })).toMatchObject({ members: 0, leaving: 1 });
    await core.audiences.syncNow(saved.id);
    await core.delivery.idle();
    expect(traits()).toEqual([['alice', null]]); // she has no tier: told so, not left with her plan
  } finally {
    await hook.close();
  }
});
