import { LOOP_HEADER } from '../../../shared/loop-guard.ts';
import { webhookBody } from '../../../shared/webhook-body.ts';
import type { Clock } from '../clock.ts';
import type { DeliveriesRepo, DueDelivery } from '../store/deliveries-repo.ts';
import type { AttemptRecord, DeliveryResult } from '../store/delivery-types.ts';
import { bodyShapeOf, type Destination } from '../store/destinations-repo.ts';
import type { MessagesRepo } from '../store/messages-repo.ts';
import type { PreparedBody } from './body-prefetch.ts';
import { gaveUpReason, nextAttemptAt, parseRetryAfter, RETRY_WINDOW_MS } from './retry-schedule.ts';
import { signBody, standardHeaders } from '../signature/signature.ts';
import { GONE_DISABLES, USER_AGENT, type SendResult, type WebhookSender } from './webhook-sender.ts';

/** A delivery whose message was purged (or is otherwise gone): failed, nothing sent. */
const PURGED = 'the message is no longer stored (purged?); nothing was sent';

export interface RoundParts {
  clock: Clock;
  sender: WebhookSender;
  messages: Pick<MessagesRepo, 'ofDelivery'>;
  deliveries: Pick<DeliveriesRepo, 'hasMessage'>;
  /** This Sluice's id, last in every request's Sluice-Loop header (shared/loop-guard.ts). */
  instanceId: string;
  /** Hears each request's answer as soon as the round's requests end, before its slot is freed (circuit breakers, 410). */
  heard?: (destinationId: number, url: string, result: SendResult) => void;
  random?: (() => number) | undefined;
}

/** What a round came to: the result to record, and the delivery as it is to be announced. */
export interface RoundOutcome {
  result: DeliveryResult;
  announced: DueDelivery;
}

/**
 * One round of a delivery — the policy of delivering, which the engine (delivery-engine.ts) runs: the
 * body (`prepared` ahead, when it was built with the destination's current settings; else read
 * from the store, mapped and signed), posted to every webhook of the destination at once; any 2xx
 * delivers it; otherwise a retryable failure schedules the next round within the 4-hour window
 * (retry-schedule.ts), lengthened by the longest Retry-After, never shortened. A delivery that cannot be sent (its
 * message purged or unreadable) fails without a request. `releaseSlot` is called once the requests
 * have ended, before the result is recorded.
 */
export async function runRound(
  parts: RoundParts,
  delivery: DueDelivery,
  destination: Destination,
  prepared: PreparedBody | undefined,
  releaseSlot: () => void,
  /** The destination's webhook URLs this round may post to (circuit breakers, 410 Gone); all when absent. */
  admitted?: ReadonlySet<string>,
): Promise<RoundOutcome> {
  const { clock, sender } = parts;
  const startedAt = clock.now();
  const firstAttemptAt = delivery.firstAttemptAt ?? startedAt;
  const deadlineAt = firstAttemptAt + RETRY_WINDOW_MS;
  const attemptCount = delivery.attemptCount + 1;

  const resolved = resolveBody(parts, delivery, destination, prepared, firstAttemptAt);
  if ('unsendable' in resolved) return resolved.unsendable;
  const { body, signature, via } = resolved;
  const loop = via ? `${via}, ${parts.instanceId}` : parts.instanceId;
  // The seed's X-Signature unless the destination signs with Standard Webhooks alone; Standard Webhooks'
  // headers with a fresh timestamp at each round, under an id that stays the delivery's across retries.
  const xSignature = destination.signing === 'standard' ? null : signature;
  const standard =
    destination.signing !== 'segment' && destination.signingSecrets?.length
      ? standardHeaders(webhookId(parts.instanceId, delivery.id), startedAt, body, destination.signingSecrets)
      : undefined;
  const targets = delivery.targetUrl
    ? [{ url: delivery.targetUrl, headers: {} }]
    : admitted
      ? destination.webhooks.filter((webhook) => admitted.has(webhook.url))
      : destination.webhooks;
  // All of a round's requests start at once; the sender never rejects (failures are results).
  const requests = targets.map((webhook) => {
    const headers: Record<string, string> = {
      'User-Agent': USER_AGENT,
      'Content-Type': 'application/json',
      ...webhook.headers,
      [LOOP_HEADER]: loop,
      ...(xSignature ? { 'X-Signature': xSignature } : {}),
      ...standard,
    };
    const caCert = 'caCert' in webhook ? webhook.caCert : undefined;
    return { url: webhook.url, headers, result: sender.send({ url: webhook.url, body, headers, caCert }) };
  });
  const sent: { url: string; headers: Record<string, string>; result: SendResult }[] = [];
  for (const { url, headers, result } of requests) sent.push({ url, headers, result: await result });

  // Before the slot goes to the next delivery: a breaker this round opened must hold that one back.
  for (const { url, result } of sent) parts.heard?.(destination.id, url, result);
  releaseSlot();
  const now = clock.now();
  const delivered = sent.some(({ result }) => result.ok);
  const retryable = !delivered && sent.some(({ result }) => result.retryable);
  const retryAfterMs = maxRetryAfter(sent.map(({ result }) => result), now);
  const next = retryable
    ? nextAttemptAt({ rounds: attemptCount, firstAttemptAt, now, retryAfterMs, ...(parts.random ? { random: parts.random } : {}) })
    : null;
  const status = delivered ? 'delivered' : next !== null ? 'retrying' : 'failed';
  // A destination's own webhook answering 410 Gone is disabled (receivers.ts); a typed URL is not.
  const gone = delivery.targetUrl === null;
  // The last attempt's error (all of a round's attempts failed unless it delivered): the one the
  // store's summaries pair with its code (DeliveriesRepo.lastErrors).
  const lastAttemptError = errorOf(sent.findLast(({ result }) => !result.ok)?.result, gone);
  const lastError = delivered
    ? null
    : retryable && next === null
      ? `${lastAttemptError} — ${gaveUpReason(attemptCount)}`
      : lastAttemptError;
  const attempts: AttemptRecord[] = sent.map(({ url, headers, result }) => ({
    ...requestRecord(url, headers, result),
    errorMessage: errorOf(result, gone),
    outcome: result.ok ? 'success' : status === 'retrying' ? 'retry' : 'final',
    retryAt: status === 'retrying' ? next : null,
  }));
  return {
    result: { deliveryId: delivery.id, status, attemptCount, firstAttemptAt, nextAttemptAt: next, deadlineAt, lastError, body, signature, attempts },
    announced: delivery,
  };
}

/** What an attempt records of its request and answer (the rest — error, outcome, retry — is the round's). */
export function requestRecord(
  url: string,
  headers: Record<string, string>,
  result: SendResult,
): Omit<AttemptRecord, 'errorMessage' | 'outcome' | 'retryAt'> {
  return {
    url,
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    requestHeaders: JSON.stringify(headers),
    responseStatus: result.status,
    responseHeaders: result.responseHeaders ? JSON.stringify(result.responseHeaders) : null,
    responseBody: result.responseBody,
    errorCode: result.errorCode,
  };
}

/**
 * An attempt's error: the sender's sentence, or, when the receiver is a Sluice whose loop guard refused
 * the request (409 loop_detected / too_many_hops), that said plainly with its own sentence.
 */
export function errorOf(result: SendResult | undefined, goneDisables = false): string | null {
  if (!result) return null;
  if (result.status === 410 && goneDisables) return GONE_DISABLES;
  if (result.status === 409 && result.responseBody?.includes('"code":"')) {
    try {
      const error = (JSON.parse(result.responseBody) as { error?: { code?: string; message?: string } }).error;
      if (error?.code === 'loop_detected' || error?.code === 'too_many_hops') {
        return `refused by the loop guard (409 ${error.code}): ${error.message ?? ''} — a 4xx is final, the request will not be retried`;
      }
    } catch {
      // not the loop guard's answer
    }
  }
  return result.errorMessage;
}

/** The body a round sends, or why it cannot send one (its outcome: failed without a request). */
export type ResolvedBody = { body: string; signature: string | null; via: string | null } | { unsendable: RoundOutcome };

/**
 * A delivery's body, signed (X-Signature), and the Sluices its message passed through: its own
 * (an edited replay's), the one `prepared` ahead when it was built with the destination's current
 * settings, else its message read from the store and mapped now. Settings are read at each round, so
 * edits apply to the next attempt (and no prepared body is given during a purge: body-prefetch.ts).
 */
export function resolveBody(
  parts: Pick<RoundParts, 'messages' | 'deliveries'>,
  delivery: DueDelivery,
  destination: Destination,
  prepared: PreparedBody | undefined,
  firstAttemptAt: number,
): ResolvedBody {
  const sharedSecret = destination.kind === 'tracking-api' ? null : (destination.sharedSecret ?? null);
  const shape = bodyShapeOf(destination);
  let body = delivery.bodyOverride;
  if (body === null && prepared !== undefined && prepared.bodyShape === shape && prepared.sharedSecret === sharedSecret) {
    return { body: prepared.body, signature: prepared.signature, via: prepared.via };
  }
  let via: string | null = null;
  /** Why nothing can be sent, if so; `unreadable` is announced with its message, a purge without. */
  let unsendable: { lastError: string; unreadable: boolean } | null = null;
  if (body === null) {
    // Through the store's link, in one read, not the id read at refill: a purge sets the link to
    // NULL, and the purged message's id may since have been given to a new message (ids are
    // reused once the newest rows are gone), which must not be sent as this delivery.
    let message: Record<string, unknown> | null = null;
    try {
      const record = delivery.messageId === null ? undefined : parts.messages.ofDelivery(delivery.id);
      message = record?.message ?? null;
      via = record?.via ?? null;
      if (!message) unsendable = { lastError: PURGED, unreadable: false };
    } catch (error) {
      // The store failing may pass (the round fails and is retried after a pause); a stored
      // message that cannot be normalized will not get better: fail it rather than retry forever.
      if ((error as { code?: string }).code === 'ERR_SQLITE_ERROR') throw error;
      unsendable = { lastError: `the stored message cannot be read (${(error as Error).message}); nothing was sent`, unreadable: true };
    }
    if (message) body = JSON.stringify(webhookBody(message, shape));
  } else if (delivery.messageId !== null && !parts.deliveries.hasMessage(delivery.id)) {
    // An edited replay carries its own body, but that is still its message's data: once the
    // message was purged it is not sent (the purge cleared the stored copy too).
    unsendable = { lastError: PURGED, unreadable: false };
  }
  if (unsendable || body === null) {
    return {
      unsendable: {
        result: {
          deliveryId: delivery.id,
          status: 'failed',
          attemptCount: delivery.attemptCount,
          firstAttemptAt,
          nextAttemptAt: null,
          deadlineAt: firstAttemptAt + RETRY_WINDOW_MS,
          lastError: unsendable?.lastError ?? PURGED,
          body: null,
          signature: null,
          attempts: [],
        },
        // A purged message is announced as of no message: the id it had may be another message's now.
        announced: unsendable?.unreadable ? delivery : { ...delivery, messageId: null },
      },
    };
  }
  return { body, signature: sharedSecret ? signBody(body, sharedSecret) : null, via };
}

/** The longest Retry-After among 408, 429 and 5xx answers, in ms from now. */
export function maxRetryAfter(results: SendResult[], now: number): number | undefined {
  let max: number | undefined;
  for (const result of results) {
    if (!result.retryable || !result.responseHeaders) continue;
    const ms = parseRetryAfter(result.responseHeaders['retry-after'], now);
    if (ms !== undefined) max = Math.max(max ?? 0, ms);
  }
  return max;
}

/** Standard Webhooks' `webhook-id` of a delivery: unique per Sluice (its data folder's id) and delivery. */
export function webhookId(instanceId: string, deliveryId: number): string {
  return `msg_${instanceId.replace(/^sl_/, '')}_${deliveryId}`;
}
