// Retry policy: which answers are retried, how long to wait, and Retry-After.
import { describe, expect, it } from 'vitest';
import { backoffDelay, isRetryableStatus, MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../electron/client/backoff.ts';

describe('backoffDelay', () => {
  const settings = { baseMs: 500, maxMs: 30_000 };
  it('doubles per retry, with jitter in the upper half of the ceiling', () => {
    expect(backoffDelay(1, settings, () => 0)).toBe(250);
    expect(backoffDelay(1, settings, () => 0.999999)).toBe(500);
    expect(backoffDelay(2, settings, () => 0)).toBe(500);
    expect(backoffDelay(3, settings, () => 1)).toBe(2000);
  });
  it('is capped at maxMs', () => {
    expect(backoffDelay(30, settings, () => 1)).toBe(30_000);
    expect(backoffDelay(30, settings, () => 0)).toBe(15_000);
  });
  it('varies between calls', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(4, settings)));
    expect(delays.size).toBeGreaterThan(10);
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(4000);
    }
  });
});

describe('isRetryableStatus', () => {
  it('retries 408, 429 and 5xx, nothing else', () => {
    for (const status of [408, 429, 500, 502, 503, 504, 599]) expect(isRetryableStatus(status)).toBe(true);
    for (const status of [200, 301, 400, 401, 403, 404, 413, 422]) expect(isRetryableStatus(status)).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-20T08:30:00Z');
  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0.5 ', now)).toBe(500);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 08:30:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 08:29:00 GMT', now)).toBe(0);
  });
  it('ignores what it cannot read, and caps long waits', () => {
    for (const value of [undefined, '', '-5', 'soon', '1e3', '12abc']) expect(parseRetryAfter(value, now)).toBeUndefined();
    expect(parseRetryAfter('86400', now)).toBe(MAX_RETRY_AFTER_MS);
  });
});
