/**
 * Whether the core holds deliveries, for the Settings switch and the banner every view shows. Its own
 * small store, fed by `delivery.held` events (any window may hold or resume) and, while held, by a
 * fresh `delivery.state` after messages arrive or deliveries change, so "N waiting" keeps up.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Inspector } from '../../store/inspector.ts';

export interface HoldState {
  /** Null until the core has answered. */
  held: boolean | null;
  /** Deliveries waiting to be sent (pending or retrying). */
  waiting: number;
  /** A hold or resume is on its way to the core. */
  busy: boolean;
  /** A sentence when reading or changing the hold failed. */
  error: string | null;
}

export interface HoldController {
  store: StoreApi<HoldState>;
  setHeld(held: boolean): Promise<void>;
  dispose(): void;
}

/** At most one `delivery.state` read per this long while held, however busy the stream. */
export const WAITING_REFRESH_MS = 250;

type Timers = { set: (callback: () => void, ms: number) => unknown; clear: (handle: unknown) => void };
const realTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export function createHoldController(inspector: Pick<Inspector, 'call' | 'subscribe' | 'store'>, timers: Timers = realTimers): HoldController {
  const store = createStore<HoldState>()(() => ({ held: null, waiting: 0, busy: false, error: null }));
  let refreshTimer: unknown;
  let reads = 0;
  let disposed = false;

  async function refresh(): Promise<void> {
    const read = ++reads;
    const result = await inspector.call('delivery.state', {});
    if (disposed || read !== reads) return; // a newer read (or a hold) answers instead
    if (result.ok) store.setState({ held: result.value.held, waiting: result.value.waiting, error: null });
    else store.setState({ error: `Could not read whether deliveries are held: ${result.error.message}` });
  }

  function refreshSoon(): void {
    if (refreshTimer !== undefined || disposed) return;
    refreshTimer = timers.set(() => {
      refreshTimer = undefined;
      void refresh();
    }, WAITING_REFRESH_MS);
  }

  const offEvents = inspector.subscribe((events) => {
    for (const event of events) {
      if (event.type === 'delivery.held') {
        store.setState({ held: event.held });
        void refresh();
      } else if ((event.type === 'messages.stored' || event.type === 'deliveries.changed') && store.getState().held) {
        refreshSoon();
      }
    }
  });
  // After a reconnect the hold may have changed meanwhile (or the core restarted, which resumes).
  let wasOpen = inspector.store.getState().connection.kind === 'open';
  const offConnection = inspector.store.subscribe((state) => {
    const open = state.connection.kind === 'open';
    if (open && !wasOpen) void refresh();
    wasOpen = open;
  });
  void refresh();

  return {
    store,
    async setHeld(held) {
      store.setState({ busy: true, error: null });
      ++reads; // a read sent before this answer is older than it
      const result = await inspector.call('delivery.hold', { held });
      if (disposed) return;
      if (result.ok) store.setState({ held: result.value.held, waiting: result.value.waiting, busy: false });
      else store.setState({ busy: false, error: `Could not ${held ? 'hold' : 'resume'} deliveries: ${result.error.message}` });
    },
    dispose() {
      disposed = true;
      offEvents();
      offConnection();
      if (refreshTimer !== undefined) timers.clear(refreshTimer);
    },
  };
}
