// Tracking plans at their edges, each found in review: what Violation Generated events must not carry
// or feed, several plans on one source, counts that follow purges and re-checks, refusals of Add to
// plan, re-checks of single-message endpoints and one interrupted by a stop. A real core, real HTTP.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import type { RecheckProgress, TrackingPlan } from '../../../shared/tracking-plan.ts';
import { post, startCore, storedMessages, tempDir, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const PLAN: TrackingPlan = {
  events: { 'Order Completed': { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] } },
  identify: { type: 'object', properties: { email: { type: 'string' } } },
};

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function start(plans: unknown[], extra: { forward?: Receiver; dataDir?: string } = {}): Promise<TestCore> {
  const config = parseConfig(
    JSON.stringify({
      sources: [{ name: 'web', writeKey: 'wk_web' }],
      destinations: extra.forward ? [{ name: 'violations', webhooks: [{ url: extra.forward.url }], options: { bodyShape: 'full' } }] : [],
      trackingPlans: plans,
    }),
  );
  const core = await startCore({ config, ...(extra.dataDir ? { dataDir: extra.dataDir } : {}) });
  open.push({ close: () => core.dispose() });
  return Object.assign(core, { writeKey: 'wk_web' });
}

const order = (price: unknown, extra: Record<string, unknown> = {}) => ({ type: 'track', event: 'Order Completed', userId: 'u1', properties: { price }, ...extra });

describe('Violation Generated events', () => {
  it('carry nothing of the violating request (batch context, integrations, sentAt), feed no profile, and stay out of test queries', async () => {
    const sink = await startReceiver();
    open.push(sink);
    const core = await start([{ name: 'p', plan: PLAN, forwardViolationsTo: 'violations' }], { forward: sink });
    const hourAhead = new Date(Date.now() + 3_600_000).toISOString();
    await post(core, '/v1/batch', {
      batch: [order('x', { timestamp: hourAhead })],
      sentAt: hourAhead,
      context: { traits: { email: 'private@example.com' }, ip: '10.1.2.3' },
      integrations: { All: false },
    });
    const [received] = await sink.waitFor(1);
    const event = JSON.parse(received!.body) as Record<string, any>;
    expect(event.integrations).toEqual({});
    expect(JSON.stringify(event)).not.toContain('private@example.com');
    expect(JSON.stringify(event)).not.toContain('10.1.2.3');
    expect(Math.abs(Date.parse(event.timestamp) - Date.now())).toBeLessThan(60_000); // not moved by the client's clock
    expect(event.properties.eventSentAt).toBe(hourAhead); // what the client said is reported, as Segment does

    const preview = await core.audiences.preview({
      sourceId: core.sources.byName('web')!.id,
      rule: { match: 'all', conditions: [{ kind: 'event', event: 'Violation Generated', operator: 'at_least', count: 1 }] },
      sampleSize: 10,
    });
    expect(preview.members).toBe(0);
    expect((await core.queries.messages({})).map((m) => m.event)).toEqual(['Order Completed']);
    expect((await core.queries.messages({ origin: 'plan' })).map((m) => [m.event, m.userId])).toEqual([['Violation Generated', 'schema-violations']]);
  });

  it('are at most 5 per message and plan; every violation stays on the message', async () => {
    const sink = await startReceiver();
    open.push(sink);
    const wide: TrackingPlan = { events: { Wide: { type: 'object', properties: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, { type: 'number' }])) } } };
    const core = await start([{ name: 'p', plan: wide, forwardViolationsTo: 'violations' }], { forward: sink });
    await post(core, '/v1/track', { event: 'Wide', userId: 'u', properties: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, 'no'])) });
    expect(storedMessages(core).filter((m) => m.origin === 'plan').length).toBe(5);
    expect(storedMessages(core).find((m) => m.origin === 'ingest')!.violationList.length).toBe(8);
  });
});

describe('violations from alternatives behind a $ref and from contains', () => {
  it('are stored, counted, quoted and forwarded once each, not once per alternative or item', async () => {
    // ajv reports an error inside a $ref with the target's schemaPath, and each item's miss of `contains`:
    // these made "must be null" and "tags[0] must be "x"" violations of their own, the real one hidden in "and N more".
    const sink = await startReceiver();
    open.push(sink);
    const plan: TrackingPlan = {
      events: {
        'Order Completed': {
          type: 'object',
          definitions: { price: { type: 'number' } },
          properties: { price: { anyOf: [{ $ref: '#/definitions/price' }, { type: 'null' }] }, tags: { type: 'array', contains: { const: 'sale' } } },
        },
      },
    };
    const core = await start([{ name: 'p', plan, violations: 'block', forwardViolationsTo: 'violations' }], { forward: sink });
    const tags = Array.from({ length: 25 }, (_, i) => `t${i}`);
    await post(core, '/v1/track', order('12', { properties: { price: '12', tags }, messageId: 'bad' }));
    const [message] = storedMessages(core).filter((m) => m.origin === 'ingest');
    expect(message!.violationList.map((v) => [v.type, v.message])).toEqual([
      ['Datatype-Mismatch', 'properties.price must be a number or null; got the string "12"'],
      ['Unknown-Violation', expect.stringMatching(/^properties\.tags must contain an item the plan allows; got \["t0",/)],
    ]);
    expect(message!.violations).toBe(2);
    expect(message!.blocked).toBe('blocked by the tracking plan "p": properties.price must be a number or null; got the string "12" (and 1 more)');
    await sink.waitFor(2);
    await new Promise((r) => setTimeout(r, 300));
    expect(sink.received.map((r) => (JSON.parse(r.body) as { properties: { violationField: string } }).properties.violationField).sort()).toEqual(['properties.price', 'properties.tags']);
  });
});

describe('several plans, counts, refusals', () => {
  it('checks a message against every plan of its source; names that differ in case are told apart', async () => {
    const core = await start([
      { name: 'Web', plan: PLAN },
      { name: 'web', plan: { events: { 'Order Completed': { type: 'object', required: ['currency'] } } }, violations: 'block' },
    ]);
    await post(core, '/v1/track', order('x', { properties: { price: 'x', currency: 'EUR' } }));
    await post(core, '/v1/track', order(1));
    const [first, second] = storedMessages(core);
    expect(first!.violationList.map((v) => v.plan)).toEqual(['Web']);
    expect(first!.blocked).toBeUndefined(); // "Web" flags; only "web" blocks
    expect(second!.violationList.map((v) => [v.plan, v.type])).toEqual([['web', 'Required-Missing']]);
    expect(second!.blocked).toMatch(/"web"/);
    expect(core.messages.list({ plan: 'Web' }).map((m) => m.id)).toEqual([first!.id]);
    expect(core.messages.list({ plan: 'web' }).map((m) => m.id)).toEqual([second!.id]);
    const stat = (name: string) => core.plans.stats(name).planned.find((s) => s.event === 'Order Completed');
    expect(stat('Web')).toMatchObject({ seen: 2, violated: 1 });
    expect(stat('web')).toMatchObject({ seen: 2, violated: 1 });
  });

  it('keeps the counts right through a purge and a re-check, and lists unplanned events with their total', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, JSON.stringify(PLAN));
    const core = await start([{ name: 'p', file }]);
    await post(core, '/v1/batch', { batch: [order('x'), order(2), order('y', { userId: 'gone' }), { type: 'track', event: 'Other', userId: 'gone' }] });
    const counts = () => {
      const stats = core.plans.stats('p');
      return { order: stats.planned.find((s) => s.event === 'Order Completed'), unplanned: stats.unplanned.map((s) => [s.event, s.seen]), total: stats.unplannedTotal };
    };
    expect(counts()).toMatchObject({ order: { seen: 3, violated: 2 }, unplanned: [['Other', 1]], total: 1 });
    await core.operations['deletions.create']({ userId: 'gone', purge: true });
    expect(counts()).toMatchObject({ order: { seen: 2, violated: 1 }, unplanned: [], total: 0 });

    const changed = new Promise((resolve) => core.bus.on('plans.changed', resolve));
    fs.writeFileSync(file, JSON.stringify({ events: { 'Order Completed': { type: 'object' } } }));
    await changed;
    const done = new Promise<RecheckProgress>((resolve) => core.bus.on('plans.recheck', (p) => p.state !== 'running' && resolve(p)));
    core.operations['plans.recheck']({});
    expect(await done).toMatchObject({ state: 'finished', changed: 1 });
    expect(counts().order).toMatchObject({ seen: 2, violated: 0 });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('re-checks messages sent to /v1/track and /v1/identify (whose text has no type of its own)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, JSON.stringify({ events: {} }));
    const core = await start([{ name: 'p', file, unplanned: 'allow' }]);
    await post(core, '/v1/track', { event: 'Order Completed', userId: 'u', properties: { price: 'x' } });
    await post(core, '/v1/identify', { userId: 'u', traits: { email: 5 } });
    expect(storedMessages(core).every((m) => m.violations === 0)).toBe(true);
    const changed = new Promise((resolve) => core.bus.on('plans.changed', resolve));
    fs.writeFileSync(file, JSON.stringify(PLAN));
    await changed;
    const done = new Promise<RecheckProgress>((resolve) => core.bus.on('plans.recheck', (p) => p.state !== 'running' && resolve(p)));
    core.operations['plans.recheck']({});
    expect(await done).toMatchObject({ state: 'finished', changed: 2 });
    expect(storedMessages(core).map((m) => m.violationList.map((v) => v.path))).toEqual([['/properties/price'], ['/traits/email']]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a re-check cut short by a stop says so', async () => {
    const core = await start([{ name: 'p', plan: PLAN }]);
    for (let i = 0; i < 3; i++) await post(core, '/v1/batch', { batch: Array.from({ length: 2000 }, (_, j) => order(j % 2 ? 'x' : j)) });
    const ends: RecheckProgress[] = [];
    core.bus.on('plans.recheck', (p) => p.state !== 'running' && ends.push(p));
    core.operations['plans.recheck']({});
    await core.close();
    await until(() => ends.length > 0, 5000, 'the re-check to end');
    expect(ends[0]).toMatchObject({ state: 'failed', error: expect.stringContaining('stopped before it finished') });
  });

  it('Add to plan refuses a vendor export, a file whose last edit did not load, and a file changed since it loaded', async () => {
    const dir = tempDir();
    const vendor = path.join(dir, 'segment.json');
    fs.copyFileSync(path.join(import.meta.dirname, '../../fixtures/plans/segment-config-api.json'), vendor);
    const own = path.join(dir, 'plan.json');
    fs.writeFileSync(own, JSON.stringify(PLAN));
    const core = await start([{ name: 'vendor', file: vendor }, { name: 'own', file: own }]);
    await post(core, '/v1/track', { event: 'Brand New', userId: 'u', properties: { a: 1 } });
    expect(() => core.operations['plans.addEvent']({ name: 'vendor', type: 'track', event: 'Brand New' })).toThrow(/sluice plan import/);

    const failed = new Promise((resolve) => core.bus.on('plans.changed', resolve));
    fs.writeFileSync(own, '{ broken');
    await failed;
    expect(() => core.operations['plans.addEvent']({ name: 'own', type: 'track', event: 'Brand New' })).toThrow(/did not load its last edit/);
    expect(fs.readFileSync(own, 'utf8')).toBe('{ broken'); // not written over

    // Changed on disk, not yet read (the watcher waits for the editor to finish): refused too.
    const fixed = new Promise((resolve) => core.bus.on('plans.changed', resolve));
    fs.writeFileSync(own, JSON.stringify(PLAN));
    await fixed;
    fs.writeFileSync(own, JSON.stringify({ ...PLAN, description: 'edited' }));
    expect(() => core.operations['plans.addEvent']({ name: 'own', type: 'track', event: 'Brand New' })).toThrow(/changed since Sluice last read it/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
