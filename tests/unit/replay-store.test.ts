// The replay views' live delivery states (renderer/src/views/replay/replay-store.ts) across a reset and
// a removal: delivery ids are given again once the newest deliveries went (a reset starts them from 1),
// so a state remembered for an old delivery must not be taken for the new one under its id.
import { describe, expect, it } from 'vitest';
import type { DeliveryChange, DeliveryView } from '../../shared/contract.ts';
import { createInspector } from '../../renderer/src/store/inspector.ts';
import { replayStore } from '../../renderer/src/views/replay/replay-store.ts';
import { liveState } from '../../renderer/src/views/replay/DeliveryCard.tsx';
import { fakeApi } from '../helpers/renderer-fixtures.ts';

const change = (deliveryId: number, status: string, attemptCount: number): DeliveryChange => ({
  deliveryId,
  messageId: 1,
  status,
  attemptCount,
  nextAttemptAt: null,
  lastError: status === 'failed' ? 'the receiver answered 400' : null,
  lastErrorCode: status === 'failed' ? 'http' : null,
  lastHttpStatus: status === 'failed' ? 400 : null,
  destinationId: 1,
  trigger: 'replay',
  targetUrl: null,
});

function started() {
  const fake = fakeApi({
    'app.info': () => ({ version: '0', ingestUrl: 'http://x', receiverUrl: 'http://y', dataDir: '/tmp', sources: [] }),
    'destinations.list': () => ({ destinations: [] }),
    'messages.list': () => ({ messages: [], next: null }),
    'messages.count': () => ({ total: 0, matching: 0, newestId: 0 }),
  });
  const inspector = createInspector(fake.api, { requestFrame: (cb) => setTimeout(cb, 0), now: () => 0 });
  inspector.start();
  return { ...fake, replay: replayStore(inspector) };
}

describe('the replay store across a reset and removals', () => {
  it('a reset forgets every remembered state and the bulk replay: the new delivery 12 is not the old one', () => {
    const t = started();
    t.replay.setState({ bulk: { label: 'the 1 failed delivery', messages: 1, deliveryIds: [12] } });
    t.emit({ type: 'deliveries.changed', changes: [change(12, 'failed', 3)] });
    t.emit({ type: 'store.reset' });
    // After the reset, a new message's replay is delivery 12 again: queued, no attempt yet.
    t.emit({ type: 'deliveries.changed', changes: [change(12, 'pending', 0)] });
    const live = t.replay.getState().deliveries.get(12);
    expect(live).toMatchObject({ status: 'pending', attemptCount: 0 });
    // Its card: the stored view (queued) and the live state agree; the old "failed" is gone.
    const { deliveryId: _, messageId: __, ...state } = change(12, 'pending', 0);
    const stored: DeliveryView = { ...state, id: 12, skipReason: null, replayOf: null, body: null, signature: null, firstAttemptAt: null, deadlineAt: null, createdAt: 0, attempts: [] };
    expect(liveState(stored, live).status).toBe('pending');
    expect(t.replay.getState().bulk).toBeNull(); // its deliveries went: no progress waits for them
  });

  it('a clear, a prune or a purge lets go of the states remembered, but a running bulk replay’s', () => {
    const t = started();
    t.replay.setState({ bulk: { label: 'the 1 failed delivery', messages: 1, deliveryIds: [20] } });
    t.emit({ type: 'deliveries.changed', changes: [change(12, 'failed', 3), change(20, 'delivered', 1)] });
    const rev = t.replay.getState().rev;
    t.emit({ type: 'storage.pruned', report: { at: 0, messages: 5, deliveries: 5, attempts: 9, reason: 'clear', keptPending: 0, tookMs: 1 } });
    expect([...t.replay.getState().deliveries.keys()]).toEqual([20]);
    expect(t.replay.getState().rev).toBeGreaterThan(rev);
    t.emit({ type: 'deliveries.changed', changes: [change(12, 'pending', 0)] });
    t.emit({ type: 'messages.purged', userId: 'u_1', messages: 1 });
    expect([...t.replay.getState().deliveries.keys()]).toEqual([20]);
    expect(t.replay.getState().bulk?.deliveryIds).toEqual([20]);
  });
});
