// Tracking plans in a real core: messages checked at ingestion against the plan of their source,
// violations stored with them, blocking, Violation Generated events, a plan file reloaded when it
// changes, re-checks, stats and add-to-plan — through real HTTP, a real SQLite store and a real receiver.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import type { RecheckProgress, TrackingPlan } from '../../../shared/tracking-plan.ts';
import { post, startCore, storedMessages, tempDir, waitForStored, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const PLAN: TrackingPlan = {
  events: {
    'Order Completed': {
      type: 'object',
      properties: { price: { type: 'number' }, currency: { enum: ['EUR', 'USD'] } },
      required: ['price'],
    },
    'Product Viewed': { type: 'object', properties: { sku: { type: 'string' } }, additionalProperties: false },
  },
  identify: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
  context: { type: 'object', properties: { app: { type: 'object', required: ['version'] } } },
};

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function start(plans: unknown[], options: { receiver?: Receiver; forward?: Receiver } = {}): Promise<TestCore> {
  const config = parseConfig(
    JSON.stringify({
      sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'server', writeKey: 'wk_server' }],
      destinations: [
        ...(options.receiver ? [{ name: 'hooks', sources: ['web'], webhooks: [{ url: options.receiver.url }] }] : []),
        ...(options.forward ? [{ name: 'violations', webhooks: [{ url: options.forward.url }], options: { bodyShape: 'full' } }] : []),
      ],
      trackingPlans: plans,
    }),
  );
  const core = await startCore({ config });
  open.push({ close: () => core.dispose() });
  return Object.assign(core, { writeKey: 'wk_web' });
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  open.push(r);
  return r;
}

const track = (event: string, properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'track', event, userId: 'u1', properties, context: { app: { version: '1.2.0' } }, ...extra,
});

describe('tracking plans at ingestion', () => {
  it('stores each violation with the message, in the taxonomy, and delivers flagged messages as usual', async () => {
    const hooks = await receiver();
    const core = await start([{ name: 'web plan', sources: ['web'], plan: PLAN }], { receiver: hooks });
    const res = await post(core, '/v1/batch', {
      batch: [
        track('Order Completed', { price: 12, currency: 'EUR' }, { messageId: 'ok' }),
        track('Order Completed', { price: '12', currency: 'GBP' }, { messageId: 'bad' }),
        track('Product Viewed', { sku: 'a', colour: 'red' }, { messageId: 'extra' }),
        track('Order Complete', { price: 1 }, { messageId: 'unplanned' }),
        { type: 'identify', userId: 'u1', traits: { email: 'bob' }, messageId: 'id', context: { app: {} } },
      ],
    });
    expect(res.status).toBe(200);
    const byId = new Map(storedMessages(core).map((m) => [m.messageId, m]));
    expect(byId.get('ok')!.violationList).toEqual([]);
    expect(byId.get('ok')!.violations).toBe(0);
    const bad = byId.get('bad')!.violationList;
    expect(bad.map((v) => [v.type, v.path])).toEqual([
      ['Datatype-Mismatch', '/properties/price'],
      ['Unknown-Violation', '/properties/currency'],
    ]);
    expect(bad[0]!.message).toContain('price must be a number; got the string "12"');
    expect(bad.every((v) => v.plan === 'web plan')).toBe(true);
    expect(byId.get('extra')!.violationList.map((v) => [v.type, v.path])).toEqual([['Additional-Properties', '/properties/colour']]);
    expect(byId.get('unplanned')!.violationList).toMatchObject([{ type: 'Unplanned-Event', path: '/event' }]);
    expect(byId.get('unplanned')!.violationList[0]!.message).toContain('Order Completed'); // the suggestion
    const identify = byId.get('id')!.violationList.map((v) => [v.type, v.path]);
    expect(identify).toContainEqual(['Unknown-Violation', '/traits/email']);
    expect(identify).toContainEqual(['Required-Missing', '/context/app/version']);
    // flag: every message is still delivered
    await hooks.waitFor(5);
    expect(storedMessages(core).every((m) => m.blocked === undefined)).toBe(true);
  });

  it('checks batch-level context merged under the message, and only the sources the plan names', async () => {
    const core = await start([{ name: 'web plan', sources: ['web'], plan: PLAN }]);
    await post(core, '/v1/batch', { context: { app: { version: '2.0' } }, batch: [{ type: 'track', event: 'Order Completed', userId: 'u', properties: { price: 1 } }] });
    await post(core, '/v1/batch', { batch: [track('Anything', { price: 'x' }, { context: {} })] }, { writeKey: 'wk_server' });
    const [web, server] = storedMessages(core);
    expect(web!.violationList).toEqual([]);
    expect(server!.violationList).toEqual([]); // "server" has no plan
  });

  it('blocks: the message is stored and shown, its deliveries skipped with the reason; unplanned allow lets new events through', async () => {
    const hooks = await receiver();
    const core = await start([{ name: 'strict', sources: ['web'], plan: PLAN, violations: 'block', unplanned: 'allow' }], { receiver: hooks });
    await post(core, '/v1/batch', {
      batch: [
        track('Order Completed', { price: '12' }, { messageId: 'blocked' }),
        track('Order Completed', { price: 12 }, { messageId: 'fine' }),
        track('Brand New', { x: 1 }, { messageId: 'new' }),
      ],
    });
    await hooks.waitFor(2);
    // The two requests' results are recorded after their answers (the engine commits them in groups):
    // wait for them, rather than count on the pause below being long enough.
    const delivered = (messageId: string) => {
      const message = storedMessages(core).find((m) => m.messageId === messageId);
      return message !== undefined && core.deliveries.forMessage(message.id)[0]?.status === 'delivered';
    };
    await until(() => delivered('fine') && delivered('new'), 10_000, 'the two deliveries recorded');
    await new Promise((r) => setTimeout(r, 300));
    expect(hooks.received.length).toBe(2);
    const byId = new Map(storedMessages(core).map((m) => [m.messageId, m]));
    expect(byId.get('new')!.violationList).toEqual([]);
    const blocked = byId.get('blocked')!;
    expect(blocked.blocked).toMatch(/^blocked by the tracking plan "strict": properties\.price must be a number; got the string "12"$/);
    const [delivery] = core.deliveries.forMessage(blocked.id);
    expect(delivery).toMatchObject({ status: 'skipped', skipReason: blocked.blocked });
    expect(core.deliveries.forMessage(byId.get('fine')!.id)[0]!.status).toBe('delivered');
  });

  it('unplanned block stops an unplanned event and only that', async () => {
    const hooks = await receiver();
    const core = await start([{ name: 'p', sources: ['web'], plan: PLAN, unplanned: 'block' }], { receiver: hooks });
    await post(core, '/v1/batch', { batch: [track('Nope', {}, { messageId: 'n' }), track('Order Completed', { price: '1' }, { messageId: 'flagged' })] });
    await hooks.waitFor(1);
    const byId = new Map(storedMessages(core).map((m) => [m.messageId, m]));
    expect(byId.get('n')!.blocked).toContain('is not in the plan');
    expect(byId.get('flagged')!.blocked).toBeUndefined();
  });

  it('forwards each violation as a Violation Generated track event to the chosen destination only', async () => {
    const hooks = await receiver();
    const sink = await receiver();
    const core = await start([{ name: 'web plan', sources: ['web'], plan: PLAN, forwardViolationsTo: 'violations' }], { receiver: hooks, forward: sink });
    await post(core, '/v1/batch', { batch: [track('Order Completed', { price: '12', currency: 'GBP' }, { messageId: 'bad' }), track('Order Completed', { price: 3 })] });
    const got = await sink.waitFor(2);
    const events = got.map((r) => JSON.parse(r.body) as Record<string, any>);
    expect(events.every((e) => e.type === 'track' && e.event === 'Violation Generated')).toBe(true);
    expect(events.map((e) => e.properties.violationType).sort()).toEqual(['Datatype-Mismatch', 'Unknown-Violation']);
    const price = events.find((e) => e.properties.violationType === 'Datatype-Mismatch')!;
    expect(price).toMatchObject({ userId: 'schema-violations', integrations: {} });
    expect(price.properties).toMatchObject({
      eventMessageID: 'bad', eventName: 'Order Completed', eventType: 'track', sourceName: 'web', sourceSlug: 'web',
      trackingPlanName: 'web plan', violationField: 'properties.price', appVersion: '1.2.0',
    });
    expect(price.properties.violationDescription).toContain('must be a number');
    // the generated events go to that destination alone, and are stored (origin plan) without being checked
    await hooks.waitFor(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(hooks.received.length).toBe(2);
    const generated = storedMessages(core).filter((m) => m.origin === 'plan');
    expect(generated.length).toBe(2);
    expect(generated.every((m) => m.violations === 0)).toBe(true);
    // a retried duplicate of the violating message generates nothing more
    await post(core, '/v1/batch', { batch: [track('Order Completed', { price: '12' }, { messageId: 'bad' })] });
    await new Promise((r) => setTimeout(r, 300));
    expect(storedMessages(core).filter((m) => m.origin === 'plan').length).toBe(2);
  });
});

describe('plan files, reloads, re-checks, stats', () => {
  it('reloads a plan file when it changes; a broken edit keeps the version in use and says why', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, JSON.stringify(PLAN));
    const core = await start([{ name: 'file plan', sources: ['web'], file }]);
    const first = core.plans.view('file plan');
    expect(first).toMatchObject({ file, format: 'sluice', error: null });
    await post(core, '/v1/track', track('Order Completed', { price: 5, coupon: 1 }));

    const changed = new Promise((resolve) => core.bus.on('plans.changed', resolve));
    const stricter = structuredClone(PLAN) as any;
    stricter.events['Order Completed'].additionalProperties = false;
    fs.writeFileSync(file, JSON.stringify(stricter));
    await changed;
    expect(core.plans.view('file plan').version).not.toBe(first.version);
    await post(core, '/v1/track', track('Order Completed', { price: 5, coupon: 1 }));
    const [before, after] = storedMessages(core);
    expect(before!.violationList).toEqual([]);
    expect(after!.violationList.map((v) => v.type)).toEqual(['Additional-Properties']);

    fs.writeFileSync(file, '{ "events": ');
    const failed = await until(() => core.plans.view('file plan').error ?? undefined, 5000, 'the reload error');
    expect(failed).toContain('JSON');
    expect(core.plans.view('file plan').plan).toEqual(stricter); // the last good version stays

    // Saved as vim, many editors and git checkout write: a new file renamed over the old one.
    const relaxed = structuredClone(PLAN) as any;
    relaxed.events['Order Completed'].properties.note = { type: 'string' };
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(relaxed));
    fs.renameSync(`${file}.tmp`, file);
    await until(() => (core.plans.view('file plan').error === null ? true : undefined), 5000, 'the renamed file loaded');
    expect(core.plans.view('file plan').plan).toEqual(relaxed);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start on a plan that cannot be used, naming it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, JSON.stringify({ events: { A: { type: 'object', properties: { x: { pattern: '([' } } } } }));
    await expect(start([{ name: 'broken', file }])).rejects.toThrow(/trackingPlans\[0\] \("broken"\).*A/s);
    // sluice serve --config names the file, as for any other mistake in it (it said "--config: …")
    const configFile = path.join(dir, 'sluice.json');
    const named = startCore({ config: parseConfig(JSON.stringify({ trackingPlans: [{ name: 'broken', file }] })), configFile });
    await expect(named).rejects.toThrow(new RegExp(`^${configFile.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: trackingPlans\\[0\\] \\("broken"\\)`));
    await expect(start([{ name: 'p', sources: ['nobody'], plan: PLAN }])).rejects.toThrow(/trackingPlans\[0\]\.sources\[0\]: unknown source "nobody"/);
    expect(() => parseConfig(JSON.stringify({ trackingPlans: [{ name: 'x' }] }))).toThrow(/give exactly one of file/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('counts seen and violated per planned event, lists unplanned ones, and adds one to the plan file from stored examples', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, JSON.stringify(PLAN));
    const core = await start([{ name: 'p', sources: ['web'], file }]);
    await post(core, '/v1/batch', {
      batch: [
        track('Order Completed', { price: 1 }),
        track('Order Completed', { price: 'x' }),
        track('Coupon Applied', { code: 'A', amount: 5 }),
        track('Coupon Applied', { code: 'B', amount: 2.5 }),
      ],
    });
    const stats = core.operations['plans.stats']({ name: 'p' }) as Awaited<ReturnType<TestCore['operations']['plans.stats']>>;
    expect(stats.planned.find((s) => s.event === 'Order Completed')).toMatchObject({ seen: 2, violated: 1 });
    expect(stats.planned.find((s) => s.event === 'Product Viewed')).toMatchObject({ seen: 0, violated: 0, lastSeenAt: null });
    expect(stats.unplanned).toMatchObject([{ type: 'track', event: 'Coupon Applied', seen: 2, violated: 2 }]);

    const added = await core.operations['plans.addEvent']({ name: 'p', type: 'track', event: 'Coupon Applied' });
    expect(added.examples).toBe(2);
    const written = JSON.parse(fs.readFileSync(file, 'utf8')) as TrackingPlan;
    expect(written.events['Coupon Applied']).toEqual(added.schema);
    expect(Object.keys(written.events)).toEqual(['Order Completed', 'Product Viewed', 'Coupon Applied']);
    await post(core, '/v1/track', track('Coupon Applied', { code: 'C', amount: 'lots' }));
    expect(storedMessages(core).at(-1)!.violationList.map((v) => v.path)).toEqual(['/properties/amount']);
    await expect(Promise.resolve().then(() => core.operations['plans.addEvent']({ name: 'p', type: 'track', event: 'Never Seen' }))).rejects.toThrow(/no stored "Never Seen" event/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('re-checks stored messages against a changed plan, with progress, without touching deliveries', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, JSON.stringify({ events: { 'Order Completed': { type: 'object' } } }));
    const hooks = await receiver();
    const core = await start([{ name: 'p', sources: ['web'], file, unplanned: 'allow' }], { receiver: hooks });
    const batch = Array.from({ length: 2500 }, (_, i) => track('Order Completed', { price: i % 2 ? 'x' : i }));
    const stored = waitForStored(core, 2500);
    await post(core, '/v1/batch', { batch: batch.slice(0, 1250) });
    await post(core, '/v1/batch', { batch: batch.slice(1250) });
    await stored;
    expect(core.messages.list({ violations: true, limit: 10 })).toEqual([]);

    const changed = new Promise((resolve) => core.bus.on('plans.changed', resolve));
    fs.writeFileSync(file, JSON.stringify(PLAN));
    await changed;
    const progress: RecheckProgress[] = [];
    core.bus.on('plans.recheck', (p) => progress.push(p));
    const started = await core.operations['plans.recheck']({});
    expect(started).toMatchObject({ state: 'running', total: 2500, done: 0 });
    expect(() => core.operations['plans.recheck']({})).toThrow(/a re-check is under way/);
    await until(() => progress.at(-1)?.state === 'finished', 20_000, 'the re-check to finish');
    expect(progress.at(-1)).toMatchObject({ done: 2500, total: 2500, changed: 1250 });
    expect(core.messages.list({ violations: true, limit: 5000 }).length).toBe(1250);
    expect(core.messages.list({ violations: false, limit: 5000 }).length).toBe(1250);
    // Nothing blocked after the fact: every message's delivery stays as it was
    await hooks.waitFor(2500, 30_000);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('violations in tests and CI', () => {
  it('sluice/testing messages carry violations and a violations filter; the HTTP API too', async () => {
    const { startSluice } = await import('../../../electron/testing/index.ts');
    const { Analytics } = await import('@segment/analytics-node');
    const hooks = await receiver();
    const sluice = await startSluice({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web' }],
        destinations: [{ name: 'hooks', sources: ['web'], webhooks: [{ url: hooks.url }] }],
        trackingPlans: [{ name: 'plan', plan: PLAN, violations: 'block' }],
      },
    });
    open.push(sluice);
    const analytics = new Analytics({ writeKey: 'wk_web', host: sluice.ingestUrl, flushAt: 3 });
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { price: 10 }, context: { app: { version: '1' } } });
    analytics.track({ userId: 'u1', event: 'Order Completed', properties: { price: 'ten' }, context: { app: { version: '1' } } });
    analytics.track({ userId: 'u1', event: 'Order Complete', properties: {}, context: { app: { version: '1' } } });
    await analytics.closeAndFlush();
    await sluice.waitForMessages({}, { count: 3 });
    const bad = await sluice.messages({ violations: true });
    expect(bad.map((m) => m.event)).toEqual(['Order Completed', 'Order Complete']);
    expect(bad[0]!.violations).toEqual([
      { type: 'Datatype-Mismatch', path: '/properties/price', message: expect.stringContaining('must be a number; got the string "ten"'), plan: 'plan' },
    ]);
    expect(bad[0]!.blocked).toMatch(/^blocked by the tracking plan "plan"/);
    const [good] = await sluice.messages({ violations: false });
    expect(good).toMatchObject({ violations: [], blocked: null, properties: { price: 10 } });
    await expect(sluice.messages({ violations: 'yes' } as never)).rejects.toThrow(/filter\.violations must be true/);
    // The blocked message's delivery says why it was skipped (it said only "skipped"); a sent one has no reason
    const [skipped] = await sluice.deliveries({ status: 'skipped' });
    expect(skipped).toMatchObject({ status: 'skipped', attemptCount: 0, skipReason: bad[0]!.blocked, message: { event: 'Order Completed' } });
    const [sent] = await sluice.waitForDeliveries({}, { status: 'delivered' });
    expect(sent!.skipReason).toBeNull();

    const get = (query: string) => fetch(`${sluice.apiUrl}/messages?${query}`, { headers: { authorization: `Bearer ${sluice.token}` } });
    const viaHttp = (await (await get('violations=true')).json()) as { messages: { event: string; violations: unknown[] }[] };
    expect(viaHttp.messages.map((m) => m.event)).toEqual(['Order Completed', 'Order Complete']);
    expect(viaHttp.messages[1]!.violations).toMatchObject([{ type: 'Unplanned-Event', path: '/event' }]);
    const id = encodeURIComponent(bad[0]!.messageId!);
    const one = await fetch(`${sluice.apiUrl}/messages/${id}`, { headers: { authorization: `Bearer ${sluice.token}` } });
    expect(((await one.json()) as { deliveries: { skipReason: string | null }[] }).deliveries.map((d) => d.skipReason)).toEqual([bad[0]!.blocked]);
    const refused = await get('violations=maybe');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });
});
