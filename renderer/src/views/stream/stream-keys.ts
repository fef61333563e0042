/**
 * The stream's keyboard map, and the one listener that acts on it (useStreamKeys, mounted by
 * StreamView). The help dialog (KeyboardHelp.tsx) lists this same map, so what is shown is what works.
 * The list (StreamList.tsx) handles its own listbox keys while it has focus (↑/↓, j/k, Page Up/Down,
 * Home/End, Enter); everything else is here. Nothing fires while the user types or a dialog is open
 * (lib/shortcut-guard.ts).
 */
import { useEffect, type RefObject } from 'react';
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import { hasFilters } from '../../store/filters.ts';
import type { Inspector } from '../../store/inspector.ts';
import { isTyping, shortcutAllowed } from '../../lib/shortcut-guard.ts';
import { detailTabStore } from './detail-tab.ts';
import { togglePin } from './pin.ts';

export type StreamAction = 'down' | 'up' | 'open' | 'replay' | 'pin' | 'search' | 'help' | 'close';

export interface StreamKey {
  /** The keys as `KeyboardEvent.key` names them. */
  keys: readonly string[];
  /** How the help dialog writes them. */
  shown: readonly string[];
  action: StreamAction;
  what: string;
}

export const STREAM_KEYS: readonly StreamKey[] = [
  { keys: ['j', 'ArrowDown'], shown: ['j', '↓'], action: 'down', what: 'Select the next (older) message' },
  { keys: ['k', 'ArrowUp'], shown: ['k', '↑'], action: 'up', what: 'Select the previous (newer) message' },
  { keys: ['Enter'], shown: ['Enter'], action: 'open', what: 'Open the selected message' },
  { keys: ['r'], shown: ['r'], action: 'replay', what: 'Replay the selected message: its Replay tab, where Send replays it' },
  { keys: ['p'], shown: ['p'], action: 'pin', what: 'Pin the selected message (kept through retention and clears), or un-pin it' },
  { keys: ['/'], shown: ['/'], action: 'search', what: 'Focus the search' },
  { keys: ['?'], shown: ['?'], action: 'help', what: 'Show these keys' },
  { keys: ['Escape'], shown: ['Esc'], action: 'close', what: 'Close a dialog; else clear the filters; else close the message' },
];

export function streamAction(key: string): StreamAction | null {
  return STREAM_KEYS.find((k) => k.keys.includes(key))?.action ?? null;
}

const helpStores = new WeakMap<Inspector, StoreApi<{ open: boolean }>>();

/** Whether the keyboard map's dialog is open, one per inspector (the `?` key and its button open it). */
export function keyboardHelpStore(inspector: Inspector): StoreApi<{ open: boolean }> {
  let store = helpStores.get(inspector);
  if (!store) {
    store = createStore<{ open: boolean }>()(() => ({ open: false }));
    helpStores.set(inspector, store);
  }
  return store;
}

export function useKeyboardHelp(inspector: Inspector): [boolean, (open: boolean) => void] {
  const store = keyboardHelpStore(inspector);
  return [useStore(store, (s) => s.open), (open) => store.setState({ open })];
}

/** Acts on the stream's keys anywhere on the page while the stream is shown. */
export function useStreamKeys(inspector: Inspector, searchRef: RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const dialogOpen = document.querySelector('dialog[open]') !== null;
      const onPage = event.target === document.body || event.target === document.documentElement;
      if (event.key === 'Escape') {
        // An open dialog closes itself on Esc (components/Dialog.tsx); a field other than the search keeps its Esc.
        if (event.defaultPrevented || dialogOpen) return;
        const typing = isTyping(event.target);
        if (typing && event.target !== searchRef.current) return;
        const state = inspector.store.getState();
        if (hasFilters(state.filters)) inspector.clearFilters();
        else if (!typing && state.detail !== null) inspector.open(null);
        else return;
        event.preventDefault();
        return;
      }
      if (!shortcutAllowed(event, dialogOpen)) return;
      const action = streamAction(event.key);
      if (action === null) return;
      const selected = inspector.store.getState().selectedId;
      switch (action) {
        case 'down':
        case 'up':
        case 'open':
          // On a control, arrows and Enter are the control's (tabs, tree toggles, buttons); j and k move anyway.
          if (!onPage && (event.key !== 'j' && event.key !== 'k')) return;
          if (action === 'open') {
            if (selected === null) return;
            inspector.open(selected);
          } else inspector.moveSelection(action === 'down' ? 1 : -1);
          break;
        case 'replay': {
          const id = inspector.store.getState().detail?.id ?? selected;
          if (id === null) return;
          if (inspector.store.getState().detail?.id !== id) inspector.open(id);
          detailTabStore(inspector).setState({ tab: 'replay' });
          break;
        }
        case 'pin': {
          // Not a detail whose message went: another message may have its id by now.
          const detail = inspector.store.getState().detail;
          const id = selected ?? (detail && !detail.gone ? detail.id : null);
          if (id === null) return;
          void togglePin(inspector, id);
          break;
        }
        case 'search':
          searchRef.current?.focus();
          searchRef.current?.select();
          break;
        case 'help':
          keyboardHelpStore(inspector).setState({ open: true });
          break;
        default:
          return;
      }
      event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [inspector, searchRef]);
}
