// The stream's rows follow the core's rule for which delivery they show (shared/shown-delivery.ts)
// as delivery changes arrive live: a replay supersedes what it repeats (a recovered message reads
// "✓ delivered (replayed)"), a typed-URL replay does not, and a row asks the core again when
// deliveries it has not seen could decide what it shows.
import { describe, expect, it } from 'vitest';
import type { DeliverySummary } from '../../shared/contract.ts';
import { addPage, addRows, applyDeliveryChanges, emptyList, type DeliveryChange } from '../../renderer/src/store/model.ts';
import { describeOutcome } from '../../renderer/src/store/outcome.ts';
import { msg } from '../helpers/renderer-fixtures.ts';

const NOW = 1_000_000;

function delivery(id: number, status: string, extra: Partial<DeliverySummary> = {}): DeliverySummary {
  return {
    id,
    status,
    attemptCount: status === 'pending' ? 0 : 1,
    nextAttemptAt: null,
    lastError: status === 'failed' ? 'the receiver answered 500' : null,
    lastErrorCode: status === 'failed' ? 'http' : null,
    lastHttpStatus: status === 'failed' ? 500 : null,
    skipReason: null,
    destinationId: 1,
    trigger: 'automatic',
    targetUrl: null,
    ...extra,
  };
}

function change(d: DeliverySummary, messageId: number): DeliveryChange {
  const { id, skipReason: _skip, ...rest } = d;
  return { deliveryId: id, messageId, ...rest };
}

/** One failed message (delivery 11 to destination 1), loaded. */
const failedRow = (extra: { deliveryCount?: number } = {}) =>
  addPage(emptyList(), [msg(1, { delivery: delivery(11, 'failed'), deliveryCount: extra.deliveryCount ?? 1 })], null);

describe('a row as replays arrive', () => {
  it('a replay to the destination supersedes the failure: queued at once, then "✓ delivered (replayed)"', () => {
    let list = failedRow();
    expect(describeOutcome(list.byId.get(1)!, NOW).label).toBe('✗ failed: HTTP 500 · gave up after 4 h of retries');
    // The creation event: the core announces the new delivery before any attempt.
    let out = applyDeliveryChanges(list, [change(delivery(12, 'pending', { trigger: 'replay' }), 1)]);
    list = out.list;
    expect(out.refetch).toEqual([]); // every delivery of the row is known: no need to ask
    expect(list.byId.get(1)).toMatchObject({ delivery: { id: 12, status: 'pending' }, deliveryCount: 2 });
    expect(describeOutcome(list.byId.get(1)!, NOW).label).toBe('… replay queued');
    expect(list.counts).toMatchObject({ failed: 0, pending: 1 });

    out = applyDeliveryChanges(list, [change(delivery(12, 'delivered', { trigger: 'replay' }), 1)]);
    list = out.list;
    expect(out.refetch).toEqual([]);
    const text = describeOutcome(list.byId.get(1)!, NOW);
    expect(text).toMatchObject({ kind: 'delivered', label: '✓ delivered (replayed)', tone: 'ok' });
    expect(text.title).toMatch(/^Delivered by a replay \(of 2 deliveries/);
    expect(list.counts).toMatchObject({ failed: 0, delivered: 1, pending: 0 });
    // The original's late news (it was final already) changes nothing: it is superseded.
    out = applyDeliveryChanges(list, [change(delivery(11, 'failed', { attemptCount: 1 }), 1)]);
    expect(out.list.byId.get(1)!.delivery!.id).toBe(12);
  });

  it('a replay to a typed URL is a side experiment: the row keeps the destination’s own state', () => {
    const list = failedRow();
    const side = delivery(12, 'delivered', { trigger: 'replay', targetUrl: 'http://localhost:3000/hook' });
    const out = applyDeliveryChanges(list, [change({ ...side, status: 'pending', attemptCount: 0 }, 1), change(side, 1)]);
    expect(out.refetch).toEqual([]);
    expect(out.list.byId.get(1)).toMatchObject({ delivery: { id: 11, status: 'failed' }, deliveryCount: 2 });
    expect(out.list.counts).toMatchObject({ failed: 1, delivered: 0 });
  });

  it('a failed replay of a delivered message shows as a failed replay', () => {
    const list = addPage(emptyList(), [msg(1, { delivery: delivery(11, 'delivered'), deliveryCount: 1 })], null);
    const out = applyDeliveryChanges(list, [change(delivery(12, 'failed', { trigger: 'replay' }), 1)]);
    expect(describeOutcome(out.list.byId.get(1)!, NOW).label).toBe('✗ replay failed: HTTP 500 · gave up after 4 h of retries');
  });

  it('asks the core again when deliveries it has not seen could decide the row', () => {
    // Two deliveries (two destinations), only the failed one known. A replay of it supersedes it:
    // the other destination's delivery, unseen, may be retrying — which would rank above "queued".
    let out = applyDeliveryChanges(failedRow({ deliveryCount: 2 }), [change(delivery(13, 'pending', { trigger: 'replay' }), 1)]);
    expect(out.list.byId.get(1)!.delivery!.id).toBe(13);
    expect(out.refetch).toEqual([1]);

    // An unseen delivery's change that would become the row's: it may be superseded by another unseen one.
    const shownDelivered = addPage(emptyList(), [msg(2, { delivery: delivery(22, 'delivered', { destinationId: 2 }), deliveryCount: 3 })], null);
    out = applyDeliveryChanges(shownDelivered, [change(delivery(20, 'failed'), 2)]);
    expect(out.refetch).toEqual([2]);

    // The shown delivery moving up (failed after retrying): sure, unseen ones rank below it.
    const shownRetrying = addPage(emptyList(), [msg(3, { delivery: delivery(31, 'retrying'), deliveryCount: 2 })], null);
    out = applyDeliveryChanges(shownRetrying, [change(delivery(31, 'failed', { attemptCount: 2 }), 3)]);
    expect(out.refetch).toEqual([]);
    expect(out.list.byId.get(3)!.delivery).toMatchObject({ id: 31, status: 'failed' });
    // An unseen delivery that ranks below the shown one leaves the row as it is, surely.
    out = applyDeliveryChanges(shownRetrying, [change(delivery(32, 'delivered', { destinationId: 2 }), 3)]);
    expect(out.refetch).toEqual([]);
    expect(out.list.byId.get(3)!.delivery!.id).toBe(31);
  });

  it('asks the core when a replay it has not seen may be one of the unseen deliveries or a new one, so its count never falls short', () => {
    // Message 5 went to destinations 1 and 2; both failed. The row shows 52 (the later); 51 is unseen.
    const failedTwice = addPage(emptyList(), [msg(5, { delivery: delivery(52, 'failed', { destinationId: 2 }), deliveryCount: 2 })], null);
    // A replay of it through destination 2 to a typed URL: it does not change what the row shows, but
    // it may be a new delivery (the message then has 3) rather than the unseen 51. Taken for 51, the
    // row would count 2 known of 2, and a replay to destination 2's webhooks, delivered, would then
    // read "delivered" with no question asked — while the core shows 51, failed.
    const side = delivery(53, 'pending', { destinationId: 2, trigger: 'replay', targetUrl: 'http://localhost:3000/hook' });
    let out = applyDeliveryChanges(failedTwice, [change(side, 5)]);
    expect(out.list.byId.get(5)!.delivery!.id).toBe(52);
    expect(out.refetch).toEqual([5]);
    // The core's answer: 3 deliveries, 52 shown. The webhooks replay then arrives: still unsure, asked.
    let list = addRows(out.list, [msg(5, { delivery: delivery(52, 'failed', { destinationId: 2 }), deliveryCount: 3 })], null);
    out = applyDeliveryChanges(list, [change(delivery(54, 'delivered', { destinationId: 2, trigger: 'replay' }), 5)]);
    expect(out.refetch).toEqual([5]);
    // …and the core's answer (51, failed, of 4) is what the row shows.
    list = addRows(out.list, [msg(5, { delivery: delivery(51, 'failed'), deliveryCount: 4 })], null);
    expect(list.byId.get(5)!.delivery).toMatchObject({ id: 51, status: 'failed' });
    // A delivery made with the message (another destination's) was counted by the summary: it is one
    // of the unseen, surely, and the row need not ask.
    out = applyDeliveryChanges(failedTwice, [change(delivery(51, 'failed'), 5)]);
    expect(out.refetch).toEqual([]);
  });

  it('a message with no delivery gets one from a replay through a chosen destination', () => {
    const list = addPage(emptyList(), [msg(4)], null);
    const out = applyDeliveryChanges(list, [change(delivery(41, 'pending', { trigger: 'replay', targetUrl: 'http://localhost:3000/hook' }), 4)]);
    expect(out.refetch).toEqual([]);
    expect(out.list.byId.get(4)).toMatchObject({ delivery: { id: 41 }, deliveryCount: 1 });
    expect(out.list.counts).toMatchObject({ none: 0, pending: 1 });
  });
});
