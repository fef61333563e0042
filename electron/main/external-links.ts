// What the desktop window may hand to the user's browser (shell.openExternal): a link the page tries
// to open in a new window. Only a plain web address: http or https, one that parses, with a host, no
// user name or password in it (`https://bank.example@evil.example/` reads as the bank's), no
// backslash or control character (forms browsers and the operating system read differently from
// the WHATWG parser: `http:/\evil`), and not this app's own origins — its app:// page, its
// ingestion endpoint and receiver — which belong in the window, not in a browser. Anything else
// (javascript:, file:, data:, a custom scheme that starts a program) is never opened.

/** The address to open — the parsed URL as the parser wrote it, never the raw string — or null. */
export function externalUrl(raw: string, ownOrigins: readonly string[]): string | null {
  if (/[\\\u0000-\u0020\u007f]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!raw.toLowerCase().startsWith(`${url.protocol}//`)) return null; // `http:evil`, `https:/evil`
  if (url.hostname === '' || url.username !== '' || url.password !== '') return null;
  if (ownOrigins.some((own) => sameServer(url, own))) return null;
  return url.href;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** `url` is served by `origin`: the same origin, or the same port on another name for loopback. */
function sameServer(url: URL, origin: string): boolean {
  let own: URL;
  try {
    own = new URL(origin);
  } catch {
    return false;
  }
  if (url.origin === own.origin) return true;
  return url.protocol === own.protocol && url.port === own.port && LOOPBACK.has(url.hostname) && LOOPBACK.has(own.hostname);
}
