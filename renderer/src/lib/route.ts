import { useSyncExternalStore } from 'react';

/** Every view of the inspector, in the navigation rail's order. The hash (`#/destinations`) says which is shown, so reload and links keep it. */
export const VIEW_KEYS = ['stream', 'deliveries', 'issues', 'destinations', 'sources', 'composer', 'audiences', 'plans', 'deletions', 'receiver', 'settings'] as const;
export type ViewKey = (typeof VIEW_KEYS)[number];

export function viewFromHash(hash: string): ViewKey {
  const key = hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return (VIEW_KEYS as readonly string[]).includes(key) ? (key as ViewKey) : 'stream';
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The view shown now; re-renders on navigation. */
export function useView(): ViewKey {
  return useSyncExternalStore(subscribe, () => viewFromHash(window.location.hash));
}

export function navigate(view: ViewKey): void {
  if (viewFromHash(window.location.hash) !== view) window.location.hash = `/${view}`;
}
