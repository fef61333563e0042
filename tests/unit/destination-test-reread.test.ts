// The test panel reads its delivery again (deliveries.get) after a reconnect: the stored delivery
// updates the run like a live change would, and never takes it back to an older state.
import { describe, expect, it } from 'vitest';
import type { DeliverySummary } from '../../shared/contract.ts';
import { applyDelivery, tell, type TestRun } from '../../renderer/src/views/destinations/test-run.ts';

// Casts: DeliverySummary and TestRun grow fields (error codes, trigger) that this test does not need.
const retrying = {
  phase: 'sent',
  deliveryId: 9,
  status: 'retrying',
  attemptCount: 1,
  nextAttemptAt: 5_000,
  lastError: 'the receiver answered 503; will retry',
  lastErrorCode: 'http',
  lastHttpStatus: 503,
} as TestRun;

const stored = (patch: Partial<DeliverySummary>) =>
  ({
    id: 9,
    status: 'delivered',
    attemptCount: 2,
    nextAttemptAt: null,
    lastError: null,
    lastErrorCode: null,
    lastHttpStatus: null,
    skipReason: null,
    destinationId: 1,
    trigger: 'test',
    targetUrl: null,
    ...patch,
  }) as DeliverySummary;

describe('a test run read again', () => {
  it('takes what was missed while disconnected: delivered on the second attempt', () => {
    const run = applyDelivery(retrying, stored({}));
    expect(run).toMatchObject({ phase: 'sent', deliveryId: 9, status: 'delivered', attemptCount: 2, nextAttemptAt: null, lastError: null });
    expect(tell(run, 0).text).toBe('✓ Delivered — a webhook answered 2xx on attempt 2 (test delivery #9).');
  });

  it('takes a cancellation made elsewhere, and ignores an older read and another delivery', () => {
    expect(applyDelivery(retrying, stored({ status: 'cancelled', attemptCount: 1 }))).toMatchObject({ status: 'cancelled', attemptCount: 1 });
    const delivered = applyDelivery(retrying, stored({}));
    expect(applyDelivery(delivered, stored({ status: 'retrying', attemptCount: 1 }))).toBe(delivered);
    expect(applyDelivery(retrying, stored({ id: 10 }))).toBe(retrying);
    expect(applyDelivery({ phase: 'sending' }, stored({}))).toEqual({ phase: 'sending' });
  });
});
