// Profiles outlive the messages they were folded from (a clear or a prune keeps them), but the store
// gives the highest message ids again once the newest messages are gone (messages has no AUTOINCREMENT).
// So after a clear, the messages stored next must still be folded, and a computed trait that reads an
// event's message by id must not read another user's message that took that id. Real core, real store.
import { afterEach, expect, it } from 'vitest';
import { post, startCore, storedMessages, type TestCore } from '../../helpers/core.ts';

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
