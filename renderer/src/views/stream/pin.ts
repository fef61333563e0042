/**
 * Pinning a message from the page (`messages.pin`): the detail's Pin button and the stream's `p` key.
 * The rows and the detail follow the core's `messages.pinned` event (store/inspector.ts), in every window;
 * a refusal is kept here, for the detail to say.
 */
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { Inspector } from '../../store/inspector.ts';

const stores = new WeakMap<Inspector, StoreApi<{ error: string | null }>>();

export function pinErrorStore(inspector: Inspector): StoreApi<{ error: string | null }> {
  let store = stores.get(inspector);
  if (!store) {
    store = createStore<{ error: string | null }>()(() => ({ error: null }));
    stores.set(inspector, store);
  }
  return store;
}

export function usePinError(inspector: Inspector): string | null {
  return useStore(pinErrorStore(inspector), (s) => s.error);
}

/** Whether the message is pinned, as its row or its open detail says. */
export function isPinned(inspector: Inspector, id: number): boolean {
  const state = inspector.store.getState();
  if (state.detail?.id === id && state.detail.data) return state.detail.data.pinned === true;
  return state.list.byId.get(id)?.pinned === true;
}

/** Pins the message, or un-pins it when it is pinned. */
export async function togglePin(inspector: Inspector, id: number): Promise<void> {
  const pinned = !isPinned(inspector, id);
  const result = await inspector.call('messages.pin', { ids: [id], pinned });
  pinErrorStore(inspector).setState({ error: result.ok ? null : `Could not ${pinned ? 'pin' : 'un-pin'} message ${id}: ${result.error.message}` });
}

/** The search that lists the pinned messages (the filter bar's Pinned toggle). */
export const PINNED_SEARCH = 'pinned:true';
