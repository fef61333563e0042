// The receiver that ships with Sluice: a first signed delivery with no server of your own.
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { INBOX_BYTES, KEPT_BODY_BYTES } from '../../../electron/core/receiver/builtin-receiver.ts';
import { signBody } from '../../../electron/core/signature/signature.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function setup(options: { secret?: string; extra?: Record<string, unknown> } = {}) {
  // The receiver's URL is known only once it listens: start, then point the destination at it.
  core = await startCore({
    config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] },
    ...options.extra,
  });
  core.writeKey = 'wk_web';
  core.saveDestination({
    name: 'demo',
    sources: ['web'],
    ...(options.secret ? { sharedSecret: options.secret } : {}),
    webhooks: [{ url: core.receiver.hookUrl('demo') }],
  });
  return core;
}

describe('built-in receiver', () => {
  it('records a delivery with a valid signature verdict and answers 200', async () => {
    const c = await setup({ secret: 's3cret' });
    const announced: number[] = [];
    c.bus.on('receiver.received', (entries) => announced.push(...entries.map((e) => e.id)));
    await post(c, '/v1/track', { userId: 'u', event: 'Hello' });
    const [entry] = await until(() => (c.receiver.inbox('demo').length ? c.receiver.inbox('demo') : undefined));
    expect(entry).toMatchObject({ hook: 'demo', signature: 'valid', answeredStatus: 200 });
    expect(JSON.parse(entry!.body)).toMatchObject({ type: 'track', event: 'Hello', version: 1 });
    expect(entry!.headers['user-agent']).toBe('Sluice/1.0');
    expect(announced).toEqual([entry!.id]);
    await until(() => (c.deliveries.countByStatus().delivered === 1 ? true : undefined));
  });

  it('keeps a big body\'s first 64 KB (checking the signature on all of it) and bounds the memory of all bodies', async () => {
    const c = await setup({ secret: 's3cret' });
    const hook = c.receiver.hookUrl('demo');
    const big = JSON.stringify({ type: 'track', pad: 'é'.repeat(750_000) }); // 1.5 MB of UTF-8
    const res = await request(hook, { method: 'POST', body: big, headers: { 'content-type': 'application/json', 'x-signature': signBody(big, 's3cret') } });
    await res.body.dump();
    const [entry] = c.receiver.inbox('demo');
    expect(entry).toMatchObject({ signature: 'valid', bodyBytes: Buffer.byteLength(big) });
    expect(Buffer.byteLength(entry!.body)).toBeLessThanOrEqual(KEPT_BODY_BYTES);
    expect(big.startsWith(entry!.body)).toBe(true); // cut at a character, not inside one
    expect(entry!.body.length).toBeGreaterThan(30_000);

    // 1,100 bodies of 65 KB: about 70 MB posted; the inbox keeps the newest within its budget.
    const body = JSON.stringify({ pad: 'x'.repeat(65_000) });
    for (let i = 0; i < 1_100; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, async () => (await request(hook, { method: 'POST', body, headers: { 'content-type': 'application/json' } })).body.dump()),
      );
    }
    const inbox = c.receiver.inbox();
    const kept = inbox.reduce((sum, e) => sum + e.body.length * 2, 0);
    expect(kept).toBeLessThanOrEqual(INBOX_BYTES);
    expect(inbox.length).toBeLessThan(1_101);
    expect(inbox.length).toBeGreaterThan(400);
    expect(inbox.at(-1)!.id).toBe(1_101); // the newest are the ones kept
  });

  it('knows the destinations posting to a hook however their URL names it (localhost, an encoded name): no header is "missing"', async () => {
    const c = await setup();
    const port = new URL(c.receiver.url).port;
    c.saveDestination({ name: 'by-localhost', sources: ['web'], sharedSecret: 'sL', webhooks: [{ url: `http://localhost:${port}/hooks/lh` }] });
    c.saveDestination({ name: 'by-name', sources: ['web'], sharedSecret: 'sT', webhooks: [{ url: `http://127.0.0.1:${port}/hooks/team@dev/` }] });
    for (const hook of ['lh', 'team@dev']) {
      const res = await request(c.receiver.hookUrl(hook), { method: 'POST', body: '{"type":"track"}', headers: { 'content-type': 'application/json' } });
      await res.body.dump();
      expect(c.receiver.inbox(hook).at(-1)!.signature, hook).toBe('missing');
    }
    const other = await request(c.receiver.hookUrl('nobody'), { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    await other.body.dump();
    expect(c.receiver.inbox('nobody').at(-1)!.signature).toBe('unsigned');
  });

  it('says unsigned without a secret, invalid for a forged signature, missing when the secret is set but no header came', async () => {
    const c = await setup({ secret: 's3cret' });
    const hook = c.receiver.hookUrl('demo');
    const send = (headers: Record<string, string>) =>
      request(hook, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"cool":true}' }).then((r) => r.body.text());
    await send({ 'x-signature': '5099cab379b3be52908387457007040cc934ef86' }); // signed with abc123, not s3cret
    await send({});
    expect(c.receiver.inbox('demo').map((e) => e.signature)).toEqual(['invalid', 'missing']);
    const other = c.receiver.hookUrl('elsewhere');
    await request(other, { method: 'POST', body: '{}' }).then((r) => r.body.text());
    expect(c.receiver.inbox('elsewhere')[0]!.signature).toBe('unsigned');
  });

  it('answers as told: a status (retried), a random mix, or hanging past the timeout', async () => {
    let now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await setup({ extra: { clock: { now: () => now }, webhookTimeoutMs: 300, random: () => 0.5 } });
    c.receiver.setBehaviour('demo', { mode: 'status', status: 503 });
    await post(c, '/v1/track', { userId: 'u', event: 'E' });
    const messageId = c.messages.list()[0]!.id;
    const retrying = await until(() => c.deliveries.forMessage(messageId).find((d) => d.status === 'retrying'));
    expect(c.deliveries.attempts(retrying.id)[0]).toMatchObject({ responseStatus: 503, errorCode: 'http', outcome: 'retry' });

    c.receiver.setBehaviour('demo', { mode: 'hang' });
    now = retrying.nextAttemptAt!;
    c.delivery.kick();
    await until(() => (c.deliveries.get(retrying.id)!.attemptCount === 2 ? true : undefined));
    const timedOut = c.deliveries.attempts(retrying.id)[1]!;
    expect(timedOut).toMatchObject({ errorCode: 'timeout', responseStatus: null, outcome: 'retry' });
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(290);
    expect(c.receiver.inbox('demo').at(-1)!.answeredStatus).toBeNull();

    c.receiver.setBehaviour('demo', { mode: 'random', failureRate: 0.4, status: 500 }); // random() = 0.5: succeeds
    now = c.deliveries.get(retrying.id)!.nextAttemptAt!;
    c.delivery.kick();
    await until(() => (c.deliveries.get(retrying.id)!.status === 'delivered' ? true : undefined));
  });

  it('refuses what is not a hook', async () => {
    const c = await setup();
    const res = await request(`${c.receiver.url}/elsewhere`, { method: 'POST', body: '{}' });
    expect(res.statusCode).toBe(404);
    await res.body.text();
    const get = await request(c.receiver.hookUrl('demo'));
    expect(get.statusCode).toBe(405);
    await get.body.text();
    expect(c.receiver.inbox()).toEqual([]);
  });
});
