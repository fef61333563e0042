// Standard Webhooks signing (standardwebhooks.com; issue 14): checked with the `standardwebhooks` package,
// the verifier written by the spec's authors, not with our own code. Real cores, receivers and SQLite.
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAsSeedReceiver } from '../../../electron/core/signature/signature.ts';
import { configFileSchema, describeIssues } from '../../../shared/settings.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

const whsec = () => `whsec_${randomBytes(32).toString('base64')}`;
// The verifier allows 5 minutes of clock difference: an injected clock near real time, moved by hand.
let now = Date.now();
const clock = { now: () => now };

async function coreWith(destination: Record<string, unknown>) {
  now = Date.now();
  core = await startCore({
    config: configFileSchema.parse({ sources: [{ name: 'web', writeKey: 'wk_web' }], destinations: [{ name: 'hooks', sources: ['web'], ...destination }] }),
    clock,
    random: () => 0.5,
  });
  core.writeKey = 'wk_web';
  return core;
}

const headersOf = (r: { headers: Record<string, string | string[] | undefined> }) => r.headers as Record<string, string>;

describe('Standard Webhooks signing', () => {
  it('signing "standard": webhook-id, -timestamp and -signature that the spec authors\' verifier accepts; no X-Signature', async () => {
    const r = await receiver();
    const secret = whsec();
    const c = await coreWith({ webhooks: [{ url: r.url }], signing: 'standard', signingSecrets: [secret], sharedSecret: 'unused' });
    await post(c, '/v1/track', { userId: 'u_1', event: 'Signed' });
    const [got] = await r.waitFor(1);
    const headers = headersOf(got!);
    expect(headers['x-signature']).toBeUndefined();
    expect(headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]+_\d+_[0-9a-z]+$/);
    expect(Number(headers['webhook-timestamp'])).toBe(Math.floor(now / 1000));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(got!.body, headers)).toMatchObject({ type: 'track', event: 'Signed' });
    expect(() => new Webhook(whsec()).verify(got!.body, headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(secret).verify(got!.body.replace('Signed', 'Forged'), headers)).toThrow();
  });

  it('signing "both" while rotating: X-Signature, and one v1 signature per secret — a receiver with either secret accepts', async () => {
    const r = await receiver();
    const [current, next] = [whsec(), whsec()];
    const c = await coreWith({ webhooks: [{ url: r.url }], signing: 'both', sharedSecret: 'seed-secret', signingSecrets: [current, next] });
    await post(c, '/v1/track', { userId: 'u_1', event: 'Rotating' });
    const [got] = await r.waitFor(1);
    const headers = headersOf(got!);
    expect(verifyAsSeedReceiver(got!.body, headers['x-signature'], 'seed-secret')).toBe(true);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(current).verify(got!.body, headers)).toMatchObject({ event: 'Rotating' });
    expect(new Webhook(next).verify(got!.body, headers)).toMatchObject({ event: 'Rotating' });
  });

  it('the id stays across retries of a delivery, the timestamp is each attempt\'s, and each delivery has its own id', async () => {
    const r = await receiver();
    r.script({ status: 503 });
    const secret = whsec();
    const c = await coreWith({ webhooks: [{ url: r.url }], signing: 'standard', signingSecrets: [secret] });
    await post(c, '/v1/track', { userId: 'u_1', event: 'First' });
    await r.waitFor(1);
    const messageId = c.messages.list()[0]!.id;
    await until(() => c.deliveries.forMessage(messageId)[0]?.status === 'retrying' || undefined);
    now += 5_000;
    c.delivery.kick();
    const [first, second] = await r.waitFor(2);
    const [h1, h2] = [headersOf(first!), headersOf(second!)];
    expect(h2['webhook-id']).toBe(h1['webhook-id']);
    expect(Number(h2['webhook-timestamp']) - Number(h1['webhook-timestamp'])).toBe(5);
    expect(new Webhook(secret).verify(second!.body, h2)).toMatchObject({ event: 'First' });
    await post(c, '/v1/track', { userId: 'u_1', event: 'Second' });
    const [, , third] = await r.waitFor(3);
    expect(headersOf(third!)['webhook-id']).not.toBe(h1['webhook-id']);
  });

  it('a delivery after a reset, under a delivery id SQLite gives again, has another webhook-id', async () => {
    const r = await receiver();
    const secret = whsec();
    const c = await coreWith({ webhooks: [{ url: r.url }], signing: 'standard', signingSecrets: [secret] });
    await post(c, '/v1/track', { userId: 'u_1', event: 'Before' });
    const [before] = await r.waitFor(1);
    const firstId = c.deliveries.forMessage(c.messages.list()[0]!.id)[0]!.id;
    await c.reset();
    now += 1_000;
    await post(c, '/v1/track', { userId: 'u_1', event: 'After' });
    const [, after] = await r.waitFor(2);
    expect(c.deliveries.forMessage(c.messages.list()[0]!.id)[0]!.id).toBe(firstId); // the same row id again
    // Before 2026-12-01 the id was the same too: a receiver that drops ids it has processed dropped "After".
    expect(headersOf(after!)['webhook-id']).not.toBe(headersOf(before!)['webhook-id']);
    expect(new Webhook(secret).verify(after!.body, headersOf(after!))).toMatchObject({ event: 'After' });
  });

  it('the built-in receiver verifies either scheme: valid for Sluice\'s requests, invalid for a forged one', async () => {
    core = await startCore({ config: configFileSchema.parse({ sources: [{ name: 'web', writeKey: 'wk_web' }] }) });
    core.writeKey = 'wk_web';
    const secret = whsec();
    core.saveDestination({ name: 'std', sources: ['web'], signing: 'standard', signingSecrets: [secret], webhooks: [{ url: core.receiver.hookUrl('std') }] });
    core.saveDestination({ name: 'both', sources: ['web'], signing: 'both', sharedSecret: 'seed', signingSecrets: [whsec()], webhooks: [{ url: core.receiver.hookUrl('both') }] });
    await post(core, '/v1/track', { userId: 'u_1', event: 'Checked' });
    const c = core;
    const entries = await until(() => (c.receiver.inbox().length === 2 ? c.receiver.inbox() : undefined));
    expect(entries.map((e) => [e.hook, e.signature]).sort()).toEqual([['both', 'valid'], ['std', 'valid']]);

    const std = entries.find((e) => e.hook === 'std')!;
    const forged = await request(core.receiver.hookUrl('std'), {
      method: 'POST',
      body: std.body.replace('Checked', 'Forged'),
      headers: { 'content-type': 'application/json', ...Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, std.headers[h] as string])) },
    });
    await forged.body.dump();
    const unsigned = await request(core.receiver.hookUrl('std'), { method: 'POST', body: std.body, headers: { 'content-type': 'application/json' } });
    await unsigned.body.dump();
    const inbox = core.receiver.inbox('std');
    expect(inbox.slice(-2).map((e) => e.signature)).toEqual(['invalid', 'missing']);
  });

  it('the config refuses what cannot sign: no secret, a secret not in whsec_ form, three secrets, "both" without a shared secret', () => {
    const problems = (destination: Record<string, unknown>) => {
      const parsed = configFileSchema.safeParse({ destinations: [{ name: 'd', webhooks: [{ url: 'http://127.0.0.1:9/' }], ...destination }] });
      return parsed.success ? [] : describeIssues(parsed.error);
    };
    expect(problems({ signing: 'standard' })).toEqual(['destinations[0].signingSecrets: signing "standard" needs a Standard Webhooks secret (whsec_…)']);
    expect(problems({ signing: 'standard', signingSecrets: ['whsec_c2hvcnQ='] })[0]).toMatch(/signingSecrets\[0\]: must be "whsec_" followed by a 24- to 64-byte key/);
    expect(problems({ signing: 'standard', signingSecrets: [`sk_${randomBytes(32).toString('base64')}`] })).toHaveLength(1);
    expect(problems({ signing: 'standard', signingSecrets: [whsec(), whsec(), whsec()] })[0]).toMatch(/at most two secrets/);
    expect(problems({ signing: 'both', signingSecrets: [whsec()] })).toEqual(['destinations[0].sharedSecret: signing "both" needs a shared secret for X-Signature too']);
    expect(problems({ signing: 'both', sharedSecret: 's', signingSecrets: [whsec()] })).toEqual([]);
    expect(problems({ signing: 'standard', signingSecrets: [whsec()], headers: {} })).toHaveLength(1); // unknown key
    expect(problems({ webhooks: [{ url: 'http://127.0.0.1:9/', headers: { 'Webhook-Signature': 'v1,x' } }] })[0]).toMatch(/set by Sluice/);
  });
});
