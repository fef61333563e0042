// A scheduled audience sync that finds nothing to send is not recorded: in demo mode (every 30 s) such
// rows buried the syncs that sent something. Real core, real SQLite file, an injected clock.
import { afterEach, describe, expect, it } from 'vitest';
import { post, startCore, type TestCore } from '../../helpers/core.ts';

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function setup() {
  let now = T0;
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  core = await startCore({ clock, config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } } as never);
  core.writeKey = 'wk_web';
  return { core, clock, sourceId: core.sources.byName('web')!.id };
}

const identify = (userId: string, plan: string) => ({ type: 'identify', userId, traits: { plan } });
const proRule = { match: 'all', conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] };

describe('scheduled syncs that send nothing', () => {
  it('are not recorded; the syncs that send something, the first sync and every Sync now are', async () => {
    const { core, clock, sourceId } = await setup();
    const send = async (...batch: unknown[]) => expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
    await send(identify('ada', 'pro'));
    const saved = await core.audiences.save({ sourceId, name: 'Pro Users', rule: proRule, intervalSeconds: 10 });
    await core.audiences.tick();
    const history = () => core.audiences.repo.syncs(saved.id, 50).map((s) => ({ at: s.at - T0, reason: s.reason, joined: s.joined, left: s.left }));
    expect(history()).toEqual([{ at: 0, reason: 'scheduled', joined: 1, left: 0 }]);

    // Five due syncs with nothing changed: each runs (and says so: the audience's last sync moves on), none is recorded.
    for (let i = 1; i <= 5; i++) {
      clock.advance(10_000);
      const [ran] = await core.audiences.tick();
      expect(ran).toMatchObject({ syncId: null, joined: 0, left: 0, members: 1, messageIds: [] });
      expect(core.audiences.view(saved.id).lastSyncAt).toBe(T0 + i * 10_000);
    }
    expect(history()).toHaveLength(1);

    // One joins, one leaves: recorded, between the quiet ones.
    await send(identify('bob', 'pro'));
    clock.advance(10_000);
    expect((await core.audiences.tick())[0]!.syncId).toBeTypeOf('number');
    await send(identify('ada', 'free'));
    clock.advance(10_000);
    await core.audiences.tick();
    clock.advance(10_000);
    expect((await core.audiences.tick())[0]!.syncId).toBeNull();
    expect(history()).toEqual([
      { at: 70_000, reason: 'scheduled', joined: 0, left: 1 },
      { at: 60_000, reason: 'scheduled', joined: 1, left: 0 },
      { at: 0, reason: 'scheduled', joined: 1, left: 0 },
    ]);

    // Sync now is what the user asked for: recorded even when it sends nothing.
    clock.advance(1_000);
    const manual = await core.audiences.syncNow(saved.id);
    expect(manual.syncId).toBeTypeOf('number');
    expect(history()[0]).toEqual({ at: 81_000, reason: 'manual', joined: 0, left: 0 });
  });

  it('an audience nobody matches records its first sync only', async () => {
    const { core, clock, sourceId } = await setup();
    const saved = await core.audiences.save({ sourceId, name: 'Pro Users', rule: proRule, intervalSeconds: 10 });
    await core.audiences.tick();
    for (let i = 0; i < 3; i++) {
      clock.advance(10_000);
      await core.audiences.tick();
    }
    expect(core.audiences.repo.syncs(saved.id, 50)).toMatchObject([{ at: T0, initial: true, members: 0, joined: 0, left: 0 }]);
    expect(core.audiences.view(saved.id).lastSyncAt).toBe(T0 + 30_000);
  });
});
