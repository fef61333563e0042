// Disabling a destination stops deliveries the engine had already read into its ready queue, not
// only those it reads later: they stay pending in the store and go out once it is enabled again.
import { afterEach, expect, it } from 'vitest';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

it('a destination disabled while deliveries are queued sends none of them until it is enabled again', async () => {
  const r = await receiver();
  r.script({ hang: true }); // the first delivery holds the destination's only slot until it times out
  const destination = {
    name: 'hooks',
    enabled: true,
    sources: ['web'],
    webhooks: [{ url: r.url, headers: {} }],
    options: { bodyShape: 'seed' as const, concurrency: 1 },
  };
  const c = (core = await startCore({
    webhookTimeoutMs: 300,
    config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [destination] },
  }));
  c.writeKey = 'wk_web';
  await post(c, '/v1/batch', { batch: ['A', 'B', 'C'].map((event) => ({ type: 'track', userId: 'u', event })) });
  await r.waitFor(1);
  const id = c.destinations.byName('hooks')!.id;

  c.saveDestination({ ...destination, id, enabled: false });
  const messageIds = c.messages.list().map((m) => m.id);
  const first = await until(() => c.deliveries.forMessage(Math.min(...messageIds)).find((d) => d.status === 'retrying'));
  await new Promise((resolve) => setTimeout(resolve, 300)); // the freed slot had its chance to start another
  expect(r.received).toHaveLength(1);
  const others = messageIds.filter((m) => m !== first.messageId).flatMap((m) => c.deliveries.forMessage(m));
  expect(others.map((d) => d.status)).toEqual(['pending', 'pending']);

  c.saveDestination({ ...destination, id, enabled: true });
  await until(() => (others.every((d) => c.deliveries.get(d.id)?.status === 'delivered') ? true : undefined));
  expect(r.received.length).toBeGreaterThanOrEqual(3);
});
