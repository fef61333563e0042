// "Send test event" as the destination editor follows and tells it.
import { describe, expect, it } from 'vitest';
import { applyChange, tell, testHint, type TestRun } from '../../renderer/src/views/destinations/test-run.ts';

const sent: TestRun = { phase: 'sent', deliveryId: 9, status: 'pending', attemptCount: 0, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null };
const change = (patch: object) => ({ deliveryId: 9, messageId: null, status: 'delivered', attemptCount: 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'test', targetUrl: null, ...patch });

describe('a test run', () => {
  it("follows its own delivery's changes and ignores others and stale ones", () => {
    const retrying = applyChange(sent, change({ status: 'retrying', nextAttemptAt: 5_000, lastError: 'the receiver answered 503; will retry' }));
    expect(retrying).toMatchObject({ status: 'retrying', attemptCount: 1 });
    expect(applyChange(retrying, change({ deliveryId: 10, status: 'failed' }))).toBe(retrying);
    const delivered = applyChange(retrying, change({ status: 'delivered', attemptCount: 2 }));
    expect(delivered).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect(applyChange(delivered, change({ status: 'retrying', attemptCount: 1 }))).toBe(delivered);
    expect(applyChange({ phase: 'sending' }, change({}))).toEqual({ phase: 'sending' });
  });

  it('tells each state as a sentence, with the next attempt and the fix', () => {
    expect(tell(sent, 0)).toEqual({ tone: 'info', text: 'Queued; waiting for the first attempt (test delivery #9)…' });
    expect(tell(applyChange(sent, change({})), 0)).toEqual({ tone: 'ok', text: '✓ Delivered — a webhook answered 2xx on the first attempt (test delivery #9).' });
    expect(tell(applyChange(sent, change({ status: 'retrying', nextAttemptAt: 15_000, lastError: 'the receiver answered 503; will retry' })), 0)).toEqual({
      tone: 'warn',
      text: '⟳ Not delivered yet: the receiver answered 503; will retry. Next attempt in 15 s (test delivery #9).',
    });
    const failed = tell(applyChange(sent, change({ status: 'failed', lastError: 'the receiver answered 404; a 4xx is final, the request will not be retried', lastErrorCode: 'http', lastHttpStatus: 404 })), 0);
    expect(failed.tone).toBe('bad');
    expect(failed.text).toMatch(/^✗ Failed: the receiver answered 404; .* Check the URL’s path/);
    const tls = tell(applyChange(sent, change({ status: 'failed', lastError: "https://localhost:8443 — its certificate is self-signed; nothing was sent. Add its CA under the webhook's TLS settings (caCert).", lastErrorCode: 'tls' })), 0);
    expect(tls.text).not.toMatch(/Check the URL/);
    expect(tell({ phase: 'refused', message: '“x” is disabled; enable it and save, then send the test event again' }, 0)).toEqual({
      tone: 'bad',
      text: 'The test event was not sent: “x” is disabled; enable it and save, then send the test event again.',
    });
  });

  it('a tracking-api destination’s test is a forward: said so beside the button and when it is delivered', () => {
    expect(testHint(false)).toContain('to this destination’s webhooks only');
    const hint = testHint(true);
    expect(hint).toMatch(/^Forwards one real track call \(“Sluice Test Event”\) to this destination’s Tracking API/);
    expect(hint).toContain('in production');
    expect(hint).not.toMatch(/webhook|signed/);
    expect(tell(applyChange(sent, change({})), 0, true).text).toBe('✓ Delivered — the Tracking API answered 2xx on the first attempt (test delivery #9).');
    const unauthorized = tell(applyChange(sent, change({ status: 'failed', lastError: 'the API answered 401: invalid write key', lastErrorCode: 'http', lastHttpStatus: 401 })), 0, true);
    expect(unauthorized.text).toContain('Check the API URL and the write key');
    expect(unauthorized.text).not.toContain('Authorization');
  });

  it('a loop guard’s 409 gets the loop explanation and a 410 where to re-enable the URL, not advice about paths and headers', () => {
    const loop = tell(applyChange(sent, change({ status: 'failed', lastError: 'refused by the loop guard (409 loop_detected): this request was sent by this Sluice and came back to it', lastErrorCode: 'http', lastHttpStatus: 409 })), 0);
    expect(loop.text).toMatch(/came back to it\. Refused by the loop guard: the receiver is a Sluice .* one of the two must stop forwarding to the other\. \(test delivery #9\)$/);
    expect(loop.text).not.toMatch(/Authorization|path/);
    const hops = tell(applyChange(sent, change({ status: 'failed', lastError: 'refused by the loop guard (409 too_many_hops): 9 Sluices', lastErrorCode: 'http', lastHttpStatus: 409 })), 0, true);
    expect(hops.text).toContain('more than 8 Sluices');
    const gone = tell(applyChange(sent, change({ status: 'failed', lastError: 'the receiver answered 410 Gone: Sluice stops sending to this URL until it is re-enabled or the destination is edited', lastErrorCode: 'http', lastHttpStatus: 410 })), 0);
    expect(gone.text).toContain('That URL is now disabled — Re-enable it in Destinations');
    expect(gone.text).not.toMatch(/Authorization|path/);
    // Another 409 is a receiver's own: the usual advice.
    expect(tell(applyChange(sent, change({ status: 'failed', lastError: 'the receiver answered 409', lastErrorCode: 'http', lastHttpStatus: 409 })), 0).text).toContain('Check the URL’s path');
  });
});
