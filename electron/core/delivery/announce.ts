import type { DeliveryChange, EventBus } from '../bus/event-bus.ts';
import { lastErrorOf, type DeliveriesRepo, type Delivery, type DueDelivery, type LastAttempt } from '../store/deliveries-repo.ts';
import type { DeliveryResult } from '../store/delivery-types.ts';

/** A stored delivery as a `deliveries.changed` entry; `last` is its newest attempt (for the error code). */
export function changeOf(d: Delivery, last: LastAttempt | undefined): DeliveryChange {
  return {
    deliveryId: d.id,
    messageId: d.messageId,
    destinationId: d.destinationId,
    trigger: d.trigger,
    targetUrl: d.targetUrl,
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.nextAttemptAt,
    lastError: d.lastError,
    ...lastErrorOf(d, last),
  };
}

/** A round's result as a `deliveries.changed` entry: its last failed attempt names the error. */
export function roundChange(result: DeliveryResult, delivery: DueDelivery): DeliveryChange {
  const last = result.status === 'delivered' ? undefined : result.attempts.at(-1);
  return {
    deliveryId: result.deliveryId,
    messageId: delivery.messageId,
    destinationId: delivery.destinationId,
    trigger: delivery.trigger,
    targetUrl: delivery.targetUrl,
    status: result.status,
    attemptCount: result.attemptCount,
    nextAttemptAt: result.nextAttemptAt,
    lastError: result.lastError,
    lastErrorCode: last?.errorCode ?? null,
    lastHttpStatus: last?.errorCode === 'http' ? last.responseStatus : null,
    // What the destination's filters and transform made of it, and why a round skipped it (issue 28).
    ...(result.shaping ? { shaping: result.shaping } : {}),
    ...(result.status === 'skipped' ? { skipReason: result.skipReason ?? null } : {}),
  };
}

/**
 * Announces these deliveries as they are stored, for changes made outside an attempt round (the
 * engine announces those): deliveries created (replay, deletion notification, test event), moved
 * to now (retry now) or cancelled. Read back after the write, so what is announced is what is
 * stored — a cancel that came too late for a delivery announces the delivery's real state.
 */
export function announceStored(deliveries: DeliveriesRepo, bus: EventBus, ids: readonly number[]): void {
  const changes = storedChanges(deliveries, ids);
  if (changes.length > 0) bus.emit('deliveries.changed', changes);
}

/** These deliveries as stored, as `deliveries.changed` entries (unknown ids left out). */
export function storedChanges(deliveries: DeliveriesRepo, ids: readonly number[]): DeliveryChange[] {
  if (ids.length === 0) return [];
  const rows = deliveries.byIds(ids);
  const erring = rows.filter((d) => d.status === 'retrying' || d.status === 'failed').map((d) => d.id);
  const last = deliveries.lastAttempts(erring);
  return rows.map((d) => changeOf(d, last.get(d.id)));
}
