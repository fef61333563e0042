/** Host names that all mean this machine's loopback interface. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** Addresses a server listens on to take every interface (loopback included). */
const EVERY_INTERFACE = new Set(['0.0.0.0', '[::]']);

/**
 * The hook a webhook URL names on the built-in receiver at `receiverUrl` (`…/hooks/<name>`), or null
 * when it points elsewhere. The URL is compared as the receiver reads requests, not as text: the
 * loopback names are one host (localhost = 127.0.0.1 = [::1], and any of them reaches a receiver on
 * every interface), a trailing slash or a query does not matter, and the name is percent-decoded.
 * Used by the core (whose secret checks a request: built-in-receiver.ts) and the inspector alike.
 */
export function hookOf(url: string, receiverUrl: string): string | null {
  if (!receiverUrl) return null;
  let target: URL;
  let receiver: URL;
  try {
    target = new URL(url);
    receiver = new URL(receiverUrl);
  } catch {
    return null;
  }
  if (target.protocol !== receiver.protocol || target.port !== receiver.port) return null;
  const sameHost =
    target.hostname === receiver.hostname ||
    (LOOPBACK.has(target.hostname) && (LOOPBACK.has(receiver.hostname) || EVERY_INTERFACE.has(receiver.hostname)));
  if (!sameHost) return null;
  const name = /^\/hooks\/([^/]+)\/?$/.exec(target.pathname)?.[1];
  if (name === undefined) return null;
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
