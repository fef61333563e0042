// What the inspector's fault notice says about each fault and each faulted request (fault-words.ts).
import { describe, expect, it } from 'vitest';
import type { FaultView } from '../../shared/contract.ts';
import { faultWords, outcomeWords } from '../../renderer/src/views/faults/fault-words.ts';

const base: FaultView = {
  id: 1, status: 503, drop: false, delayMs: null, retryAfter: null, path: null, times: null, applied: 0,
  forMs: null, addedAt: '2026-11-29T10:00:00.000Z', endsAt: null, remainingMs: null,
};

describe('faultWords', () => {
  it.each<[Partial<FaultView>, string]>([
    [{}, 'answers 503 on every Tracking API endpoint, until cleared'],
    [{ status: 429, retryAfter: 2, times: 3, applied: 1 }, 'answers 429 (Retry-After: 2 s) on every Tracking API endpoint, for 2 more requests'],
    [{ status: null, drop: true, path: '/v1/batch', times: 1 }, 'closes the connection unanswered on /v1/batch, for 1 more request'],
    [{ status: null, delayMs: 2_000, forMs: 10_000, remainingMs: 4_500 }, 'holds each request 2.00 s, then answers as usual on every Tracking API endpoint, for 4.50 s more'],
    [{ delayMs: 500, times: 2, applied: 0, forMs: 60_000, remainingMs: 30_000 }, 'holds each request 500 ms, then answers 503 on every Tracking API endpoint, for 2 more requests or 30.0 s more'],
  ])('%j: %s', (fault, words) => {
    expect(faultWords({ ...base, ...fault })).toBe(words);
  });
});

describe('outcomeWords', () => {
  const request = { at: '2026-11-29T10:00:00.000Z', path: '/v1/t', source: 'web', faultId: 1, bytes: 10, retryCount: null };
  it('names what each request got', () => {
    expect(outcomeWords({ ...request, outcome: 'answered', status: 503, delayMs: null })).toBe('answered 503');
    expect(outcomeWords({ ...request, outcome: 'dropped', status: null, delayMs: null })).toBe('dropped');
    expect(outcomeWords({ ...request, outcome: 'delayed', status: null, delayMs: 1_500 })).toBe('delayed 1.50 s');
  });
});
