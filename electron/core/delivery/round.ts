import type { BodyRecipe } from '../../../shared/webhook-body.ts';
import type { Clock } from '../clock.ts';
import type { DeliveriesRepo, DueDelivery } from '../store/deliveries-repo.ts';
import { headersByReference } from '../store/attempt-headers.ts';
import type { AttemptRecord, DeliveryResult, DeliveryStatus } from '../store/delivery-types.ts';
import type { Destination } from '../store/destinations-repo.ts';
import type { MessageRecord, MessagesRepo } from '../store/messages-repo.ts';
import type { Transformer } from '../transforms/transformer.ts';
import { buildBody, sameRecipe, type PreparedBody, type SignedBody } from './body.ts';
import { factsOf, filterMessage, shapeKey, transformAll, untransformed, type Filtered, type Shaped } from './shaping.ts';
import { gaveUpReason, nextAttemptAt, parseRetryAfter, RETRY_WINDOW_MS } from './retry-schedule.ts';
import { GONE_DISABLES, type SendResult, type WebhookSender } from './webhook-sender.ts';

// What every kind's round shares (kinds/): the parts it runs with, its outcome, the body it sends,
// what an attempt records, and what an answer's error and Retry-After say.

/** A delivery whose message was purged (or is otherwise gone): failed, nothing sent. */
const PURGED = 'the message is no longer stored (purged?); nothing was sent';

export interface RoundParts {
  clock: Clock;
  /** A source's name by id (what a destination's filter's `source:` tests). */
  sourceName?: (sourceId: number) => string;
  /** The transform runtime, started on first use (a destination with a transform). */
  transformer?: () => Transformer;
  sender: WebhookSender;
  messages: Pick<MessagesRepo, 'ofDelivery'>;
  deliveries: Pick<DeliveriesRepo, 'hasMessage'>;
  /** This Sluice's id, last in every request's Sluice-Loop header (shared/loop-guard.ts). */
  instanceId: string;
  /** Hears each request's answer as soon as the round's requests end, before its slot is freed (circuit breakers, 410). */
  heard?: (destinationId: number, url: string, result: SendResult) => void;
  random?: (() => number) | undefined;
  /** When this engine started (the relay's clock): a retry whose window ended before it waited while Sluice was stopped. */
  runningSince?: number;
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
  // A sender's sentence ends with its own verdict ("; will retry"): the round's, when it gives up, replaces it.
  const lastError = delivered ? null : retryable && next === null ? `${withoutVerdict(error)} — ${gaveUpReason(rounds)}` : error;
  return { status, next, lastError };
}

/** The sender's own verdict at the end of its sentence (webhook-sender.ts). */
const SENDER_VERDICT = /; (will retry(: a webhook its circuit breaker held back may take it)?|a 4xx is final, the request will not be retried)$/;

/** An error sentence without the sender's verdict, for the round to say its own. */
export function withoutVerdict(error: string | null): string | null {
  return error === null ? null : error.replace(SENDER_VERDICT, '');
}

/**
 * An attempt's error as the round settled it: the sender's verdict where the round's differs — a 503
 * beside a webhook that took the event is not retried, and one in a round that gave up is not either
 * (before 2026-12-01 both still said "will retry").
 */
export function attemptError(error: string | null, ok: boolean, status: DeliveryStatus): string | null {
  if (ok || error === null) return error;
  // A 4xx in a round that retries for another webhook's sake: this URL is posted to again with the rest.
  if (status === 'retrying') return error.endsWith('the request will not be retried') ? `${withoutVerdict(error)}; a 4xx, but the delivery is retried for another webhook` : error;
  if (!error.endsWith('; will retry')) return error;
  return `${withoutVerdict(error)}; not retried: ${status === 'delivered' ? 'another webhook took the event' : 'the delivery gave up'}`;
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

/**
 * What a round sends for a delivery — its body, or its bodies in order (a transform's fan-out), signed
 * (X-Signature), with the Sluices its message passed through and what its destination's filters and
 * transform made of it — or why it sends nothing (its outcome then: skipped, retrying or failed without
 * a request).
 */
export type ResolvedBody =
  | { bodies: SignedBody[]; via: string | null; shaping: string | null; run: string | null }
  | { unsendable: RoundOutcome };

/**
 * The round's deliveries' bodies: each one's own (an edited replay's: sent as it is, or through the
 * destination's transform when it asked), the one `prepared` ahead when it was built with the
 * destination's current recipe (its kind's: shape and secret) and its current filters and transform,
 * else its message read from the store, filtered, transformed (the round's in one call) and built now
 * (body.ts, shaping.ts). The recipe is read at each round, so edits apply to the next attempt (and no
 * prepared body is given during a purge: body-prefetch.ts).
 */
export async function resolveBodies(
  parts: Pick<RoundParts, 'messages' | 'deliveries' | 'sourceName' | 'transformer' | 'random' | 'runningSince'> & { clock: Clock },
  deliveries: readonly DueDelivery[],
  destination: Destination,
  recipe: BodyRecipe,
  prepared: readonly (PreparedBody | undefined)[],
  startedAt: number,
): Promise<ResolvedBody[]> {
  const key = shapeKey(destination);
  const out: (ResolvedBody | { via: string | null; filtered: Filtered } | { via: string | null; edited: Record<string, unknown> })[] = deliveries.map((delivery, i) => {
    const firstAttemptAt = delivery.firstAttemptAt ?? startedAt;
    if (endedWhileStopped(delivery, parts.runningSince)) {
      return { unsendable: { result: { ...unsent(delivery, firstAttemptAt), status: 'failed', lastError: WINDOW_ENDED_WAITING }, announced: delivery } };
    }
    const ready = prepared[i];
    if (delivery.bodyOverride === null && ready !== undefined && sameRecipe(ready, recipe) && ready.shapeKey === key) {
      return settled(parts, delivery, firstAttemptAt, ready.shaped, ready.via);
    }
    const read = readMessage(parts, delivery, firstAttemptAt);
    if ('unsendable' in read) return read;
    if (read.body !== null) {
      // An edited replay's body: sent as it is, unless it asked to go through the transform (its event).
      if (!(delivery.transformBody && destination.transform)) return { bodies: [buildBody(recipe, read.body)], via: read.via, shaping: null, run: null };
      return { via: read.via, edited: JSON.parse(read.body) as Record<string, unknown> };
    }
    const facts = factsOf(parts.sourceName?.(read.record.sourceId) ?? '', read.record.origin, read.record.violationList);
    const filtered = filterMessage(destination, read.record.message!, facts);
    if (!destination.transform) return settled(parts, delivery, firstAttemptAt, untransformed(recipe, filtered), read.via);
    return { via: read.via, filtered };
  });
  // The round's messages that its destination's transform is still to run on: one call for them all.
  const waiting = out.flatMap((r, i) => ('filtered' in r || 'edited' in r ? [i] : []));
  if (waiting.length > 0) {
    const transformer = parts.transformer?.();
    if (!transformer) throw new Error('no transform runtime was given to the delivery engine (DeliveryEngineOptions.transformer)');
    const inputs = waiting.map((i) => {
      const r = out[i] as { filtered: Filtered } | { edited: Record<string, unknown> };
      // An edited body's events are bodies already: each is sent as the transform returned it.
      return 'filtered' in r ? r.filtered : ({ kind: 'kept', message: r.edited, shaping: null, asBody: true } as const);
    });
    const shaped = await transformAll(transformer, destination, recipe, inputs);
    waiting.forEach((i, k) => {
      const { via } = out[i] as { via: string | null };
      out[i] = settled(parts, deliveries[i]!, deliveries[i]!.firstAttemptAt ?? startedAt, shaped[k]!, via);
    });
  }
  return out as ResolvedBody[];
}

/** A delivery's message (or own body) read from the store, or why it cannot be sent. */
function readMessage(
  parts: Pick<RoundParts, 'messages' | 'deliveries'>,
  delivery: DueDelivery,
  firstAttemptAt: number,
): { body: string; via: null } | { body: null; record: MessageRecord & { message: Record<string, unknown> }; via: string | null } | { unsendable: RoundOutcome } {
  const body = delivery.bodyOverride;
  let record: MessageRecord | undefined;
  /** Why nothing can be sent, if so; `unreadable` is announced with its message, a purge without. */
  let unsendable: { lastError: string; unreadable: boolean } | null = null;
  if (body === null) {
    // Through the store's link, in one read, not the id read at refill: a purge sets the link to
    // NULL, and the purged message's id may since have been given to a new message (ids are
    // reused once the newest rows are gone), which must not be sent as this delivery.
    try {
      record = delivery.messageId === null ? undefined : parts.messages.ofDelivery(delivery.id);
      if (!record?.message) unsendable = { lastError: PURGED, unreadable: false };
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
  if (unsendable) {
    return {
      unsendable: {
        result: { ...unsent(delivery, firstAttemptAt), status: 'failed', lastError: unsendable.lastError },
        // A purged message is announced as of no message: the id it had may be another message's now.
        announced: unsendable.unreadable ? delivery : { ...delivery, messageId: null },
      },
    };
  }
  if (body !== null) return { body, via: null };
  return { body: null, record: record as MessageRecord & { message: Record<string, unknown> }, via: record!.via };
}

/** How long before this engine started a retry's window may have ended and the retry still go (a restart's own minute). */
export const WINDOW_GRACE_MS = 60_000;
const WINDOW_ENDED_WAITING = 'gave up: the 4-hour retry window ended while Sluice was stopped; nothing was sent — replay it to send it now';

/**
 * A retry the schedule set inside the 4-hour window whose window ended while Sluice was stopped (before
 * this engine started): failed without a request, as the spec's window says — before 2026-12-01 it went
 * out when Sluice started again, days late. Only that: a retry that waited while Sluice ran (its
 * destination disabled or held, its URLs behind open breakers until the receiver came back) still goes
 * once, late, as the delivery docs say; one a person asked for (Retry now, a bulk retry: due at the time
 * asked) always does.
 */
function endedWhileStopped(delivery: DueDelivery, runningSince: number | undefined): boolean {
  if (runningSince === undefined || delivery.firstAttemptAt === null || delivery.targetUrl !== null) return false;
  const deadline = delivery.firstAttemptAt + RETRY_WINDOW_MS;
  return delivery.nextAttemptAt <= deadline && deadline + WINDOW_GRACE_MS < runningSince;
}

/** A result of a round that sent nothing: the delivery's counts as they were, no attempt. */
function unsent(delivery: DueDelivery, firstAttemptAt: number): DeliveryResult {
  return {
    deliveryId: delivery.id, status: 'failed', attemptCount: delivery.attemptCount, firstAttemptAt, nextAttemptAt: null,
    deadlineAt: firstAttemptAt + RETRY_WINDOW_MS, lastError: null, body: null, signature: null, attempts: [],
  };
}

/**
 * What the destination's filters and transform decided, as the round's body or its outcome: a drop
 * is `skipped` with the reason (not an error, not retried, no attempt); a RetryError is retried on
 * the delivery's schedule (a round, counted as an attempt, without a request); a failure fails it.
 */
function settled(parts: Pick<RoundParts, 'random'> & { clock: Clock }, delivery: DueDelivery, firstAttemptAt: number, shaped: Shaped, via: string | null): ResolvedBody {
  if (shaped.kind === 'send') return { bodies: shaped.bodies, via, shaping: shaped.shaping, run: shaped.run };
  const base = unsent(delivery, firstAttemptAt);
  if (shaped.kind === 'skip') {
    return { unsendable: { result: { ...base, status: 'skipped', skipReason: shaped.reason, shaping: shaped.reason, transformRun: shaped.run }, announced: delivery } };
  }
  const attemptCount = delivery.attemptCount + 1;
  const retryable = shaped.kind === 'retry';
  const { status, next, lastError } = settle(parts, {
    attemptCount, firstAttemptAt, now: parts.clock.now(), delivered: false, retryable, retryAfterMs: undefined, error: shaped.error,
  });
  return {
    unsendable: {
      result: { ...base, status, attemptCount, nextAttemptAt: next, lastError, shaping: shaped.shaping, transformRun: shaped.run },
      announced: delivery,
    },
  };
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
