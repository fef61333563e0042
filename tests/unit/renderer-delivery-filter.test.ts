// The stream under a filter on delivery state (Status, or a `status:` clause in the search), without a
// DOM: a row whose delivery leaves that state leaves the list (not while paused: on resume), and the
// footer's count of matches is asked for again as deliveries change.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeliveryChange, DeliverySummary, MessageSummary } from '../../shared/contract.ts';
import { createInspector } from '../../renderer/src/store/inspector.ts';
import { matchesFilters, type Filters } from '../../renderer/src/store/filters.ts';
import { fakeApi, msg } from '../helpers/renderer-fixtures.ts';

const failed = (id: number): DeliverySummary => ({
  id,
  status: 'failed',
  attemptCount: 1,
  nextAttemptAt: null,
  lastError: 'the receiver answered 400',
  lastErrorCode: 'http',
  lastHttpStatus: 400,
  skipReason: null,
  destinationId: 1,
  trigger: 'automatic',
  targetUrl: null,
});

/** A replay of message `messageId` to its destination's webhooks, queued: it supersedes the failure. */
const replayQueued = (deliveryId: number, messageId: number): DeliveryChange => ({
  deliveryId,
  messageId,
  status: 'pending',
  attemptCount: 0,
  nextAttemptAt: null,
  lastError: null,
  lastErrorCode: null,
  lastHttpStatus: null,
  destinationId: 1,
  trigger: 'replay',
  targetUrl: null,
});

/** Messages 1–3, each failed (delivery 10 × id), under `filters`; the fake core filters with the page's own test. */
async function started(filters: Partial<Filters>, deliveryCount = 1) {
  const stored = new Map<number, MessageSummary>([1, 2, 3].map((id) => [id, msg(id, { delivery: failed(id * 10), deliveryCount })]));
  const matching = () => [...stored.values()].filter((m) => matchesFilters(m, t.inspector.store.getState().filters, 0));
  const fake = fakeApi({
    'app.info': () => ({ version: '0', ingestUrl: 'http://x', receiverUrl: 'http://y', dataDir: '/tmp', sources: [] }),
    'destinations.list': () => ({ destinations: [] }),
    'messages.list': () => ({ messages: matching().sort((a, b) => b.id - a.id), next: null }),
    'messages.byIds': ({ ids }: { ids: number[] }) => ({ messages: ids.flatMap((id) => (stored.has(id) ? [stored.get(id)!] : [])) }),
    'messages.count': () => ({ total: stored.size, matching: matching().length, newestId: 3 }),
  });
  const inspector = createInspector(fake.api, { requestFrame: (cb) => setTimeout(cb, 0), now: () => 0 });
  const t = {
    ...fake,
    inspector,
    stored,
    order: () => [...inspector.store.getState().list.order],
    counted: () => fake.calls.filter((c) => c.channel === 'messages.count').length,
    /** Message `id`'s failure is replayed (delivery `deliveryId`, queued): stored so, and announced. */
    replay(id: number, deliveryId: number) {
      const change = replayQueued(deliveryId, id);
      const { deliveryId: _, messageId: __, ...state } = change;
      stored.set(id, { ...stored.get(id)!, delivery: { id: deliveryId, ...state, skipReason: null }, deliveryCount: 2 });
      fake.emit({ type: 'deliveries.changed', changes: [change] });
    },
  };
  inspector.start();
  inspector.setFilters(filters);
  await vi.advanceTimersByTimeAsync(0);
  return t;
}

describe('the stream under a filter on delivery state', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('Status = Failed: a row whose failure is replayed leaves the list, and the matches are counted again', async () => {
    const t = await started({ status: 'failed' });
    expect(t.order()).toEqual([3, 2, 1]);
    expect(t.inspector.store.getState().counts).toEqual({ total: 3, matching: 3 });
    const counted = t.counted();
    t.replay(2, 21);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.order()).toEqual([3, 1]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(t.counted()).toBe(counted + 1);
    expect(t.inspector.store.getState().counts).toEqual({ total: 3, matching: 2 });
  });

  it('a status: clause in the search works the same; a search that does not read deliveries asks for no count', async () => {
    const t = await started({ search: 'status:failed' });
    expect(t.order()).toEqual([3, 2, 1]);
    t.replay(1, 11);
    await vi.advanceTimersByTimeAsync(2000);
    expect(t.order()).toEqual([3, 2]);
    expect(t.inspector.store.getState().counts).toEqual({ total: 3, matching: 2 });

    const other = await started({ search: 'type:track' });
    const counted = other.counted();
    other.replay(3, 31);
    await vi.advanceTimersByTimeAsync(2000);
    expect(other.order()).toEqual([3, 2, 1]);
    expect(other.counted()).toBe(counted);
  });

  it('a row asked for again (a replay while other deliveries of it are unseen) is tested when its answer lands, not on the guess', async () => {
    // Each message went to two destinations, both failed; the page knows one delivery of each.
    const t = await started({ status: 'failed' }, 2);
    const change = replayQueued(21, 2);
    // The core: a replay of one destination's failure; the other's still failed, so the row still shows failed.
    t.stored.set(2, { ...t.stored.get(2)!, deliveryCount: 3 });
    t.emit({ type: 'deliveries.changed', changes: [change] });
    await vi.advanceTimersByTimeAsync(0);
    expect(t.order()).toEqual([3, 2, 1]); // not dropped on the guess (pending) for a frame
    await vi.advanceTimersByTimeAsync(100);
    expect(t.order()).toEqual([3, 2, 1]);
    expect(t.inspector.store.getState().list.byId.get(2)!.delivery!.status).toBe('failed');
  });

  it('while paused the list stays as it is; on resume the rows that no longer match leave', async () => {
    const t = await started({ status: 'failed' });
    t.inspector.setPaused(true);
    t.replay(3, 31);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.order()).toEqual([3, 2, 1]);
    expect(t.inspector.store.getState().list.byId.get(3)!.delivery!.status).toBe('pending'); // updated in place
    t.inspector.setPaused(false);
    expect(t.order()).toEqual([2, 1]);
  });
});
