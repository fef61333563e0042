// The receiver and deletions views' pure parts: verdict sentences, behaviour switches checked before
// they are sent, the inbox merge, hook names from webhook URLs, and how a delete notification reads.
import { describe, expect, it } from 'vitest';
import type { DeliveryErrorCode, DeliveryView } from '../../shared/contract.ts';
import type { InboxEntry } from '../../shared/receiver.ts';
import { describeNotification } from '../../renderer/src/views/deletions/notification-status.ts';
import { behaviourOf, describeBehaviour, draftOf } from '../../renderer/src/views/receiver/behaviour-form.ts';
import { bodySummary } from '../../renderer/src/views/receiver/body-summary.ts';
import { hookOf } from '../../shared/receiver-hooks.ts';
import { mergeEntries } from '../../renderer/src/views/receiver/use-inbox.ts';
import { explainVerdict, signsRequests } from '../../renderer/src/views/receiver/verdict.ts';

describe('explainVerdict', () => {
  const xSigned = { 'x-signature': 'ab12' };
  const standard = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1764085184', 'webhook-signature': 'v1,abc=' };

  it('names the destinations whose secret made a signature valid, and the scheme the request carried', () => {
    const valid = explainVerdict('valid', ['Built-in receiver'], xSigned);
    expect(valid).toMatchObject({ label: '✓ valid', tone: 'ok', scheme: 'X-Signature' });
    expect(valid.why).toContain('the shared secret of “Built-in receiver”');
    const standardValid = explainVerdict('valid', ['hooks'], { 'Webhook-Signature': 'v1,abc=' });
    expect(standardValid).toMatchObject({ tone: 'ok', scheme: 'Standard Webhooks' });
    expect(standardValid.why).toMatch(/^webhook-signature is the HMAC-SHA256 of webhook-id, webhook-timestamp and the body under a Standard Webhooks secret of “hooks”/);
    expect(standardValid.why).not.toContain('X-Signature');
    const bothValid = explainVerdict('valid', ['hooks'], { ...xSigned, ...standard });
    expect(bothValid).toMatchObject({ scheme: 'X-Signature and Standard Webhooks' });
    expect(bothValid.why).toMatch(/^X-Signature and webhook-signature both match/);
  });

  it('says why a signature is invalid, missing, absent or uncheckable, each differently', () => {
    const whys = (['invalid', 'missing', 'unsigned', 'unverifiable'] as const).map((v) => explainVerdict(v, ['hooks'], v === 'missing' || v === 'unsigned' ? {} : xSigned));
    expect(whys.map((w) => w.tone)).toEqual(['bad', 'bad', 'muted', 'warn']);
    expect(whys[0]!.why).toMatch(/changed after signing|another secret|does not know/);
    expect(whys[1]!.why).toContain('No X-Signature or webhook-signature header, although “hooks” signs its requests');
    expect(whys[1]!.scheme).toBeNull();
    expect(whys[2]!.why).toContain('Give the destination a secret');
    expect(new Set(whys.map((w) => w.why)).size).toBe(4);
  });

  it('names the Standard Webhooks headers and secrets when those were what the request carried', () => {
    expect(explainVerdict('invalid', ['hooks'], standard).why).toMatch(/^webhook-signature does not match .* any destination’s Standard Webhooks secret/);
    expect(explainVerdict('unverifiable', [], standard).why).toContain('no destination has a Standard Webhooks secret (whsec_…)');
    expect(explainVerdict('unverifiable', [], { ...xSigned, ...standard }).why).toContain('secrets of both kinds');
  });

  it('counts a destination as signing by the secrets its scheme uses', () => {
    const d = { hasSecret: true, maskedSigningSecrets: [] as string[] };
    expect(signsRequests({ ...d, signing: 'segment' })).toBe(true);
    expect(signsRequests({ ...d, signing: 'standard' })).toBe(false); // a shared secret it does not use
    expect(signsRequests({ hasSecret: false, maskedSigningSecrets: ['••••••••'], signing: 'standard' })).toBe(true);
    expect(signsRequests({ hasSecret: false, maskedSigningSecrets: ['••••••••'], signing: 'segment' })).toBe(false);
  });
});

describe('behaviour switches', () => {
  it('turn drafts into the receiver’s behaviours', () => {
    expect(behaviourOf({ mode: 'ok', status: 'x', failurePercent: 'y' })).toEqual({ ok: true, behaviour: { mode: 'ok' } });
    expect(behaviourOf({ mode: 'status', status: '503', failurePercent: '' })).toEqual({ ok: true, behaviour: { mode: 'status', status: 503 } });
    expect(behaviourOf({ mode: 'random', status: '500', failurePercent: '30' })).toEqual({ ok: true, behaviour: { mode: 'random', failureRate: 0.3, status: 500 } });
    expect(behaviourOf({ mode: 'hang', status: '', failurePercent: '' })).toEqual({ ok: true, behaviour: { mode: 'hang' } });
  });

  it('refuse what the receiver would refuse, with the range to use', () => {
    expect(behaviourOf({ mode: 'status', status: '99', failurePercent: '' })).toEqual({ ok: false, error: 'The status must be a whole number from 100 to 599, e.g. 503.' });
    expect(behaviourOf({ mode: 'status', status: '503.5', failurePercent: '' }).ok).toBe(false);
    expect(behaviourOf({ mode: 'random', status: '200', failurePercent: '30' })).toMatchObject({ ok: false, error: expect.stringContaining('400 to 599') });
    expect(behaviourOf({ mode: 'random', status: '500', failurePercent: '120' })).toMatchObject({ ok: false, error: expect.stringContaining('0 to 100') });
  });

  it('round-trip through a draft and read as words', () => {
    const random = { mode: 'random', failureRate: 0.25, status: 502 } as const;
    expect(behaviourOf(draftOf(random))).toEqual({ ok: true, behaviour: random });
    expect(describeBehaviour(random)).toBe('answers 502 to 25 % of requests, 200 otherwise');
    expect(describeBehaviour({ mode: 'hang' })).toContain('timeout');
  });
});

describe('the inbox', () => {
  const entry = (id: number): InboxEntry => ({ id, hook: 'demo', receivedAt: id, headers: {}, body: '{}', signature: 'unsigned', answeredStatus: 200 });

  it('keeps entries newest first, once each, up to the cap', () => {
    expect(mergeEntries([entry(3), entry(2)], [entry(4), entry(3), entry(5)]).map((e) => e.id)).toEqual([5, 4, 3, 2]);
    expect(mergeEntries([entry(2), entry(1)], [entry(3)], 2).map((e) => e.id)).toEqual([3, 2]);
  });

  it('finds hook names in webhook URLs that point at the receiver', () => {
    const base = 'http://127.0.0.1:4001';
    expect(hookOf(`${base}/hooks/demo`, base)).toBe('demo');
    expect(hookOf(`${base}/hooks/my%20hook/?x=1`, base)).toBe('my hook');
    expect(hookOf('http://127.0.0.1:4002/hooks/demo', base)).toBeNull();
    expect(hookOf(`${base}/hooks/`, base)).toBeNull();
    expect(hookOf(`${base}/hooks/demo`, '')).toBeNull();
    // Read as the receiver reads requests: the loopback names are one host, a name is decoded.
    expect(hookOf('http://localhost:4001/hooks/lh', base)).toBe('lh');
    expect(hookOf('http://[::1]:4001/hooks/v6', base)).toBe('v6');
    expect(hookOf('http://127.0.0.1:4001/hooks/any', 'http://0.0.0.0:4001')).toBe('any');
    expect(hookOf('http://127.0.0.1:4001/hooks/team@dev', base)).toBe('team@dev');
    expect(hookOf('http://127.0.0.1:4001/hooks/team%40dev', base)).toBe('team@dev');
    expect(hookOf('http://example.com:4001/hooks/demo', base)).toBeNull();
    expect(hookOf('https://127.0.0.1:4001/hooks/demo', base)).toBeNull();
    expect(hookOf('http://127.0.0.1:4001/hooks/a/b', base)).toBeNull();
    expect(hookOf('not a url', base)).toBeNull();
  });
});

describe('delete notifications', () => {
  const delivery = (patch: Partial<DeliveryView>): DeliveryView => ({
    id: 1, status: 'pending', attemptCount: 0, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, skipReason: null, destinationId: 1, trigger: 'deletion',
    replayOf: null, targetUrl: null, body: null, signature: null, firstAttemptAt: null, deadlineAt: null, createdAt: 0, attempts: [], ...patch,
  });
  const attempt = (status: number | null, errorCode: DeliveryErrorCode | null = null) => ({
    id: 1, url: 'http://x', startedAt: 0, durationMs: 12.4, requestHeaders: {}, responseStatus: status, responseHeaders: null, responseBody: null,
    errorCode, errorMessage: null, outcome: 'retry', retryAt: null,
  });

  it('read as delivered, retrying with a countdown and the answer, or failed with the error', () => {
    expect(describeNotification(delivery({ status: 'delivered', attemptCount: 1, attempts: [attempt(200)] }), 0)).toEqual({
      label: '✓ delivered', tone: 'ok', lastAnswer: 'HTTP 200 in 12 ms',
    });
    const retrying = describeNotification(
      delivery({ status: 'retrying', attemptCount: 1, nextAttemptAt: 15_000, lastError: 'the webhook answered 503', lastErrorCode: 'http', lastHttpStatus: 503, attempts: [attempt(503, 'http')] }),
      3_000,
    );
    expect(retrying).toEqual({ label: '⟳ next: attempt 2 in 12 s · last: HTTP 503', tone: 'warn', lastAnswer: 'HTTP 503 in 12 ms' });
    expect(describeNotification(delivery({ status: 'failed', attemptCount: 3, lastErrorCode: 'timeout', attempts: [attempt(null, 'timeout')] }), 0)).toMatchObject({
      label: '✗ failed after 3 attempts: timeout · gave up after 4 h of retries', tone: 'bad', lastAnswer: 'timeout',
    });
    // A final 4xx says it was not retried.
    expect(
      describeNotification(delivery({ status: 'failed', attemptCount: 1, lastErrorCode: 'http', lastHttpStatus: 400, attempts: [attempt(400, 'http')] }), 0).label,
    ).toBe('✗ failed after 1 attempt: HTTP 400 · not retried (4xx)');
    expect(describeNotification(delivery({}), 0)).toEqual({ label: '… queued', tone: 'info', lastAnswer: null });
  });
});

describe('bodySummary', () => {
  it('says what a webhook body carries in one line', () => {
    expect(bodySummary('{"version":1,"type":"track","userId":"u_ada","event":"Order Completed"}')).toBe('track “Order Completed” · u_ada');
    expect(bodySummary('{"type":"delete","userId":"u_1"}')).toBe('delete · u_1');
    expect(bodySummary('{"type":"alias","Previous ID":"anon","User ID":"u_2"}')).toBe('alias · u_2');
    expect(bodySummary('{"type":"page","anonymousId":"a","name":"Pricing"}')).toBe('page “Pricing” · a');
    expect(bodySummary('not json')).toBe('not JSON');
    expect(bodySummary('')).toBe('(empty body)');
    expect(bodySummary('[1]')).toBe('JSON, not an object');
  });
});
