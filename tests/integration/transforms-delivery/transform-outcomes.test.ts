// A destination's transform (issue 28) in real deliveries: a real core (real SQLite, the writer thread,
// the transform runtime's real worker threads running a real file), real receivers on loopback. Each
// outcome — changed, null, a fan-out on both destination kinds, a throw, RetryError, a timeout, the
// memory limit, what JSON cannot carry — as its delivery records it, its attempts carrying the run;
// signatures (the seed's X-Signature, Standard Webhooks checked by the `standardwebhooks` package) and
// the built-in receiver see the transformed body; the stored message never changes.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../electron/core/api/contract-handlers.ts';
import { signBody } from '../../../electron/core/signature/signature.ts';
import type { DestinationConfig } from '../../../shared/settings.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const SOURCE = `
async function onTrack(event, { settings, log }) {
  log('shaping', event.event);
  switch (event.event) {
    case 'Change': return { ...event, properties: { ...event.properties, shaped: settings.tag } };
    case 'Null': return null;
    case 'Fan': return [{ ...event, event: 'Fan A' }, { ...event, event: 'Fan B' }];
    case 'Throw': return explode(event);
    case 'Retry': if (!settings.ready) throw new RetryError('the upstream is warming up'); return { ...event, properties: { retried: true } };
    case 'Spin': for (;;) {}
    case 'Hog': { const kept = []; for (;;) kept.push(new Array(100000).fill(kept.length)); }
    case 'BigInt': return { ...event, properties: { total: 10n } };
    default: return event;
  }
}

function explode(event) {
  return event.properties.missing.length;
}
`;

const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

function transformFile(source = SOURCE): string {
  const file = path.join(tempDir('sluice-transform-'), 'shape.js');
  fs.writeFileSync(file, source);
  return file;
}

function hooks(r: Receiver | string, file: string, change: Partial<DestinationConfig> = {}): DestinationConfig {
  const url = typeof r === 'string' ? r : `${r.url}/hook`;
  return {
    name: 'shaped', enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 },
    // A limit no transform here comes near (the one that spins has its own test): a loaded CI worker's
    // thread may stall for a few hundred milliseconds, which must not read as the transform's timeout.
    transform: { file, timeoutMs: 3000, settings: { tag: 'v1' } },
    ...change,
  };
}

async function setup(destinations: DestinationConfig[], clock?: { now: () => number }) {
  core = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations }, ...(clock ? { clock } : {}) });
  core.writeKey = 'wk_web';
  return core;
}

function deliveryOf(c: TestCore, event: string, destination = 'shaped') {
  const message = c.messages.list().find((m) => m.event === event);
  const id = c.destinations.byName(destination)!.id;
  return message ? c.deliveries.forMessage(message.id).find((d) => d.destinationId === id) : undefined;
}

const settledAs = (c: TestCore, event: string, status: string, destination = 'shaped') =>
  until(() => (deliveryOf(c, event, destination)?.status === status ? deliveryOf(c, event, destination) : undefined), 15_000, `${event} ${status}`);

describe("a destination's transform in its deliveries", () => {
  it('sends the changed event, signed over the transformed body (X-Signature and Standard Webhooks), recording the run; the stored message is unchanged', async () => {
    const r = await receiver();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const c = await setup([hooks(r, transformFile(), { signing: 'both', signingSecrets: [secret] }), { ...hooks(r, '', { name: 'plain' }), transform: undefined, webhooks: [{ url: `${r.url}/plain`, headers: {} }] }]);
    await post(c, '/v1/track', { userId: 'u', event: 'Change', properties: { price: 3 } });
    const delivered = await settledAs(c, 'Change', 'delivered');
    await settledAs(c, 'Change', 'delivered', 'plain');
    const got = r.received.find((q) => q.path === '/hook')!;
    const body = JSON.parse(got.body) as { properties: Record<string, unknown> };
    expect(body.properties).toEqual({ price: 3, shaped: 'v1' });
    expect(got.headers['x-signature']).toBe(signBody(got.body, 's3cret'));
    const headers = Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(secret).verify(got.body, headers)).toMatchObject({ properties: { shaped: 'v1' } });
    // The other destination got the message as it was stored.
    expect(JSON.parse(r.received.find((q) => q.path === '/plain')!.body).properties).toEqual({ price: 3 });
    const message = c.messages.get(c.messages.list().find((m) => m.event === 'Change')!.id)!;
    expect(message.message!.properties).toEqual({ price: 3 });

    expect(delivered.body).toBe(got.body);
    expect(delivered.shaping).toMatch(/^transformed \(version [0-9a-f]{12}\)$/);
    const [attempt] = c.deliveries.attempts(delivered.id);
    expect(attempt!.transform).toMatchObject({ outcome: 'changed', version: delivered.shaping!.slice(-13, -1), logs: [{ level: 'log', text: 'shaping Change' }] });
    expect(attempt!.transform!.output).toMatchObject([{ event: 'Change', properties: { price: 3, shaped: 'v1' } }]);
    // The contract's view and a test's view say so.
    const view = await callOk(createHandlers(c), 'deliveries.get', { id: delivered.id });
    expect(view.shaping).toBe(delivered.shaping);
    expect(view.transform).toMatchObject({ outcome: 'changed' });
    const [tested] = await c.queries.deliveries({ destination: 'shaped' });
    expect(tested).toMatchObject({ shaping: delivered.shaping, attempts: [{ transform: { outcome: 'changed' } }] });
  });

  it('skips a message the transform drops (null): no attempt, not retried, the run kept with the delivery', async () => {
    const r = await receiver();
    const c = await setup([hooks(r, transformFile())]);
    await post(c, '/v1/track', { userId: 'u', event: 'Null' });
    const skipped = await settledAs(c, 'Null', 'skipped');
    await c.delivery.idle();
    expect(skipped.skipReason).toMatch(/^dropped by transform: .+ \(version [0-9a-f]{12}\)$/);
    expect(skipped).toMatchObject({ attemptCount: 0, nextAttemptAt: null, lastError: null });
    expect(c.deliveries.attempts(skipped.id)).toEqual([]);
    expect(r.received).toEqual([]);
    const view = await callOk(createHandlers(c), 'deliveries.get', { id: skipped.id });
    expect(view.transform).toMatchObject({ outcome: 'dropped', logs: [{ text: 'shaping Null' }] });
    const [tested] = await c.queries.deliveries({ destination: 'shaped' });
    expect(tested!.skipReason).toMatch(/^dropped by transform: /);
  });

  it('fans out to a webhook: each event its own signed request, in order; the delivery records the bodies as a JSON array', async () => {
    const r = await receiver();
    const c = await setup([hooks(r, transformFile())]);
    await post(c, '/v1/track', { userId: 'u', event: 'Fan' });
    const delivered = await settledAs(c, 'Fan', 'delivered');
    const requests = r.received;
    expect(requests.map((q) => (JSON.parse(q.body) as { event: string }).event)).toEqual(['Fan A', 'Fan B']);
    for (const q of requests) expect(q.headers['x-signature']).toBe(signBody(q.body, 's3cret'));
    expect(requests[0]!.headers['x-signature']).not.toBe(requests[1]!.headers['x-signature']);
    expect(JSON.parse(delivered.body!)).toEqual(requests.map((q) => JSON.parse(q.body)));
    expect(delivered.shaping).toMatch(/^transformed into 2 events \(version /);
    const attempts = c.deliveries.attempts(delivered.id);
    expect(attempts).toHaveLength(2);
    // Each attempt's headers as sent, its own signature among them.
    expect(attempts.map((a) => a.requestHeaders['X-Signature'])).toEqual(requests.map((q) => q.headers['x-signature']));
    for (const a of attempts) expect(a.transform).toMatchObject({ outcome: 'changed' });
  });

  it('fans out to a Tracking API: both events in the batch, one delivery', async () => {
    const api = await receiver();
    const c = await setup([
      {
        name: 'shaped', enabled: true, sources: ['web'], kind: 'tracking-api', webhooks: [], options: { bodyShape: 'seed', concurrency: 4 },
        trackingApi: { url: api.url, writeKey: 'wk_up', batchSize: 100, flushMs: 0, gzip: false },
        transform: { file: transformFile(), timeoutMs: 3000, settings: {} },
      },
    ]);
    await post(c, '/v1/track', { userId: 'u', event: 'Fan' });
    const delivered = await settledAs(c, 'Fan', 'delivered');
    const batches = api.received.map((q) => (JSON.parse(q.body) as { batch: { event: string }[] }).batch.map((m) => m.event));
    expect(batches).toEqual([['Fan A', 'Fan B']]);
    // Each its own messageId: the transform copied the event's, and an upstream keeps the first of a
    // messageId and drops the rest (until 2026-12-01 both went with the same one).
    const [sentA, sentB] = (JSON.parse(api.received[0]!.body) as { batch: { messageId: string }[] }).batch.map((m) => m.messageId);
    const original = c.messages.list().find((m) => m.event === 'Fan')!.messageId!;
    expect([sentA, sentB]).toEqual([original, `${original}_2`]);
    expect(delivered.shaping).toContain('a messageId the events shared made distinct');
    expect((JSON.parse(delivered.body!) as { event: string }[]).map((m) => m.event)).toEqual(['Fan A', 'Fan B']);
    const [attempt] = c.deliveries.attempts(delivered.id);
    expect(attempt).toMatchObject({ forwarded: true, outcome: 'success', transform: { outcome: 'changed' } });
  });

  it('fails a delivery whose transform throws, with the message and the stack into the file, not retried', async () => {
    const r = await receiver();
    const file = transformFile();
    const c = await setup([hooks(r, file)]);
    await post(c, '/v1/track', { userId: 'u', event: 'Throw' });
    const failed = await settledAs(c, 'Throw', 'failed');
    await c.delivery.idle();
    expect(failed.lastError).toMatch(/^the transform threw: .*(undefined|length)/);
    expect(failed).toMatchObject({ nextAttemptAt: null, attemptCount: 1 });
    expect(failed.shaping).toMatch(/^transform failed \(version [0-9a-f]{12}\): error$/);
    expect(c.deliveries.attempts(failed.id)).toEqual([]);
    expect(r.received).toEqual([]);
    const view = await callOk(createHandlers(c), 'deliveries.get', { id: failed.id });
    expect(view.transform).toMatchObject({ outcome: 'failed' });
    expect(view.transform!.stack).toContain('shape.js');
  });

  it('retries on RetryError on the delivery’s schedule, then delivers (an injected clock)', async () => {
    const r = await receiver();
    let now = Date.parse('2026-11-29T10:00:00.000Z');
    const file = transformFile();
    const c = await setup([hooks(r, file)], { now: () => now });
    await post(c, '/v1/track', { userId: 'u', event: 'Retry' });
    const retrying = await settledAs(c, 'Retry', 'retrying');
    expect(retrying.lastError).toBe('the transform asked to retry (RetryError: the upstream is warming up)');
    expect(retrying.attemptCount).toBe(1);
    expect(retrying.nextAttemptAt).toBeGreaterThan(now);
    expect(retrying.shaping).toMatch(/^transform asked to retry \(version /);
    expect(r.received).toEqual([]);
    // Not before its time: a kick now sends nothing.
    c.delivery.kick();
    await c.delivery.idle();
    expect(c.deliveries.get(retrying.id)!.attemptCount).toBe(1);
    // The transform's settings now let it through; at the retry's time it is delivered.
    c.saveDestination(hooks(r, file, { transform: { file, timeoutMs: 3000, settings: { ready: true } } }));
    now = retrying.nextAttemptAt!;
    c.delivery.kick();
    const delivered = await settledAs(c, 'Retry', 'delivered');
    expect(delivered.attemptCount).toBe(2);
    expect(JSON.parse(r.received[0]!.body).properties).toEqual({ retried: true });
  });

  it('fails a transform that runs past its time limit, past its memory, or returns what JSON cannot carry — each saying so', async () => {
    const r = await receiver();
    // Long enough for the hog to reach its heap limit first.
    const file = transformFile();
    const c = await setup([hooks(r, file, { transform: { file, timeoutMs: 3000, settings: {} } })]);
    await post(c, '/v1/batch', { batch: ['Spin', 'Hog', 'BigInt', 'Plain'].map((event) => ({ type: 'track', userId: 'u', event })) });
    const spin = await settledAs(c, 'Spin', 'failed');
    const hog = await settledAs(c, 'Hog', 'failed');
    const bigint = await settledAs(c, 'BigInt', 'failed');
    await settledAs(c, 'Plain', 'delivered');
    expect(spin.lastError).toMatch(/^the transform ran past its 3,000 ms limit/);
    expect(hog.lastError).toMatch(/memory/);
    expect(bigint.lastError).toMatch(/JSON/);
    expect([spin, hog, bigint].map((d) => d.shaping!.replace(/version \w+/, 'version'))).toEqual([
      'transform failed (version): timeout',
      'transform failed (version): memory',
      'transform failed (version): not-json',
    ]);
    for (const d of [spin, hog, bigint]) expect(d.nextAttemptAt).toBeNull();
    expect(r.received.map((q) => JSON.parse(q.body).event)).toEqual(['Plain']);
  }, 30_000);

  it('sends the transformed body to the built-in receiver, whose signature check passes', async () => {
    const c = await setup([hooks('sluice://receiver/shaped', transformFile())]);
    await post(c, '/v1/track', { userId: 'u', event: 'Change', properties: { price: 5 } });
    await settledAs(c, 'Change', 'delivered');
    const [entry] = c.receiver.inbox('shaped');
    expect(JSON.parse(entry!.body).properties).toEqual({ price: 5, shaped: 'v1' });
    expect(entry!.signature).toBe('valid');
  });
});
