// deletions.list through the contract: each request with its delete notifications and what became of
// them (delivered, retrying with the receiver's status), newest first.
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function setup() {
  core = await startCore({
    config: {
      sources: [
        { name: 'web', writeKey: 'wk_web', kind: 'web' },
        { name: 'mobile', writeKey: 'wk_mobile', kind: 'mobile' },
      ],
      destinations: [],
    },
  });
  core.writeKey = 'wk_web';
  core.saveDestination({ name: 'erasure', sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: core.receiver.hookUrl('erasure') }] });
  core.saveDestination({ name: 'app', sources: ['mobile'], webhooks: [{ url: core.receiver.hookUrl('app') }] });
  return { core, handlers: createHandlers(core) };
}

describe('deletions.list', () => {
  it('shows a request with its delete notification, delivered and signed, and the purge count', async () => {
    const { core, handlers } = await setup();
    await post(core, '/v1/batch', { batch: [{ type: 'track', userId: 'u_1', event: 'A' }, { type: 'track', userId: 'u_1', event: 'B' }, { type: 'track', userId: 'u_2', event: 'C' }] });
    await until(() => (core.deliveries.countByStatus().delivered === 3 ? true : undefined));
    const created = await callOk(handlers, 'deletions.create', { userId: 'u_1', purge: true });

    await until(
      () => {
        const request = core.deletionRequests.recent(10)[0];
        const deliveries = request ? core.deliveries.forDeletionRequest(request.id) : [];
        return deliveries[0]?.status === 'delivered' ? true : undefined;
      },
      10_000,
      'the delete notification to be delivered',
    );
    const { requests } = await callOk(handlers, 'deletions.list', {});
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request).toMatchObject({
      id: created.deletionRequestId,
      userId: 'u_1',
      purge: true,
      sourceIds: [core.sources.byName('web')!.id],
      purgedMessages: 2,
    });
    expect(request!.requestedAt).toBeGreaterThan(0);
    expect(request!.deliveries).toHaveLength(1);
    const [delivery] = request!.deliveries;
    expect(delivery).toMatchObject({ id: created.deliveryIds[0], trigger: 'deletion', status: 'delivered', replayOf: null });
    expect(delivery!.destinationId).toBe(core.destinations.list().find((d) => d.name === 'erasure')!.id);
    expect(JSON.parse(delivery!.body!)).toMatchObject({ type: 'delete', userId: 'u_1' });
    expect(delivery!.attempts).toHaveLength(1);
    expect(delivery!.attempts[0]).toMatchObject({ responseStatus: 200, outcome: 'success', url: core.receiver.hookUrl('erasure') });
    const inbox = core.receiver.inbox('erasure').filter((e) => e.body.includes('"delete"'));
    expect(inbox.map((e) => e.signature)).toEqual(['valid']);
  });

  it('shows a notification the receiver refuses as retrying, with the status it answered', async () => {
    const { core, handlers } = await setup();
    core.receiver.setBehaviour('erasure', { mode: 'status', status: 503 });
    await post(core, '/v1/track', { userId: 'u_9', event: 'A' });
    await until(() => (core.receiver.inbox('erasure').length === 1 ? true : undefined));
    await callOk(handlers, 'deletions.create', { userId: 'u_9' });
    const retrying = await until(() => {
      const [request] = core.deletionRequests.recent(1);
      const [d] = request ? core.deliveries.forDeletionRequest(request.id) : [];
      return d?.status === 'retrying' ? d : undefined;
    });
    const { requests } = await callOk(handlers, 'deletions.list', {});
    const [view] = requests[0]!.deliveries;
    expect(view).toMatchObject({ id: retrying.id, status: 'retrying', attemptCount: 1 });
    expect(view!.nextAttemptAt).toBeGreaterThan(view!.attempts[0]!.startedAt);
    expect(view!.attempts[0]).toMatchObject({ responseStatus: 503, outcome: 'retry' });
    expect(requests[0]!.purge).toBe(false);
    expect(requests[0]!.purgedMessages).toBe(0);
  });

  it('lists newest first, honours the limit, and keeps a request that reached no destination', async () => {
    const { core, handlers } = await setup();
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_mobile' }, '/v1/track', { userId: 'u_m', event: 'A' });
    await callOk(handlers, 'deletions.create', { userId: 'nobody' });
    await callOk(handlers, 'deletions.create', { userId: 'u_m' });
    const { requests } = await callOk(handlers, 'deletions.list', {});
    expect(requests.map((r) => r.userId)).toEqual(['u_m', 'nobody']);
    expect(requests[1]).toMatchObject({ sourceIds: [], deliveries: [] });
    // u_m's only source is mobile, so only its destination is notified.
    expect(requests[0]!.deliveries.map((d) => d.destinationId)).toEqual([core.destinations.list().find((d) => d.name === 'app')!.id]);
    expect((await callOk(handlers, 'deletions.list', { limit: 1 })).requests.map((r) => r.userId)).toEqual(['u_m']);
    expect(await invoke(handlers, 'deletions.list', { limit: 0 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });
});
