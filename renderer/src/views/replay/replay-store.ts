/**
 * The replay views' own live state, one per inspector: the latest state of deliveries seen in the
 * core's `deliveries.changed` events (so a replay's new delivery shows its status the moment it
 * changes, even when the change arrives before the replay call has answered), and the bulk replay
 * in progress (which outlives its dialog).
 */
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Inspector } from '../../store/inspector.ts';
import { useInspector } from '../../store/react.ts';
import { recordChanges, type DeliveryState } from './bulk-progress.ts';

/** Deliveries remembered at most (the oldest-changed go first; those of a running bulk replay stay). */
export const REMEMBERED_MAX = 50_000;

export interface BulkJob {
  /** What was replayed, in words ("all failed deliveries", "the 12 messages matching the filters"). */
  label: string;
  messages: number;
  deliveryIds: number[];
}

export interface ReplayState {
  /** Owned by the store, updated in place; `rev` changes whenever it does. */
  deliveries: Map<number, DeliveryState>;
  rev: number;
  bulk: BulkJob | null;
  dialogOpen: boolean;
}

const stores = new WeakMap<Inspector, StoreApi<ReplayState>>();

export function replayStore(inspector: Inspector): StoreApi<ReplayState> {
  let store = stores.get(inspector);
  if (store) return store;
  const created = createStore<ReplayState>()(() => ({ deliveries: new Map(), rev: 0, bulk: null, dialogOpen: false }));
  inspector.subscribe((events) => {
    const { deliveries, rev } = created.getState();
    let { bulk } = created.getState();
    let changed = false;
    for (const event of events) {
      if (event.type === 'deliveries.changed') changed = recordChanges(deliveries, event.changes) || changed;
      else if (event.type === 'store.reset') {
        // Every delivery was forgotten (a bulk replay's too) and ids start again from 1: a state
        // remembered for delivery 12 would be taken for the new delivery 12's, and win over it.
        deliveries.clear();
        bulk = null;
        changed = true;
      } else if (event.type === 'storage.pruned' || event.type === 'messages.purged') {
        // Deliveries went with their messages; ids above the newest left are given again (no
        // AUTOINCREMENT), and which went is not said: the states remembered are let go, but a
        // running bulk replay's (its progress would go back; a prune keeps what is still open).
        changed = forget(deliveries, new Set(bulk?.deliveryIds)) || changed;
      }
    }
    if (!changed) return;
    trim(deliveries, new Set(bulk?.deliveryIds));
    created.setState({ rev: rev + 1, bulk });
  });
  // Events missed while the connection was down would leave a bulk replay's progress waiting for
  // ever: after a reconnect its deliveries' states are read again.
  let wasOpen = inspector.store.getState().connection.kind === 'open';
  inspector.store.subscribe((state) => {
    const open = state.connection.kind === 'open';
    if (open && !wasOpen) void readBulkAgain(inspector, created);
    wasOpen = open;
  });
  stores.set(inspector, created);
  return created;
}

/** Reads the running bulk replay's deliveries as stored (10,000 per call, the channel's most). */
async function readBulkAgain(inspector: Inspector, store: StoreApi<ReplayState>): Promise<void> {
  const bulk = store.getState().bulk;
  if (!bulk) return;
  for (let i = 0; i < bulk.deliveryIds.length; i += 10_000) {
    const result = await inspector.call('deliveries.states', { ids: bulk.deliveryIds.slice(i, i + 10_000) });
    if (!result.ok) return; // the next reconnect tries again
    const { deliveries, rev } = store.getState();
    if (recordChanges(deliveries, result.value.changes)) store.setState({ rev: rev + 1 });
  }
}

/** Lets go of the remembered states but those in `keep`; whether any went. */
function forget(deliveries: Map<number, DeliveryState>, keep: ReadonlySet<number>): boolean {
  const before = deliveries.size;
  for (const id of deliveries.keys()) if (!keep.has(id)) deliveries.delete(id);
  return deliveries.size !== before;
}

function trim(deliveries: Map<number, DeliveryState>, keep: ReadonlySet<number>): void {
  if (deliveries.size <= REMEMBERED_MAX) return;
  for (const id of deliveries.keys()) {
    if (deliveries.size <= REMEMBERED_MAX) break;
    if (!keep.has(id)) deliveries.delete(id);
  }
}

export function useReplayStore(): StoreApi<ReplayState> {
  return replayStore(useInspector());
}

/** A slice of the replay state; re-renders when it changes (read `deliveries` after selecting `rev`). */
export function useReplayState<T>(selector: (state: ReplayState) => T): T {
  return useStore(useReplayStore(), selector);
}
