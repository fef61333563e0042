// The deliveries ingestion makes are handed to the delivery engine with the commit (CommittedRequest.due)
// and queued as they are, not read back from the store — where the engine's queue holds every due
// delivery before them. A retry that falls due first still goes first. Real core, SQLite, receiver.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  vi.restoreAllMocks();
  await core?.dispose();
  core = undefined;
});

async function coreWith(url: string, extra = {}): Promise<TestCore> {
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      // One at a time: the order the engine queues deliveries in is the order the receiver sees.
      destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url, headers: {} }], options: { bodyShape: 'seed', concurrency: 1 } }],
    },
    ...extra,
  });
  core.writeKey = 'wk_web';
  return core;
}

const delivered = (c: TestCore, n: number) => until(() => c.deliveries.countByStatus().delivered === n, 10_000, `${n} deliveries delivered`);

describe('new deliveries handed over with their commit', () => {
  it('are queued without reading the store when the engine holds every due delivery, and all sent in order', async () => {
    const r = await receiver();
    const c = await coreWith(r.url);
    await post(c, '/v1/track', { userId: 'u', event: 'E0' });
    await delivered(c, 1); // the first read of due rows happened; the engine now holds every due one (none)
    const reads = vi.spyOn(c.deliveries, 'dueFor');
    for (let i = 1; i <= 20; i++) expect((await post(c, '/v1/track', { userId: 'u', event: `E${i}` })).status).toBe(200);
    await delivered(c, 21);
    expect(reads).not.toHaveBeenCalled();
    const events = (await r.waitFor(21)).map((request) => JSON.parse(request.body).event as string);
    expect(events).toEqual(Array.from({ length: 21 }, (_, i) => `E${i}`));
  });

  it('a retry that fell due before the new delivery is sent before it (the store is read, in due order)', async () => {
    const r = await receiver();
    r.script({ status: 500 }); // A's first attempt fails: due again 5 s later (random 0.5: no jitter)
    let now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await coreWith(r.url, { clock: { now: () => now }, random: () => 0.5 });
    await post(c, '/v1/track', { userId: 'u', event: 'A' });
    const a = c.messages.list()[0]!.id;
    await until(() => c.deliveries.forMessage(a)[0]?.status === 'retrying', 10_000, "A's retry");
    // 6 s on, A's retry is due (at 5 s) before B (at 6 s). Handed over alone, B would be queued and the
    // read's cursor moved past A's retry: it would wait for the engine's timer, after B.
    now += 6_000;
    await post(c, '/v1/track', { userId: 'u', event: 'B' });
    const events = (await r.waitFor(3, 10_000)).map((request) => JSON.parse(request.body).event as string);
    expect(events).toEqual(['A', 'A', 'B']);
    await delivered(c, 2);
  });

  it('a full queue leaves the rest to a read: every delivery of a burst larger than the queue is sent once', async () => {
    const r = await receiver();
    const c = await coreWith(r.url);
    await post(c, '/v1/track', { userId: 'u', event: 'first' });
    await delivered(c, 1);
    // 600 deliveries in one commit: more than the ready queue takes (256), so the engine reads the rest.
    const batch = Array.from({ length: 600 }, (_, i) => ({ type: 'track', userId: 'u', event: 'burst', properties: { i } }));
    expect((await post(c, '/v1/batch', { batch })).status).toBe(200);
    await delivered(c, 601);
    const sent = (await r.waitFor(601)).slice(1).map((request) => JSON.parse(request.body).properties.i as number);
    expect(sent).toEqual(Array.from({ length: 600 }, (_, i) => i));
  });
});
