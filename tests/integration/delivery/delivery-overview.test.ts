// The delivery overview (issue 29, overview.deliveries) against a real core: a real SQLite store, real
// receivers on loopback answering 200, 500 and 410, a tracking plan that blocks, a destination filter
// that drops, a message whose integrations turn webhooks off, and messages received two hours before
// the others (an injected clock). Each destination's funnel must count its automatic deliveries by
// step, and each step's query (delivery:"name:step") must list exactly those messages in the store
// (messages.list, over the window's from–at) and in JavaScript (shared/message-match.ts on each row's
// deliveries): the three answers are compared on every step of every destination.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { createHandlers, invoke, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import type { DeliveryOverview, DestinationFunnel } from '../../../shared/channels/overview.ts';
import type { MessageSummary, Result } from '../../../shared/contract.ts';
import { messageMatcher, type RowFacts } from '../../../shared/message-match.ts';
import { DELIVERY_STEPS, deliveryStepQuery, QueryError, parseQuery, type DeliveryStep } from '../../../shared/message-query.ts';
import { filterQuerySchema } from '../../../shared/destination-filters.ts';
import type { DestinationConfig } from '../../../shared/settings.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { okDownGoneReceivers, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const HOUR = 3_600_000;
let now = Date.now() - 2 * HOUR;
const clock = { now: () => now };
let core: TestCore;
let handlers: Handlers;
const receivers: Receiver[] = [];

function webhooks(name: string, r: Receiver, change: Partial<DestinationConfig> = {}): DestinationConfig {
  return { name, enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: `${r.url}/${name}`, headers: {} }], options: { bodyShape: 'full', concurrency: 4 }, ...change };
}

beforeAll(async () => {
  const { ok, down, gone } = await okDownGoneReceivers();
  receivers.push(ok, down, gone);
  core = await startCore({
    clock,
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [
        webhooks('shop', ok, { filters: [{ if: 'event:Debug*', drop: true }] }),
        webhooks('crm', down),
        webhooks('legacy', gone),
      ],
      trackingPlans: [{ name: 'strict', sources: ['web'], unplanned: 'allow', violations: 'block', plan: { events: { Checkout: { type: 'object', required: ['total'] } } } }],
    },
  });
  core.writeKey = 'wk_web';
  handlers = createHandlers(core);
  // Two hours ago: two orders. Then, now: orders, debug events, a blocked checkout, a quiet message.
  await post(core, '/v1/batch', { batch: [order('old-1'), order('old-2')] });
  await until(() => core.messages.list().length === 2);
  now += 2 * HOUR;
  await post(core, '/v1/batch', {
    batch: [
      order('new-1'),
      order('new-2'),
      order('new-3'),
      { type: 'track', userId: 'u', messageId: 'debug-1', event: 'Debug Ping' },
      { type: 'track', userId: 'u', messageId: 'debug-2', event: 'Debug Pong' },
      { type: 'track', userId: 'u', messageId: 'blocked-1', event: 'Checkout', properties: {} },
      { type: 'track', userId: 'u', messageId: 'quiet-1', event: 'Quiet', integrations: { All: false } },
    ],
  });
  // Settled: nothing pending (crm retries later: the clock stands still).
  // Settled: shop delivered what it sends, crm retrying (later: the clock stands still), legacy's URL
  // gone after its first 410 (its other deliveries wait, pending).
  const states = (name: string) => {
    const id = core.destinations.byName(name)!.id;
    return core.messages.list().flatMap((m) => core.deliveries.forMessage(m.id).filter((d) => d.destinationId === id).map((d) => d.status));
  };
  await until(
    () => core.messages.list().length === 9 && states('shop').filter((s) => s === 'delivered').length === 5 && states('crm').filter((s) => s === 'retrying').length === 7 && states('legacy').includes('failed'),
    20_000,
  );
  await core.delivery.idle();
  await core.delivery.idle();
}, 60_000);

afterAll(async () => {
  await core?.dispose();
  await Promise.all(receivers.map((r) => r.close()));
});

function order(messageId: string) {
  return { type: 'track', userId: 'u', messageId, event: 'Order Completed', properties: { total: 10 } };
}

const overview = (window: string) => callOk(handlers, 'overview.deliveries', { window }) as Promise<DeliveryOverview>;
const funnel = (o: DeliveryOverview, name: string): DestinationFunnel => o.destinations.find((d) => d.name === name)!;

/** The funnel's count of a step. */
function countOf(f: DestinationFunnel, step: DeliveryStep): number {
  if (step.startsWith('skipped-')) return f.skipped[step.slice('skipped-'.length) as keyof DestinationFunnel['skipped']];
  if (step === 'skipped') return f.skipped.total;
  return f[step as 'received' | 'attempted' | 'pending' | 'delivered' | 'retrying' | 'failed' | 'cancelled'];
}

/** Every stored message with its automatic deliveries, as the JavaScript side reads them. */
function rows(): { id: number; message: Record<string, unknown>; receivedAt: number; facts: RowFacts }[] {
  const names = new Map(core.destinations.list().map((d) => [d.id, d.name]));
  return core.messages.list({ limit: 1000 }).map((m) => {
    const detail = core.messages.get(m.id)!;
    return {
      id: m.id,
      message: JSON.parse(detail.raw) as Record<string, unknown>,
      receivedAt: m.receivedAt,
      facts: {
        deliveries: core.deliveries
          .forMessage(m.id)
          .filter((d) => d.trigger === 'automatic')
          .map((d) => ({ destination: names.get(d.destinationId)!, status: d.status, skipReason: d.skipReason })),
      },
    };
  });
}

describe('the delivery overview', () => {
  it('counts each destination by step, and each skip by its kind and reason', async () => {
    const o = await overview('1h');
    expect(Date.parse(o.at) - Date.parse(o.from!)).toBe(HOUR);
    const shop = funnel(o, 'shop');
    expect(shop).toMatchObject({ received: 7, attempted: 3, delivered: 3, retrying: 0, failed: 0, pending: 0 });
    expect(shop.skipped).toEqual({ plan: 1, filter: 2, transform: 0, integrations: 1, other: 0, total: 4 });
    expect(shop.reasons.map((r) => [r.kind, r.count])).toEqual([['filter', 2], ['plan', 1], ['integrations', 1]]);
    expect(shop.reasons[0]!.reason).toBe('dropped by filter 1 (if: event:Debug*)');
    const crm = funnel(o, 'crm');
    expect(crm).toMatchObject({ received: 7, attempted: 5, delivered: 0, retrying: 5 });
    expect(crm.skipped.total).toBe(2);
    const legacy = funnel(o, 'legacy');
    expect(legacy.received).toBe(7);
    expect(legacy.failed + legacy.pending).toBe(5);
    expect(legacy.attempted).toBe(legacy.failed);
    // The window: all time holds the two orders of two hours ago too.
    const all = await overview('all');
    expect(all.from).toBeNull();
    expect(funnel(all, 'shop')).toMatchObject({ received: 9, delivered: 5 });
    // legacy's first round met the 410 (the two old orders at least): failed, the rest wait.
    expect(funnel(all, 'legacy').failed).toBeGreaterThan(0);
    expect(funnel(all, 'legacy').failed + funnel(all, 'legacy').pending).toBe(7);
    expect(funnel(await overview('10m'), 'crm').received).toBe(7);
  });

  it.each(['1h', 'all'])("lists each step's messages exactly, in the store and in JavaScript (window %s)", async (window) => {
    const o = await overview(window);
    const all = rows();
    const from = o.from === null ? undefined : Date.parse(o.from);
    const to = Date.parse(o.at);
    let nonEmpty = 0;
    for (const f of o.destinations) {
      for (const step of DELIVERY_STEPS) {
        const query = deliveryStepQuery(f.name, step);
        const listed = (await invoke(handlers, 'messages.list', { search: query, limit: 1000, ...(from !== undefined ? { from } : {}), to })) as Result<{ messages: MessageSummary[] }>;
        if (!listed.ok) throw new Error(`${query}: ${listed.error.message}`);
        const inStore = listed.value.messages.map((m) => m.id).sort((a, b) => a - b);
        const matcher = messageMatcher(query);
        const inJs = all.filter((r) => (from === undefined || r.receivedAt >= from) && r.receivedAt <= to && matcher.matches(r.message, r.facts)).map((r) => r.id).sort((a, b) => a - b);
        expect(inStore, `${query}: the store`).toEqual(inJs);
        expect(inStore.length, `${query}: the funnel's count`).toBe(countOf(f, step));
        if (inStore.length > 0) nonEmpty++;
      }
    }
    // Not a vacuous agreement: most steps of the three destinations hold messages.
    expect(nonEmpty).toBeGreaterThanOrEqual(15);
  });

  it('refuses a delivery clause without a destination, and reads a name with colons', () => {
    expect(() => parseQuery('delivery::failed')).toThrow(QueryError);
    expect(parseQuery('delivery:"a:b:failed"')).toEqual([{ kind: 'column', negated: false, field: 'delivery', value: 'a:b:failed' }]);
    expect(deliveryStepQuery('my shop', 'skipped-plan')).toBe('delivery:"my shop:skipped-plan"');
    // A destination's filter decides before there is a delivery: it may not test one.
    const refused = filterQuerySchema.safeParse('type:track delivery:shop:failed');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toMatch(/^delivery: is the outcome of the message's deliveries/);
  });

  it('is served read-only by the HTTP API, GET /api/v1/overview', async () => {
    const ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
    await ui.listen();
    try {
      const get = async (query: string) => {
        const res = await request(`${ui.apiUrl}/overview${query}`, { headers: { authorization: `Bearer ${ui.token}` } });
        return { status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> };
      };
      const ok = await get('?window=1h');
      expect(ok.status).toBe(200);
      expect((ok.json as unknown as DeliveryOverview).destinations.map((d) => [d.name, d.received, d.delivered, d.skipped.total])).toEqual(
        (await overview('1h')).destinations.map((d) => [d.name, d.received, d.delivered, d.skipped.total]),
      );
      expect((await get('')).json.window).toBe('24h');
      const bad = await get('?window=3d');
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ error: { code: 'invalid_request' } });
      expect((await get('?windw=1h')).status).toBe(400);
    } finally {
      await ui.close();
    }
  });

  it('refuses an unknown window with a sentence', async () => {
    const result = await invoke(handlers, 'overview.deliveries', { window: '3d' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/window must be one of 10m, 1h, 24h, 7d, all/);
  });

  // Last: it forgets every delivery. The hourly counts go with them (a count left behind would show
  // messages the stream no longer has).
  it('counts nothing once the deliveries are gone (a reset)', async () => {
    expect(funnel(await overview('all'), 'shop').received).toBe(9);
    await core.reset();
    for (const f of (await overview('all')).destinations) expect([f.name, f.received, f.delivered, f.skipped.total]).toEqual([f.name, 0, 0, 0]);
  });
});
