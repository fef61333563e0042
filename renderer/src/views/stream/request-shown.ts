/**
 * The request(s) the Webhook tab shows for a delivery, without React: one per webhook URL (a forward's:
 * its Tracking API's batch URL), with the headers its latest attempt recorded, or, before any attempt,
 * the headers it will carry.
 */
import type { DeliveryView, DestinationView } from '../../../../shared/contract.ts';
import { receiverHook, resolveHookUrl } from '../../../../shared/receiver-hooks.ts';
import { clockTime } from '../../lib/format.ts';

const USER_AGENT = 'Sluice/1.0';

export interface RequestShown {
  url: string;
  headers: Record<string, string>;
  /** The headers are the ones recorded with an attempt (not reconstructed). */
  recorded: boolean;
  /** The URL is the delivery's target now (one of its destination's webhooks, or its replay's URL); false: an attempt went there, but the destination no longer has it. */
  current: boolean;
  /** Where a URL naming the built-in receiver (sluice://receiver/<hook>) posts now; absent for any other URL. */
  address?: string;
  /** A recorded request's attempt, and the headers whose values it came with masked (`deliveries.revealHeader` reads them). */
  attemptId?: number;
  /** The attempt is a forwarded request's record (AttemptView.forwarded): its id is its request's. */
  forwarded?: true;
  masked?: string[];
}

/** Whether a delivery is a forward to a Tracking API (its destination's kind). */
export function isForward(destination: Pick<DestinationView, 'kind'> | undefined): boolean {
  return destination?.kind === 'tracking-api';
}

/**
 * The requests of a delivery: first the URLs its attempts went to, with the headers of the latest
 * attempt to each, then its target URLs no attempt went to (before any attempt: the headers they will
 * carry). `receiverUrl`: the built-in receiver's address, where a URL naming it posts now.
 */
export function requestsOf(delivery: DeliveryView, destination: DestinationView | undefined, receiverUrl = ''): RequestShown[] {
  const api = isForward(destination) ? destination!.trackingApi : null;
  const targets = delivery.targetUrl
    ? [{ url: delivery.targetUrl, headers: {} as Record<string, string> }]
    : api
      ? [{ url: api.batchUrl, headers: {} as Record<string, string> }]
      : (destination?.webhooks ?? []);
  const current = new Set<string>(targets.map((t) => t.url));
  const urls = new Set<string>();
  for (const attempt of delivery.attempts) urls.add(attempt.url);
  for (const url of current) urls.add(url);
  return [...urls].map((url) => {
    const shown = { current: current.has(url), ...addressOf(url, receiverUrl) };
    const last = [...delivery.attempts].reverse().find((a) => a.url === url);
    if (last) {
      const masked = last.maskedHeaders?.length ? { masked: last.maskedHeaders } : {};
      return { url, headers: last.requestHeaders, recorded: true, ...shown, attemptId: last.id, ...(last.forwarded ? { forwarded: true as const } : {}), ...masked };
    }
    const webhook = targets.find((t) => t.url === url);
    if (api) {
      return {
        url,
        // What a forward carries (electron/core/delivery/kinds/tracking-api.ts); the write key stays in the core until the request is made.
        headers: {
          'User-Agent': USER_AGENT,
          'Content-Type': 'application/json',
          Authorization: 'Basic base64(<write key>:)',
          ...(api.gzip ? { 'Content-Encoding': 'gzip' } : {}),
        },
        recorded: false,
        ...shown,
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
      ...shown,
    };
  });
}

function addressOf(url: string, receiverUrl: string): { address?: string } {
  if (receiverHook(url) === null) return {};
  const address = resolveHookUrl(url, receiverUrl);
  return address === null ? {} : { address };
}

/**
 * What the tab says of a URL a sent delivery made no request to (`request`, not recorded), from facts
 * only: where its requests went instead; whether the destination's URLs changed since (none of those
 * is the destination's now); and, when the URL answered 410 Gone, whether that was before the
 * delivery's requests (then it is why) or after.
 */
export function notRequestedReason(
  request: Pick<RequestShown, 'url'>,
  requests: readonly RequestShown[],
  destination: Pick<DestinationView, 'health'> | undefined,
  delivery: Pick<DeliveryView, 'attempts'>,
): string {
  const sent = requests.filter((r) => r.recorded);
  const to = sent.map((r) => r.url).join(', ');
  const changed = sent.length > 0 && sent.every((r) => !r.current);
  const words = [
    changed
      ? `The destination’s URL changed after this delivery was sent: its request went to ${to}. This URL is the destination’s now: a new delivery or a replay posts here.`
      : `No request was made to this URL for this delivery${to ? `: its requests went to ${to}` : ''}.`,
  ];
  const health = destination?.health?.find((h) => h.url === request.url);
  if (health?.gone) {
    const before = delivery.attempts.length > 0 && delivery.attempts.every((a) => a.startedAt >= health.gone!.at);
    words.push(before ? `It was disabled before then: it answered 410 Gone at ${clockTime(health.gone.at)}.` : `It has been disabled since: it answered 410 Gone at ${clockTime(health.gone.at)}.`);
  } else if (health && health.breaker !== 'closed') {
    words.push('Its receiver is down now (circuit breaker open): nothing is sent there until a probe succeeds.');
  }
  words.push('So there is no signature to check here.');
  return words.join(' ');
}
