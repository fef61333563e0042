/** Host names that all mean this machine's loopback interface. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** Addresses a server listens on to take every interface (loopback included). */
const EVERY_INTERFACE = new Set(['0.0.0.0', '[::]']);

/**
 * The built-in receiver named rather than addressed: `sluice://receiver/<hook>` in a destination (a
 * config file, the destination editor, `sluice/testing`, a replay's URL) posts to that hook of the
 * receiver wherever it listens now — its port is chosen at each start (`--receiver-port`, 0 in tests),
 * so a URL with the port in it would break at the next start with another. The form is a URL so that
 * it goes wherever a webhook URL goes, reads as what it is, and can never be a real server's address.
 */
export const RECEIVER_URL_PREFIX = 'sluice://receiver/';

/** The symbolic URL of a hook of the built-in receiver (`sluice://receiver/<hook>`). */
export function receiverHookUrl(hook: string): string {
  return `${RECEIVER_URL_PREFIX}${encodeURIComponent(hook)}`;
}

/** The hook a symbolic URL names (`sluice://receiver/<hook>`, percent-decoded), or null when it is not one. */
export function receiverHook(url: string): string | null {
  const match = /^sluice:\/\/receiver\/([^/?#]+)\/?$/i.exec(url);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}

/** Why a `sluice:` URL names no hook of the built-in receiver, with the form it takes; null when it does. */
export function receiverUrlProblem(url: string): string | null {
  return receiverHook(url) === null ? `a sluice: URL names a hook of the built-in receiver: sluice://receiver/<hook name>, e.g. ${RECEIVER_URL_PREFIX}demo` : null;
}

/**
 * Where a webhook URL posts now: a symbolic one to its hook on the built-in receiver at `receiverUrl`
 * (null while the receiver has no address); any other URL as it is.
 */
export function resolveHookUrl(url: string, receiverUrl: string): string | null {
  const hook = receiverHook(url);
  if (hook === null) return url;
  if (!receiverUrl) return null;
  // A receiver on every interface is reached on loopback.
  const base = receiverUrl.replace(/^(https?:\/\/)(0\.0\.0\.0|\[::\])(?=[:/]|$)/, (_, scheme: string, host: string) => `${scheme}${host === '[::]' ? '[::1]' : '127.0.0.1'}`);
  return `${base}/hooks/${encodeURIComponent(hook)}`;
}

/**
 * The hook a webhook URL names on the built-in receiver at `receiverUrl` (`…/hooks/<name>`, or
 * symbolically `sluice://receiver/<name>` wherever the receiver is), or null
 * when it points elsewhere. The URL is compared as the receiver reads requests, not as text: the
 * loopback names are one host (localhost = 127.0.0.1 = [::1], and any of them reaches a receiver on
 * every interface), a trailing slash or a query does not matter, and the name is percent-decoded.
 * Used by the core (whose secret checks a request: built-in-receiver.ts) and the inspector alike.
 */
export function hookOf(url: string, receiverUrl: string): string | null {
  const named = receiverHook(url);
  if (named !== null) return named;
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
