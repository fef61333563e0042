// The store's rows as the contract's views (shared/contract.ts): what a message's row, a delivery and a
// destination look like to the inspector and the hosts' APIs. Pure mappings, no reads.
import type { BreakerView } from '../delivery/circuit-breaker.ts';
import type { DeliverySummary, DeliveryView, DestinationView, TransformRunView } from '../../../shared/contract.ts';
import { lastErrorOf, type Attempt, type Delivery, type LastAttempt } from '../store/deliveries-repo.ts';
import type { Destination } from '../store/destinations-repo.ts';
import { kindOf } from '../delivery/kinds/index.ts';
import { forwardUrl } from '../delivery/kinds/tracking-api.ts';
import type { TrackingApiConfig } from '../../../shared/settings.ts';
import { BODY_PREVIEW_BYTES } from '../../../shared/limits.ts';
import { utf8Prefix } from '../utf8-prefix.ts';
import { maskCredentials, maskCredentialValues, SECRET_MASK } from '../../../shared/credential-headers.ts';
import type { DestinationTransform } from '../../../shared/destination-filters.ts';

/** `last`: the delivery's newest attempt, which names its error (DeliveriesRepo.lastAttempts). */
export function summaryOf(d: Delivery, last: LastAttempt | undefined): DeliverySummary {
  return {
    id: d.id,
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.nextAttemptAt,
    lastError: d.lastError,
    ...lastErrorOf(d, last),
    skipReason: d.skipReason,
    shaping: d.shaping,
    destinationId: d.destinationId,
    trigger: d.trigger,
    targetUrl: d.targetUrl,
  };
}

/** A view's summary part, without the view's own fields. */
export function summaryFields(v: DeliveryView): DeliverySummary {
  const { id, status, attemptCount, nextAttemptAt, lastError, lastErrorCode, lastHttpStatus, skipReason, shaping, destinationId, trigger, targetUrl } = v;
  return { id, status, attemptCount, nextAttemptAt, lastError, lastErrorCode, lastHttpStatus, skipReason, shaping: shaping ?? null, destinationId, trigger, targetUrl };
}

/**
 * A delivery with its attempts as the inspector gets them: each request's credential headers (a
 * forward's Authorization carries the upstream write key, a webhook's may carry a token) masked, as
 * the destination list masks the write key; `deliveries.revealHeader` reads one on request.
 */
export function viewWithAttempts(d: Delivery, attempts: Attempt[]): DeliveryView {
  // Its latest transform run: the round's that sent nothing because of it, else its last attempt's.
  const transform = d.transformRun ? (JSON.parse(d.transformRun) as TransformRunView) : (attempts.at(-1)?.transform ?? null);
  return { ...viewOf(d, attempts.at(-1)), attempts: attempts.map(maskedAttempt), transform };
}

function maskedAttempt(attempt: Attempt): Attempt {
  const { headers, masked } = maskCredentials(attempt.requestHeaders);
  return masked.length === 0 ? attempt : { ...attempt, requestHeaders: headers, maskedHeaders: masked };
}

/**
 * The view with its body cut to its first BODY_PREVIEW_BYTES (at a character boundary) when it is
 * bigger, and the whole body's size in `bodyBytes`: a message's detail, read again at every change of
 * its deliveries, does not carry an edited replay's megabytes (`deliveries.body` reads them on request).
 */
export function withBodyPreview(view: DeliveryView): DeliveryView {
  // A UTF-16 unit is at most 3 bytes in UTF-8: a body this short is within the limit without counting.
  if (view.body === null || view.body.length * 3 <= BODY_PREVIEW_BYTES) return view;
  const bytes = Buffer.from(view.body);
  if (bytes.length <= BODY_PREVIEW_BYTES) return view;
  return { ...view, body: utf8Prefix(bytes, BODY_PREVIEW_BYTES).toString('utf8'), bodyBytes: bytes.length };
}

function viewOf(d: Delivery, last: LastAttempt | undefined): Omit<DeliveryView, 'attempts'> {
  return {
    ...summaryOf(d, last),
    replayOf: d.replayOf,
    body: d.body,
    signature: d.signature,
    firstAttemptAt: d.firstAttemptAt,
    deadlineAt: d.deadlineAt,
    createdAt: d.createdAt,
  };
}

/**
 * The destination as the inspector sees it; `breaker` reads a URL's circuit breaker (the engine's),
 * closed for all when not given (just saved: an edit gives every receiver a fresh start).
 */
export function destinationView(d: Destination, breaker?: (url: string) => BreakerView, declaredIn: string | null = null): DestinationView {
  const api = d.trackingApi ?? null;
  return {
    id: d.id,
    name: d.name,
    enabled: d.enabled,
    sourceIds: d.sourceIds,
    webhooks: d.webhooks,
    hasSecret: d.sharedSecret !== undefined,
    maskedSecret: d.sharedSecret ? SECRET_MASK : null,
    signing: d.signing,
    // No character of any: the current secret and the next are told apart by their place in the list.
    maskedSigningSecrets: (d.signingSecrets ?? []).map(() => SECRET_MASK),
    options: d.options,
    kind: d.kind,
    trackingApi: api ? { ...withoutKey(api), batchUrl: forwardUrl(api.url), maskedWriteKey: SECRET_MASK } : null,
    // A breaker for each URL its rounds post to, as its kind says (delivery/kinds/); 410 Gone is a webhook's.
    health: kindOf(d).urls(d).map((url) => {
      const b = breaker?.(url);
      return { url, breaker: b?.state ?? 'closed', failures: b?.failures ?? 0, probeAt: b?.probeAt ?? null, lastError: b?.lastError ?? null, gone: d.gone?.[url] ?? null };
    }),
    filters: d.filters ?? [],
    transform: d.transform ? maskedTransform(d.transform) : null,
    fromConfig: declaredIn,
  };
}

/**
 * A transform as the inspector sees it: each setting whose name says credential (`apiKey`, `token`,
 * `password`… — isCredentialName), at any depth, shows SECRET_MASK instead of its value. A save that sends the mask
 * back keeps the stored value (destinations/destination-settings.ts), so the inspector's editor can
 * save the transform it was shown.
 */
function maskedTransform(transform: DestinationTransform): DestinationTransform {
  return { ...transform, settings: maskCredentialValues(transform.settings) as DestinationTransform['settings'] };
}

function withoutKey({ writeKey: _key, ...rest }: TrackingApiConfig): Omit<TrackingApiConfig, 'writeKey'> {
  return rest;
}
