/**
 * The inspector's theme: the system's (default), or light or dark chosen in Settings. The choice is
 * kept in localStorage and applied as `data-theme` on <html>, which styles.css's `color-scheme`
 * honours (every colour is a light-dark() pair), so an explicit choice overrides the system's.
 */
export const THEMES = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof THEMES)[number];

export const THEME_KEY = 'sluice.theme';

/** What the page needs: storage and the root element (a fake of each in unit tests). */
export interface ThemeHost {
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  root: { setAttribute(name: string, value: string): void; removeAttribute(name: string): void };
}

export function isThemeChoice(value: unknown): value is ThemeChoice {
  return typeof value === 'string' && (THEMES as readonly string[]).includes(value);
}

/** The stored choice; anything unreadable or unknown is the system's theme. */
export function readTheme(host: Pick<ThemeHost, 'storage'>): ThemeChoice {
  try {
    const stored = host.storage.getItem(THEME_KEY);
    return isThemeChoice(stored) ? stored : 'system';
  } catch {
    return 'system'; // storage refused (e.g. a locked-down profile): follow the system
  }
}

export function applyTheme(host: Pick<ThemeHost, 'root'>, choice: ThemeChoice): void {
  if (choice === 'system') host.root.removeAttribute('data-theme');
  else host.root.setAttribute('data-theme', choice);
}

/** Applies and remembers a choice ("system" forgets it). */
export function chooseTheme(host: ThemeHost, choice: ThemeChoice): void {
  applyTheme(host, choice);
  try {
    if (choice === 'system') host.storage.removeItem(THEME_KEY);
    else host.storage.setItem(THEME_KEY, choice);
  } catch {
    // Not remembered, but applied for this page: nothing else to do.
  }
}

/** The browser's host: localStorage and <html>. */
export function pageThemeHost(): ThemeHost {
  return { storage: window.localStorage, root: document.documentElement };
}

/**
 * Applies the stored choice before the first render (no flash of the other theme) and follows
 * changes made in another window of the same inspector (the `storage` event).
 */
export function startTheme(host: ThemeHost = pageThemeHost(), target: Pick<Window, 'addEventListener'> = window): void {
  applyTheme(host, readTheme(host));
  target.addEventListener('storage', (event) => {
    if (event.key === THEME_KEY || event.key === null) applyTheme(host, readTheme(host));
  });
}
