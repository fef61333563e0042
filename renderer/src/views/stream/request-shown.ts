/**
 * The request(s) the Webhook tab shows for a delivery, without React: one per webhook URL (a forward's:
 * its Tracking API's batch URL), with the headers its latest attempt recorded, or, before any attempt,
 * the headers it will carry.
 */
import type { DeliveryView, DestinationView } from '../../../../shared/contract.ts';

const USER_AGENT = 'Sluice/1.0';

export interface RequestShown {
  url: string;
  headers: Record<string, string>;
  /** The headers are the ones recorded with an attempt (not reconstructed). */
  recorded: boolean;
}

/** Whether a delivery is a forward to a Tracking API (its destination's kind). */
export function isForward(destination: Pick<DestinationView, 'kind'> | undefined): boolean {
  return destination?.kind === 'tracking-api';
}

/**
 * The requests of a delivery: one per webhook URL (a forward's: its batch URL), with the headers of
 * its latest attempt when there is one.
 */
export function requestsOf(delivery: DeliveryView, destination: DestinationView | undefined): RequestShown[] {
  const api = isForward(destination) ? destination!.trackingApi : null;
  const targets = delivery.targetUrl
    ? [{ url: delivery.targetUrl, headers: {} as Record<string, string> }]
    : api
      ? [{ url: api.batchUrl, headers: {} as Record<string, string> }]
      : (destination?.webhooks ?? []);
  const urls = new Set<string>(targets.map((t) => t.url));
  for (const attempt of delivery.attempts) urls.add(attempt.url);
  return [...urls].map((url) => {
    const last = [...delivery.attempts].reverse().find((a) => a.url === url);
    if (last) return { url, headers: last.requestHeaders, recorded: true };
    const webhook = targets.find((t) => t.url === url);
    if (api) {
      return {
        url,
        // What a forward carries (forward-round.ts); the write key stays in the core until the request is made.
        headers: {
          'User-Agent': USER_AGENT,
          'Content-Type': 'application/json',
          Authorization: 'Basic base64(<write key>:)',
          ...(api.gzip ? { 'Content-Encoding': 'gzip' } : {}),
        },
        recorded: false,
      };
    }
    return {
      url,
      headers: {
        'User-Agent': USER_AGENT,
        'Content-Type': 'application/json',
        ...(webhook?.headers ?? {}),
        // Standard Webhooks' headers are made at each attempt, so they are not known before one.
        ...(delivery.signature && destination?.signing !== 'standard' ? { 'X-Signature': delivery.signature } : {}),
      },
      recorded: false,
    };
  });
}

/**
 * Why a delivery that was sent has no request to `url` (none of its attempts went there): the URL's
 * health says why when it still can (410 Gone, an open breaker); otherwise every reason it could be.
 */
export function notRequestedReason(url: string, destination: Pick<DestinationView, 'health'> | undefined): string {
  const health = destination?.health?.find((h) => h.url === url);
  const why = health?.gone
    ? 'it is disabled since it answered 410 Gone'
    : health && health.breaker !== 'closed'
      ? 'its receiver is down (circuit breaker open), so nothing is sent there until a probe succeeds'
      : 'it was disabled after a 410 Gone, its receiver was down (circuit breaker open), or it was added to the destination later';
  return `No request was made to this URL for this delivery: ${why}. So there is no signature to check here.`;
}
