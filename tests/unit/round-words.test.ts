// What a round's errors say once the round has settled (delivery/round.ts): the round's verdict, not the
// sender's, when they differ — a round that gives up, a webhook not retried because another took the
// event, a 4xx posted to again because another webhook keeps the delivery retrying.
import { describe, expect, it } from 'vitest';
import { attemptError, settle } from '../../electron/core/delivery/round.ts';
import { MAX_ROUNDS } from '../../electron/core/delivery/retry-schedule.ts';

const T = Date.parse('2026-12-01T00:00:00.000Z');

describe('a settled round\'s words', () => {
  it('a round that gives up says so in place of the sender\'s "will retry", the held-back one\'s too', () => {
    const give = (error: string) => settle({}, { attemptCount: MAX_ROUNDS, firstAttemptAt: T, now: T + 60_000, delivered: false, retryable: true, retryAfterMs: undefined, error });
    expect(give('the receiver answered 503; will retry')).toMatchObject({ status: 'failed', lastError: `the receiver answered 503 — gave up after ${MAX_ROUNDS} rounds` });
    expect(give('the receiver answered 404; will retry: a webhook its circuit breaker held back may take it').lastError).toBe(`the receiver answered 404 — gave up after ${MAX_ROUNDS} rounds`);
  });

  it('an attempt says what the round made of it', () => {
    expect(attemptError('the receiver answered 503; will retry', false, 'delivered')).toBe('the receiver answered 503; not retried: another webhook took the event');
    expect(attemptError('the receiver answered 503; will retry', false, 'failed')).toBe('the receiver answered 503; not retried: the delivery gave up');
    expect(attemptError('the receiver answered 400; a 4xx is final, the request will not be retried', false, 'retrying')).toBe('the receiver answered 400; a 4xx, but the delivery is retried for another webhook');
    expect(attemptError('the receiver answered 400; a 4xx is final, the request will not be retried', false, 'failed')).toBe('the receiver answered 400; a 4xx is final, the request will not be retried');
    expect(attemptError('the receiver answered 503; will retry', false, 'retrying')).toBe('the receiver answered 503; will retry');
  });
});
