// The stream's row density: two lines per message (comfortable, the default) or one (compact, as
// DevTools' Network panel). Kept in localStorage like the list's width and the theme, per browser or
// window; the virtualized list takes its row height from it.
import { useSyncExternalStore } from 'react';

export type Density = 'comfortable' | 'compact';

const KEY = 'sluice.stream.density';

/** A row's height in pixels: the list places rows by it, styles.css draws them at it. */
export const ROW_HEIGHTS: Record<Density, number> = { comfortable: 48, compact: 26 };

const listeners = new Set<() => void>();

function read(): Density {
  try {
    return localStorage.getItem(KEY) === 'compact' ? 'compact' : 'comfortable';
  } catch {
    return 'comfortable';
  }
}

export function setDensity(density: Density): void {
  try {
    localStorage.setItem(KEY, density);
  } catch {
    // Storage refused (a private window's quota): the choice lasts this page only.
  }
  current = density;
  for (const listener of listeners) listener();
}

let current: Density | null = null;

export function useDensity(): Density {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => (current ??= read()),
  );
}
