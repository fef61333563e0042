// Queued deliveries' bodies are built ahead, in the store's writer thread (delivery/prepare-bodies.ts).
// A body built ahead must never be sent when it no longer matches what the round would build: after
// a settings change (secret, body shape) or a purge of its message.
import { afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../../shared/signature.ts';
import { post, startCore, type TestCore } from '../helpers/core.ts';
import { receiversClosedAfterEach } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

let core: TestCore | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function setup(hookUrl: string) {
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [
        {
          name: 'hooks',
          enabled: true,
          sources: ['web'],
          sharedSecret: 'abc123',
          webhooks: [{ url: hookUrl, headers: {} }],
          // One at a time: while the first request is held, the others wait in the ready queue with
          // their bodies built.
          options: { bodyShape: 'seed', concurrency: 1 },
        },
      ],
    },
  });
  core.writeKey = 'wk_web';
  return core;
}

/** Long enough for the writer to have built the queued bodies (it takes a few ms). */
const bodiesBuilt = () => new Promise((resolve) => setTimeout(resolve, 300));

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('bodies built ahead', () => {
  it('are not sent after the secret and body shape changed: the queued deliveries go out as the new settings say', async () => {
    const r = await receiver();
    const first = gate();
    r.script({ status: 200, after: first.opened });
    const c = await setup(r.url);
    await post(c, '/v1/batch', { batch: ['A', 'B', 'C'].map((event) => ({ type: 'track', userId: 'u', event })) });
    await r.waitFor(1);
    await bodiesBuilt();
    c.saveDestination({
      name: 'hooks',
      sources: ['web'],
      sharedSecret: 'rotated',
      webhooks: [{ url: r.url, headers: {} }],
      options: { bodyShape: 'full', concurrency: 1 },
    });
    first.open();
    const [held, ...queued] = await r.waitFor(3);
    expect(held!.headers['x-signature']).toBe(signBody(held!.body, 'abc123'));
    expect(queued).toHaveLength(2);
    for (const request of queued) {
      expect(request.headers['x-signature']).toBe(signBody(request.body, 'rotated'));
      // The whole message (bodyShape "full") carries its messageId; the seed body does not.
      expect(JSON.parse(request.body)).toHaveProperty('messageId');
    }
  });

  it('are not sent after their message was purged: those deliveries fail without sending', async () => {
    const r = await receiver();
    const first = gate();
    r.script({ status: 200, after: first.opened });
    const c = await setup(r.url);
    await post(c, '/v1/track', { userId: 'bob', event: 'Kept' });
    await r.waitFor(1);
    await post(c, '/v1/batch', { batch: ['A', 'B', 'C'].map((event) => ({ type: 'track', userId: 'alice', event })) });
    await bodiesBuilt();
    const aliceDeliveries = c.messages
      .list()
      .filter((m) => m.userId === 'alice')
      .flatMap((m) => c.deliveries.forMessage(m.id).map((d) => d.id));
    expect(aliceDeliveries).toHaveLength(3);
    const deletion = await c.requestDeletion({ userId: 'alice', purge: true });
    expect(deletion.purgedMessages).toBe(3);
    first.open();
    await until(() => aliceDeliveries.every((id) => c.deliveries.get(id)?.status === 'failed'));
    await c.delivery.idle();
    const tracks = r.received.map((request) => JSON.parse(request.body) as { type: string; userId: string }).filter((b) => b.type === 'track');
    expect(tracks.map((b) => b.userId)).toEqual(['bob']);
    for (const id of aliceDeliveries) expect(c.deliveries.get(id)?.lastError).toMatch(/no longer stored/);
  });
});
