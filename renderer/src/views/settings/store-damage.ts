/**
 * Damage found in the store while Sluice runs (by its background check, or by a read or a write), for
 * the banner every view shows: read at start and after each reconnect (`storage.health`), and pushed
 * when found (`storage.health` events). Once found it stays: only stopping Sluice and salvaging the
 * store (`sluice doctor --salvage`) makes it go.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { StoreHealth } from '../../../../shared/storage.ts';
import type { Inspector } from '../../store/inspector.ts';

export type StoreDamage = NonNullable<StoreHealth['damage']>;

export interface StoreDamageController {
  store: StoreApi<{ damage: StoreDamage | null }>;
  dispose(): void;
}

export function createStoreDamageController(inspector: Pick<Inspector, 'call' | 'subscribe' | 'store'>): StoreDamageController {
  const store = createStore<{ damage: StoreDamage | null }>()(() => ({ damage: null }));
  let disposed = false;
  const take = (health: StoreHealth) => {
    if (!disposed && health.damage !== null) store.setState({ damage: health.damage });
  };
  async function read(): Promise<void> {
    const result = await inspector.call('storage.health', {});
    if (result.ok) take(result.value);
  }
  const offEvents = inspector.subscribe((events) => {
    for (const event of events) if (event.type === 'storage.health') take(event.health);
  });
  let wasOpen = inspector.store.getState().connection.kind === 'open';
  const offConnection = inspector.store.subscribe((state) => {
    const open = state.connection.kind === 'open';
    if (open && !wasOpen) void read(); // found while the connection was down
    wasOpen = open;
  });
  void read();
  return {
    store,
    dispose() {
      disposed = true;
      offEvents();
      offConnection();
    },
  };
}
