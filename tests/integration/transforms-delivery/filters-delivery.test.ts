// A destination's filters (issue 28) in real deliveries: a real core (real SQLite, the writer thread
// building bodies ahead), real receivers on loopback. A message a filter drops or samples out is
// recorded `skipped` with the filter's sentence — no attempt, not retried — and never reaches the
// destination, while another destination still gets it; field filters change the body sent; both the
// writer thread's bodies and the engine's own (after a settings change) filter.
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../electron/core/api/contract-handlers.ts';
import type { DestinationConfig } from '../../../shared/settings.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

function webhooks(name: string, r: Receiver, change: Partial<DestinationConfig> = {}): DestinationConfig {
  return { name, enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: `${r.url}/${name}`, headers: {} }], options: { bodyShape: 'full', concurrency: 4 }, ...change };
}

async function setup(destinations: DestinationConfig[]) {
  core = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations } });
  core.writeKey = 'wk_web';
  return core;
}

/** The delivery of the message with this event to this destination. */
function deliveryOf(c: TestCore, event: string, destination: string) {
  const message = c.messages.list().find((m) => m.event === event);
  const id = c.destinations.byName(destination)!.id;
  return message ? c.deliveries.forMessage(message.id).find((d) => d.destinationId === id) : undefined;
}

describe("a destination's filters in its deliveries", () => {
  it('records a dropped message as skipped with the deciding filter, sends it nowhere else of that destination, and filters fields', async () => {
    const r = await receiver();
    const c = await setup([
      webhooks('filtered', r, { filters: [{ if: 'event:"Drop Me"', drop: true }, { if: '', blockFields: ['context'] }] }),
      webhooks('plain', r),
    ]);
    const handlers = createHandlers(c);
    await post(c, '/v1/batch', {
      batch: [
        { type: 'track', userId: 'u', event: 'Drop Me', context: { ip: '10.0.0.1' } },
        { type: 'track', userId: 'u', event: 'Keep Me', context: { ip: '10.0.0.2' } },
      ],
    });
    const skipped = await until(() => {
      const d = deliveryOf(c, 'Drop Me', 'filtered');
      return d?.status === 'skipped' ? d : undefined;
    });
    await until(() => deliveryOf(c, 'Keep Me', 'filtered')?.status === 'delivered');
    await until(() => deliveryOf(c, 'Drop Me', 'plain')?.status === 'delivered' && deliveryOf(c, 'Keep Me', 'plain')?.status === 'delivered');
    await c.delivery.idle();

    // The filter's sentence, no attempt, nothing due: not an error, not retried.
    expect(skipped.skipReason).toBe('dropped by filter 1 (if: event:"Drop Me")');
    expect(skipped.shaping).toBe(skipped.skipReason);
    expect(skipped.attemptCount).toBe(0);
    expect(skipped.nextAttemptAt).toBeNull();
    expect(skipped.lastError).toBeNull();
    expect(c.deliveries.attempts(skipped.id)).toEqual([]);

    const got = (name: string) => r.received.filter((q) => q.path === `/${name}`).map((q) => JSON.parse(q.body) as Record<string, unknown>);
    expect(got('filtered').map((b) => b.event)).toEqual(['Keep Me']);
    // blockFields: the body lacks the field; the other destination's body has it.
    expect(got('filtered')[0]).not.toHaveProperty('context');
    expect(got('plain').map((b) => b.event).sort()).toEqual(['Drop Me', 'Keep Me']);
    for (const body of got('plain')) expect(body).toHaveProperty('context');

    // The kept delivery says what the filters did; the plain destination's says nothing.
    const kept = deliveryOf(c, 'Keep Me', 'filtered')!;
    expect(kept.shaping).toBe('fields filtered by filter 2 (blockFields context)');
    expect(deliveryOf(c, 'Keep Me', 'plain')!.shaping).toBeNull();

    // The views carry it: the contract's delivery and a test's (sluice/testing, the HTTP API).
    const view = await callOk(handlers, 'deliveries.get', { id: skipped.id });
    expect(view).toMatchObject({ status: 'skipped', skipReason: 'dropped by filter 1 (if: event:"Drop Me")', shaping: 'dropped by filter 1 (if: event:"Drop Me")', attempts: [] });
    const tested = await c.queries.deliveries({ destination: 'filtered' });
    expect(tested.map((d) => [d.message?.event, d.status, d.skipReason])).toEqual([
      ['Drop Me', 'skipped', 'dropped by filter 1 (if: event:"Drop Me")'],
      ['Keep Me', 'delivered', null],
    ]);
    expect(tested[1]!.shaping).toBe('fields filtered by filter 2 (blockFields context)');

    // Nothing brings it back: a kick finds nothing due, and the receiver got no more.
    const before = r.received.length;
    c.delivery.kick();
    await c.delivery.idle();
    expect(r.received.length).toBe(before);
    expect(c.deliveries.get(skipped.id)!.status).toBe('skipped');
  });

  it('samples: a sample of 0 skips every matching message with its sentence, a sample of 1 keeps them', async () => {
    const r = await receiver();
    const c = await setup([
      webhooks('none', r, { filters: [{ if: 'event:"Sampled"', sample: 0 }] }),
      webhooks('all', r, { filters: [{ if: 'event:"Sampled"', sample: 1 }] }),
    ]);
    await post(c, '/v1/batch', { batch: Array.from({ length: 4 }, (_, i) => ({ type: 'track', userId: `u${i}`, event: 'Sampled' })) });
    const none = c.destinations.byName('none')!.id;
    const all = c.destinations.byName('all')!.id;
    const of = (id: number) => c.messages.list().flatMap((m) => c.deliveries.forMessage(m.id)).filter((d) => d.destinationId === id);
    await until(() => of(none).length === 4 && of(none).every((d) => d.status === 'skipped'));
    await until(() => of(all).length === 4 && of(all).every((d) => d.status === 'delivered'));
    await c.delivery.idle();
    for (const d of of(none)) {
      expect(d.skipReason).toBe('sampled out by filter 1 (sample 0, if: event:"Sampled")');
      expect(d.attemptCount).toBe(0);
      expect(c.deliveries.attempts(d.id)).toEqual([]);
    }
    expect(r.received.filter((q) => q.path === '/none')).toEqual([]);
    expect(r.received.filter((q) => q.path === '/all')).toHaveLength(4);
  });

  it('keeps only allowFields in the body', async () => {
    const r = await receiver();
    const c = await setup([webhooks('narrow', r, { filters: [{ if: '', allowFields: ['type', 'event', 'userId', 'messageId', 'properties'] }] })]);
    await post(c, '/v1/track', { userId: 'u', event: 'Narrow', properties: { a: 1 }, context: { ip: '10.0.0.3' }, traits: { email: 'x@example.com' } });
    const [request] = await r.waitFor(1);
    const body = JSON.parse(request!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ type: 'track', event: 'Narrow', userId: 'u', properties: { a: 1 } });
    expect(body).not.toHaveProperty('context');
    expect(body).not.toHaveProperty('traits');
  });

  it('drops from a Tracking API forward: the batch carries only the kept messages, the dropped one is skipped', async () => {
    const api = await receiver();
    const c = await setup([
      {
        name: 'upstream', enabled: true, sources: ['web'], kind: 'tracking-api', webhooks: [], options: { bodyShape: 'seed', concurrency: 4 },
        trackingApi: { url: api.url, writeKey: 'wk_up', batchSize: 100, flushMs: 0, gzip: false },
        filters: [{ if: 'event:"Internal"', drop: true }],
      },
    ]);
    await post(c, '/v1/batch', { batch: ['Public', 'Internal', 'Public Too'].map((event) => ({ type: 'track', userId: 'u', event })) });
    await until(() => deliveryOf(c, 'Internal', 'upstream')?.status === 'skipped');
    await until(() => deliveryOf(c, 'Public', 'upstream')?.status === 'delivered' && deliveryOf(c, 'Public Too', 'upstream')?.status === 'delivered');
    await c.delivery.idle();
    const forwarded = api.received.flatMap((q) => (JSON.parse(q.body) as { batch: { event: string }[] }).batch.map((m) => m.event));
    expect(forwarded.sort()).toEqual(['Public', 'Public Too']);
    const skipped = deliveryOf(c, 'Internal', 'upstream')!;
    expect(skipped.skipReason).toBe('dropped by filter 1 (if: event:"Internal")');
    expect(c.deliveries.attempts(skipped.id)).toEqual([]);
  });

  it('filters in the engine’s own path too: deliveries queued with bodies built before a drop filter was saved are skipped', async () => {
    const r = await receiver();
    let open!: () => void;
    r.script({ status: 200, after: new Promise<void>((resolve) => (open = resolve)) });
    const c = await setup([webhooks('hooks', r, { options: { bodyShape: 'full', concurrency: 1 } })]);
    await post(c, '/v1/track', { userId: 'u', event: 'First' });
    await r.waitFor(1); // held at the receiver: the next ones wait in the queue, their bodies built ahead
    await post(c, '/v1/batch', { batch: ['Queued A', 'Queued B'].map((event) => ({ type: 'track', userId: 'u', event })) });
    await until(() => deliveryOf(c, 'Queued B', 'hooks') !== undefined);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the writer has built their bodies
    c.saveDestination(webhooks('hooks', r, { options: { bodyShape: 'full', concurrency: 1 }, filters: [{ if: 'event:"Queued A"', drop: true }] }));
    open();
    await until(() => deliveryOf(c, 'Queued A', 'hooks')?.status === 'skipped' && deliveryOf(c, 'Queued B', 'hooks')?.status === 'delivered');
    await c.delivery.idle();
    expect(r.received.map((q) => (JSON.parse(q.body) as { event: string }).event)).toEqual(['First', 'Queued B']);
    expect(deliveryOf(c, 'Queued A', 'hooks')!.skipReason).toBe('dropped by filter 1 (if: event:"Queued A")');
  });
});
