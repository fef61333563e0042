import type { BodyRecipe } from '../../../shared/webhook-body.ts';
import type { Clock } from '../clock.ts';
import type { DeliveriesRepo, DueDelivery } from '../store/deliveries-repo.ts';
import { headersByReference } from '../store/attempt-headers.ts';
import type { AttemptRecord, DeliveryResult, DeliveryStatus } from '../store/delivery-types.ts';
import type { MessagesRepo } from '../store/messages-repo.ts';
import { buildBody, sameRecipe, type PreparedBody } from './body.ts';
import { gaveUpReason, nextAttemptAt, parseRetryAfter, RETRY_WINDOW_MS } from './retry-schedule.ts';
import { GONE_DISABLES, type SendResult, type WebhookSender } from './webhook-sender.ts';

// What every kind's round shares (kinds/): the parts it runs with, its outcome, the body it sends,
// what an attempt records, and what an answer's error and Retry-After say.

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
 * What a round's answers mean for a delivery, the same for every kind: delivered when one succeeded;
 * else retrying when one is worth retrying and the 4-hour window leaves room (retry-schedule.ts,
 * lengthened by Retry-After), failed otherwise, its last error then saying that it gave up.
 */
export function settle(
  parts: Pick<RoundParts, 'random'>,
  round: { attemptCount: number; firstAttemptAt: number; now: number; delivered: boolean; retryable: boolean; retryAfterMs: number | undefined; error: string | null },
): { status: DeliveryStatus; next: number | null; lastError: string | null } {
  const { attemptCount: rounds, firstAttemptAt, now, delivered, retryable, retryAfterMs, error } = round;
  const next = !delivered && retryable ? nextAttemptAt({ rounds, firstAttemptAt, now, retryAfterMs, ...(parts.random ? { random: parts.random } : {}) }) : null;
  const status = delivered ? 'delivered' : next !== null ? 'retrying' : 'failed';
  const lastError = delivered ? null : retryable && next === null ? `${error} — ${gaveUpReason(rounds)}` : error;
  return { status, next, lastError };
}

/** An attempt's outcome in a settled round (settle): its own success, else the round's retry or end. */
export function attemptOutcome(ok: boolean, status: DeliveryStatus, next: number | null): Pick<AttemptRecord, 'outcome' | 'retryAt'> {
  return { outcome: ok ? 'success' : status === 'retrying' ? 'retry' : 'final', retryAt: status === 'retrying' ? next : null };
}

/**
 * What an attempt records of its request and answer (the rest — error, outcome, retry — is the round's).
 * With `byReference`, its headers are recorded as a header set and its own values (store/attempt-headers.ts),
 * X-Signature as the delivery's when it is `byReference.signature`; without, as sent.
 */
export function requestRecord(
  url: string,
  headers: Record<string, string>,
  result: SendResult,
  byReference?: { signature: string | null },
): Omit<AttemptRecord, 'errorMessage' | 'outcome' | 'retryAt'> {
  const recorded = byReference ? headersByReference(headers, byReference.signature) : { headerSet: null, own: JSON.stringify(headers) };
  return {
    url,
    startedAt: result.startedAt,
    durationMs: result.durationMs,
    requestHeaders: recorded.own,
    headerSet: recorded.headerSet,
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
type ResolvedBody = { body: string; signature: string | null; via: string | null } | { unsendable: RoundOutcome };

/**
 * A delivery's body, signed (X-Signature), and the Sluices its message passed through: its own
 * (an edited replay's), the one `prepared` ahead when it was built with the destination's current
 * recipe (its kind's: shape and secret), else its message read from the store and built now (body.ts).
 * The recipe is read at each round, so edits apply to the next attempt (and no prepared body is given
 * during a purge: body-prefetch.ts).
 */
export function resolveBody(
  parts: Pick<RoundParts, 'messages' | 'deliveries'>,
  delivery: DueDelivery,
  recipe: BodyRecipe,
  prepared: PreparedBody | undefined,
  firstAttemptAt: number,
): ResolvedBody {
  let body = delivery.bodyOverride;
  if (body === null && prepared !== undefined && sameRecipe(prepared, recipe)) {
    return { body: prepared.body, signature: prepared.signature, via: prepared.via };
  }
  let via: string | null = null;
  let message: Record<string, unknown> | null = null;
  /** Why nothing can be sent, if so; `unreadable` is announced with its message, a purge without. */
  let unsendable: { lastError: string; unreadable: boolean } | null = null;
  if (body === null) {
    // Through the store's link, in one read, not the id read at refill: a purge sets the link to
    // NULL, and the purged message's id may since have been given to a new message (ids are
    // reused once the newest rows are gone), which must not be sent as this delivery.
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
  } else if (delivery.messageId !== null && !parts.deliveries.hasMessage(delivery.id)) {
    // An edited replay carries its own body, but that is still its message's data: once the
    // message was purged it is not sent (the purge cleared the stored copy too).
    unsendable = { lastError: PURGED, unreadable: false };
  }
  if (unsendable || (body === null && message === null)) {
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
  return { ...buildBody(recipe, body ?? message!), via };
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
