/**
 * The headless host's access token, as the page keeps it. Opened as `/?token=…#/view`, the page reads
 * the token, keeps it in sessionStorage (this tab's, gone when the tab closes) and takes it out of its
 * address with history.replaceState: the browser's history, the address bar and a screenshot of it
 * hold no token. A reload finds it in sessionStorage. Where sessionStorage cannot be used (storage
 * blocked), the token stays in the address, or a reload would lose it.
 */
export const TOKEN_KEY = 'sluice.token';

/** The parts of `window` this reads: tests pass plain objects. */
export interface TokenPage {
  location: { href: string };
  history?: { state: unknown; replaceState(data: unknown, unused: string, url?: string): void };
  sessionStorage?: Pick<Storage, 'getItem' | 'setItem'>;
}

/** The page's token — from its address (then kept and removed from the address) or kept from before — or null. */
export function takePageToken(page: TokenPage): string | null {
  const url = new URL(page.location.href);
  const given = url.searchParams.get('token');
  const storage = storageOf(page);
  if (!given) {
    try {
      return storage?.getItem(TOKEN_KEY) || null;
    } catch {
      return null;
    }
  }
  if (storage && page.history) {
    try {
      storage.setItem(TOKEN_KEY, given);
      url.searchParams.delete('token');
      page.history.replaceState(page.history.state, '', `${url.pathname}${url.search}${url.hash}`);
    } catch {
      // Not kept: the token stays in the address so that a reload still has it.
    }
  }
  return given;
}

/** `window.sessionStorage` throws where storage is blocked; undefined there. */
function storageOf(page: TokenPage): TokenPage['sessionStorage'] {
  try {
    return page.sessionStorage;
  } catch {
    return undefined;
  }
}
