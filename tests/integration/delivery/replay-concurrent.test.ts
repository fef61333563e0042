// Replays plan from the store and write later: two asked for at once must not both replay the same
// failed deliveries (the core runs them one after the other).
import { afterEach, describe, expect, it } from 'vitest';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';

let core: TestCore | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

describe('concurrent replays', () => {
  it('two "replay all failed" asked for together replay each failed delivery once', async () => {
    const r = await receiver();
    r.fallback = { status: 400 };
    core = await startCore({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [
          { name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: r.url, headers: {} }], options: { bodyShape: 'seed', concurrency: 8 } },
        ],
      },
    });
    core.writeKey = 'wk_web';
    const c = core;
    await post(c, '/v1/batch', { batch: [1, 2, 3].map((n) => ({ type: 'track', userId: `u${n}`, event: 'Lost' })) });
    await until(() => (c.deliveries.countByStatus().failed === 3 ? true : undefined));
    r.fallback = { status: 200 };
    // Under ingest load the two plans used to be read before either was written.
    const load = post(c, '/v1/batch', { batch: Array.from({ length: 400 }, (_, n) => ({ type: 'track', userId: `l${n}`, event: 'Load' })) });
    const [first, second] = await Promise.all([c.operations['deliveries.replay']({ allFailed: true }), c.operations['deliveries.replay']({ allFailed: true })]);
    await load;
    expect(first.deliveryIds).toHaveLength(3);
    expect(second.deliveryIds).toEqual([]);
    const replayOf = first.deliveryIds.map((id) => c.deliveries.get(id)!.replayOf);
    expect(new Set(replayOf).size).toBe(3);
  });
});
