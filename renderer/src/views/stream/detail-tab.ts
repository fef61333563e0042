/**
 * Which tab of the message's detail is shown, one per inspector: the detail pane's tabs set it, and
 * the stream's `r` key opens the Replay tab (stream-keys.ts).
 */
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Inspector } from '../../store/inspector.ts';

export type DetailTab = 'message' | 'violations' | 'webhook' | 'attempts' | 'replay' | 'try';

const stores = new WeakMap<Inspector, StoreApi<{ tab: DetailTab }>>();

export function detailTabStore(inspector: Inspector): StoreApi<{ tab: DetailTab }> {
  let store = stores.get(inspector);
  if (!store) {
    store = createStore<{ tab: DetailTab }>()(() => ({ tab: 'message' }));
    stores.set(inspector, store);
  }
  return store;
}

export function useDetailTab(inspector: Inspector): [DetailTab, (tab: DetailTab) => void] {
  const store = detailTabStore(inspector);
  const tab = useStore(store, (s) => s.tab);
  return [tab, (next) => store.setState({ tab: next })];
}
