/**
 * The loop guard: every request Sluice sends (webhooks, forwards, replays) carries `Sluice-Loop`, the
 * ids of the Sluices it has passed through, this one last — as RFC 8586's CDN-Loop does for CDNs. A
 * Sluice that finds its own id there, or more than MAX_HOPS ids, refuses the request (409
 * `loop_detected`): a webhook pointed at its own ingestion endpoint once turned one track call into
 * 51,000 messages in 12 s. What a message arrived with is kept, so a chain of Sluices passes it on;
 * a message Sluice makes of others (a plan's Violation Generated event, an audience's identify) carries
 * the chain of what made it, or two Sluices that forward what they make to each other ping-pong forever.
 */
export const LOOP_HEADER = 'Sluice-Loop';
/** Ids a request may carry before it is refused as having come round too often. */
export const MAX_HOPS = 8;

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The ids in a Sluice-Loop header, in order; malformed entries are dropped, the list is capped. */
export function parseLoopHeader(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const text = Array.isArray(value) ? value.join(',') : value;
  const ids: string[] = [];
  for (const part of text.split(',')) {
    const id = part.trim();
    if (ID.test(id)) ids.push(id);
    if (ids.length > MAX_HOPS) break; // enough to refuse; never more kept
  }
  return ids;
}

/**
 * The Sluices either chain names, each once, in the order first seen, capped as parseLoopHeader caps
 * a header: what a message made of several others carries (an audience's identify of a user whose
 * messages came through different Sluices).
 */
export function mergeChains(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].slice(0, MAX_HOPS + 1);
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1', '0.0.0.0', '[::]']);

/**
 * Whether a webhook URL reaches this Sluice's own ingestion endpoint: the same port on a loopback
 * name (or the host it listens on). Requests there are refused by the loop guard; the config check
 * and the destination editor say so before the first one.
 */
export function pointsAtIngest(url: string, ingestUrl: string): boolean {
  let target: URL;
  let ingest: URL;
  try {
    target = new URL(url);
    ingest = new URL(ingestUrl);
  } catch {
    return false;
  }
  if (target.protocol !== ingest.protocol || effectivePort(target) !== effectivePort(ingest)) return false;
  const host = target.hostname.toLowerCase();
  return host === ingest.hostname.toLowerCase() || LOOPBACK.has(host) || /^127\./.test(host) || host.endsWith('.localhost');
}

function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** The sentence both the config check and the editor show for such a URL. */
export function selfLoopWarning(where: string): string {
  return `${where} posts to this Sluice's own ingestion endpoint: Sluice refuses those requests (409 loop_detected) rather than loop; point it at a receiver`;
}
