// What the inspector says about a receiver's health (the destinations list and editor), a forward's
// request in the Webhook tab, and an attempt refused by a Sluice's loop guard (the attempts timeline and
// the stream's row): pure functions over the contract's views.
import { describe, expect, it } from 'vitest';
import type { AttemptView, DeliveryView, DestinationView, WebhookHealth } from '../../shared/contract.ts';
import { healthWords, targetOf } from '../../renderer/src/views/destinations/health.ts';
import { isLoopRefusalError, loopExplanation, loopRefusalOf } from '../../renderer/src/lib/loop-refusal.ts';
import { describeOutcome } from '../../renderer/src/store/outcome.ts';
import { notRequestedReason, requestsOf } from '../../renderer/src/views/stream/request-shown.ts';

const closed: WebhookHealth = { url: 'http://127.0.0.1:3000/hook', breaker: 'closed', failures: 0, probeAt: null, lastError: null, gone: null };
const now = 1_700_000_000_000;

describe('a receiver’s health in words', () => {
  it('says nothing while the breaker is closed and nothing failed; counts failures in a row before it opens', () => {
    expect(healthWords(closed, now)).toBeNull();
    expect(healthWords({ ...closed, failures: 2, lastError: 'the receiver answered 503; will retry' }, now)).toEqual({
      tone: 'warn',
      text: '2 failures in a row',
      detail: '2 failures in a row; the last: the receiver answered 503; will retry',
      gone: false,
    });
  });

  it('an open breaker counts down to its probe; half-open is probing', () => {
    const open: WebhookHealth = { ...closed, breaker: 'open', failures: 5, probeAt: now + 25_000, lastError: 'the receiver answered 503; will retry' };
    expect(healthWords(open, now)).toMatchObject({ tone: 'bad', text: 'receiver down — next probe in 25 s', detail: '5 failures in a row; the last: the receiver answered 503; will retry' });
    expect(healthWords(open, now + 24_000)!.text).toBe('receiver down — next probe in 1 s');
    expect(healthWords(open, now + 25_000)!.text).toBe('receiver down — next probe due now');
    expect(healthWords({ ...open, probeAt: now + 90_000 }, now)!.text).toBe('receiver down — next probe in 1 min 30 s');
    expect(healthWords({ ...open, breaker: 'half-open', probeAt: null }, now)).toMatchObject({ tone: 'warn', text: 'probing — one request tests the receiver' });
  });

  it('410 Gone: disabled, with its reason, whatever the breaker', () => {
    const words = healthWords({ ...closed, gone: { at: now, reason: 'the receiver answered 410 Gone: Sluice stops sending to this URL' } }, now)!;
    expect(words.gone).toBe(true);
    expect(words.text).toBe('disabled: answered 410 Gone');
    expect(words.detail).toMatch(/^the receiver answered 410 Gone: Sluice stops sending to this URL \(since .+\)$/);
  });

  it('names where a destination sends: the forward’s host, one webhook’s host and path, or a count', () => {
    const api = { url: 'https://api.segment.io', batchUrl: 'https://api.segment.io/v1/batch', maskedWriteKey: '••••••••', batchSize: 100, flushMs: 1000, gzip: false };
    expect(targetOf({ kind: 'tracking-api', trackingApi: api, webhooks: [] })).toBe('forwards to api.segment.io');
    expect(targetOf({ kind: 'webhooks', trackingApi: null, webhooks: [{ url: 'http://localhost:3000/hook', headers: {} }] })).toBe('localhost:3000/hook');
    expect(targetOf({ kind: 'webhooks', trackingApi: null, webhooks: [{ url: 'http://a/', headers: {} }, { url: 'http://b/', headers: {} }] })).toBe('2 webhooks');
  });
});

const attempt = (patch: Partial<AttemptView>): AttemptView => ({
  id: 1,
  url: 'http://127.0.0.1:8088/v1/track',
  startedAt: now,
  durationMs: 3,
  requestHeaders: {},
  responseStatus: 409,
  responseHeaders: {},
  responseBody: JSON.stringify({ success: false, error: { code: 'loop_detected', message: 'this request was sent by this Sluice and came back to it' } }),
  errorCode: 'http',
  errorMessage: 'refused by the loop guard (409 loop_detected): …',
  outcome: 'final',
  retryAt: null,
  ...patch,
});

describe('the loop guard’s refusals', () => {
  it('are told by a 409 whose body carries loop_detected or too_many_hops, and by nothing else', () => {
    expect(loopRefusalOf(attempt({}))).toBe('loop_detected');
    expect(loopRefusalOf(attempt({ responseBody: '{"success":false,"error":{"code":"too_many_hops","message":"…"}}' }))).toBe('too_many_hops');
    expect(loopRefusalOf(attempt({ responseBody: '{"error":{"code":"conflict"}}' }))).toBeNull();
    expect(loopRefusalOf(attempt({ responseStatus: 400 }))).toBeNull();
    expect(loopRefusalOf(attempt({ responseBody: 'loop_detected' }))).toBeNull(); // not JSON
    expect(loopRefusalOf(attempt({ responseStatus: null, responseBody: null }))).toBeNull();
  });

  it('are explained with the fix, and the stream’s row says loop guard rather than a bare status', () => {
    expect(loopExplanation('loop_detected')).toMatch(/^Refused by the loop guard: the receiver is a Sluice this request had already passed through .* Point the destination elsewhere/);
    expect(loopExplanation('too_many_hops')).toContain('more than 8 Sluices');
    // Two Sluices forwarding to each other: pointing "elsewhere" is not the whole fix.
    for (const code of ['loop_detected', 'too_many_hops'] as const) expect(loopExplanation(code)).toMatch(/when two Sluices forward to each other, one of the two must stop forwarding to the other\.$/);
    const failed = (lastError: string) => ({
      status: 'accepted' as const,
      rejectCode: null,
      rejectReason: null,
      deliveryCount: 1,
      delivery: { id: 1, status: 'failed' as const, attemptCount: 1, nextAttemptAt: null, lastError, lastErrorCode: 'http' as const, lastHttpStatus: 409, skipReason: null },
    });
    const refused = describeOutcome(failed('refused by the loop guard (409 loop_detected): this request was sent by this Sluice and came back to it'), now);
    expect(refused.label).toBe('✗ failed: loop guard (HTTP 409) · not retried');
    expect(refused.title).toContain('came back to it');
    expect(describeOutcome(failed('the receiver answered 409; a 4xx is final'), now).label).toBe('✗ failed: HTTP 409 · not retried (4xx)');
    expect(isLoopRefusalError(null)).toBe(false);
  });
});

describe('a forward’s request in the Webhook tab', () => {
  const destination = {
    id: 3,
    kind: 'tracking-api',
    webhooks: [],
    signing: 'segment',
    trackingApi: { url: 'http://127.0.0.1:8088', batchUrl: 'http://127.0.0.1:8088/v1/batch', maskedWriteKey: '••••••••', batchSize: 100, flushMs: 1000, gzip: true },
  } as unknown as DestinationView;
  const delivery = { id: 5, destinationId: 3, targetUrl: null, signature: null, body: null, attempts: [] as AttemptView[] } as DeliveryView;

  it('goes to the API’s batch URL with Basic auth (the key itself unknown until sent) and gzip when asked, unsigned', () => {
    const [request, ...more] = requestsOf(delivery, destination);
    expect(more).toHaveLength(0);
    expect(request).toEqual({
      url: 'http://127.0.0.1:8088/v1/batch',
      headers: { 'User-Agent': 'Sluice/1.0', 'Content-Type': 'application/json', Authorization: 'Basic base64(<write key>:)', 'Content-Encoding': 'gzip' },
      recorded: false,
      current: true,
    });
  });

  it('once sent, shows the headers the attempt recorded', () => {
    const headers = { Authorization: 'Basic d2tfdXA6', 'Sluice-Loop': 'sl_abc' };
    const sent = { ...delivery, attempts: [attempt({ url: 'http://127.0.0.1:8088/v1/batch', requestHeaders: headers })] };
    expect(requestsOf(sent, destination)).toEqual([{ url: 'http://127.0.0.1:8088/v1/batch', headers, recorded: true, current: true, attemptId: 1 }]);
    // The core masks the write key in the view it gives (AttemptView.maskedHeaders): the tab reveals it from there.
    const masked = { ...delivery, attempts: [attempt({ url: 'http://127.0.0.1:8088/v1/batch', requestHeaders: { Authorization: 'Basic ••••••••' }, maskedHeaders: ['Authorization'] })] };
    expect(requestsOf(masked, destination)[0]).toMatchObject({ recorded: true, attemptId: 1, masked: ['Authorization'] });
  });
});

describe('a URL a sent delivery made no request to', () => {
  const url = 'http://127.0.0.1:3000/hook';
  const old = 'http://127.0.0.1:8789/hooks/demo';
  const webhooks = (...urls: string[]) => ({ id: 3, kind: 'webhooks', signing: 'segment', webhooks: urls.map((u) => ({ url: u, headers: {} })) }) as unknown as DestinationView;
  const sentTo = (...urls: string[]) =>
    ({ id: 5, destinationId: 3, targetUrl: null, signature: 'abc', body: '{}', attempts: urls.map((u) => attempt({ url: u, startedAt: now, requestHeaders: {} })) }) as unknown as DeliveryView;
  const withHealth = (destination: DestinationView, patch: Partial<WebhookHealth>) => ({ ...destination, health: [{ ...closed, ...patch }] });

  it('lists the request sent first, and says the destination’s URL changed when none it went to is the destination’s now', () => {
    const destination = webhooks(url);
    const delivery = sentTo(old);
    const requests = requestsOf(delivery, destination);
    expect(requests.map((r) => [r.url, r.recorded, r.current])).toEqual([
      [old, true, false],
      [url, false, true],
    ]);
    expect(notRequestedReason(requests[1]!, requests, destination, delivery)).toBe(
      `The destination’s URL changed after this delivery was sent: its request went to ${old}. This URL is the destination’s now: a new delivery or a replay posts here. So there is no signature to check here.`,
    );
  });

  it('names where the requests went, and adds only what the URL’s health says for a fact', () => {
    const destination = webhooks('http://127.0.0.1:4000/other', url);
    const delivery = sentTo('http://127.0.0.1:4000/other');
    const requests = requestsOf(delivery, destination);
    const plain = notRequestedReason(requests[1]!, requests, destination, delivery);
    expect(plain).toBe('No request was made to this URL for this delivery: its requests went to http://127.0.0.1:4000/other. So there is no signature to check here.');
    expect(plain).not.toMatch(/410|circuit breaker|added/);
    // Gone before the delivery's requests: that is why. Gone after: it has been disabled since.
    const goneBefore = withHealth(destination, { gone: { at: now - 1000, reason: 'answered 410 Gone' } });
    expect(notRequestedReason(requests[1]!, requests, goneBefore, delivery)).toMatch(/: its requests went to http:\/\/127\.0\.0\.1:4000\/other\. It was disabled before then: it answered 410 Gone at /);
    const goneAfter = withHealth(destination, { gone: { at: now + 1000, reason: 'answered 410 Gone' } });
    expect(notRequestedReason(requests[1]!, requests, goneAfter, delivery)).toMatch(/\. It has been disabled since: it answered 410 Gone at /);
    const down = withHealth(destination, { breaker: 'open', failures: 5 });
    expect(notRequestedReason(requests[1]!, requests, down, delivery)).toContain('Its receiver is down now (circuit breaker open)');
  });

  it('shows a URL naming the built-in receiver with where it posts now', () => {
    const destination = webhooks('sluice://receiver/demo');
    const [request] = requestsOf(sentTo('sluice://receiver/demo'), destination, 'http://127.0.0.1:54321');
    expect(request).toMatchObject({ url: 'sluice://receiver/demo', recorded: true, current: true, address: 'http://127.0.0.1:54321/hooks/demo' });
    expect(requestsOf(sentTo(url), webhooks(url), 'http://127.0.0.1:54321')[0]).not.toHaveProperty('address');
  });
});
