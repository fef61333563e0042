/**
 * The contract's delivery channels (`delivery.*`, `deliveries.*`): holding the engine, replays, retries,
 * cancels, and a delivery with its attempts as the inspector sees it. Composed into shared/contract.ts.
 */
import { z } from 'zod';
import { messageFilterSchema } from '../message-filter.ts';
import { webhookUrlSchema } from '../settings.ts';
import { recordId as id } from './record-id.ts';

export const replayRequestSchema = z
  .strictObject({
    messageIds: z.array(z.number().int().positive()).min(1).max(10_000).optional(),
    filter: messageFilterSchema.optional(),
    /** Every failed delivery, again. */
    allFailed: z.literal(true).optional(),
    /** Through this destination (its secret, headers, body shape); default: every enabled destination of the message's source. */
    destinationId: z.number().int().optional(),
    /** Post to this URL instead of the destination's webhooks, e.g. http://localhost:3000/hook. */
    targetUrl: webhookUrlSchema.optional(),
    /** An edited body to send instead (one message only); it is re-signed. */
    body: z.record(z.string(), z.unknown()).optional(),
    /**
     * With `body`: whether the edited body is sent as it is (true, the default: it is the body the
     * destination receives, already past its filters and transform) or given to the destination's
     * transform as its event, each event it returns then sent as a body (false).
     */
    skipTransform: z.boolean().optional(),
    /** Only count what would be replayed (for a confirmation); nothing is created. */
    dryRun: z.boolean().optional(),
  })
  .superRefine((request, ctx) => {
    const ways = [request.messageIds, request.filter, request.allFailed].filter((w) => w !== undefined).length;
    if (ways !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of messageIds, filter or allFailed' });
    if (request.body && request.messageIds?.length !== 1) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'an edited body replays exactly one message' });
    }
    if (request.skipTransform !== undefined && !request.body) {
      ctx.addIssue({ code: 'custom', path: ['skipTransform'], message: 'skipTransform goes with an edited body; a replay without one runs the current filters and transform' });
    }
  });
export type ReplayRequest = z.infer<typeof replayRequestSchema>;

/** What a replay created (or, for a dry run, would create). */
export interface ReplayOutcome {
  /** The new deliveries; empty for a dry run. */
  deliveryIds: number[];
  /** Messages replayed (a notification without a message, e.g. a deletion's, counts as none). */
  messages: number;
  /** Deliveries replayed: one per message and destination. */
  deliveries: number;
  /** Messages a filter matched that cannot be replayed: rejected ones, and ones whose source has no enabled destination. */
  leftOut: { rejected: number; noDestination: number };
  /** "All failed" found more failed deliveries than it replays at once (the oldest 10,000); run it again for the rest. */
  truncated?: true;
}

/** A filter replay covers at most this many messages; more is refused with a hint to narrow it. */
export const REPLAY_FILTER_MAX = 10_000;

export const deliveryRequestSchemas = {
  /** Whether deliveries are held, and how many wait (pending or retrying). */
  'delivery.state': z.strictObject({}),
  /**
   * Holds deliveries (nothing new is sent; rounds under way finish) or lets them go. In memory only:
   * a restart resumes delivery. Every open window hears a `delivery.held` event.
   */
  'delivery.hold': z.strictObject({ held: z.boolean() }),
  'deliveries.replay': replayRequestSchema,
  'deliveries.retryNow': z.strictObject({ ids: z.array(id).min(1).max(10_000) }),
  'deliveries.cancel': z.strictObject({ ids: z.array(id).min(1).max(10_000) }),
  /** One delivery with its attempts (e.g. a test delivery, read again after a reconnect). */
  'deliveries.get': z.strictObject({ id }),
  /** A delivery's whole body as sent (a message's detail carries only the start of a big one: DeliveryView.bodyBytes). */
  'deliveries.body': z.strictObject({ id }),
  /** One header of an attempt's request as sent: a credential the attempt's view masks (AttemptView.maskedHeaders), on Reveal or for Copy as curl. */
  'deliveries.revealHeader': z.strictObject({ deliveryId: id, attemptId: id, forwarded: z.boolean().optional(), name: z.string().min(1).max(200) }),
  /** These deliveries' states, as `deliveries.changed` carries them (read again after a reconnect); unknown ids are left out. */
  'deliveries.states': z.strictObject({ ids: z.array(id).min(1).max(10_000) }),
} as const;

export interface DeliveryResponses {
  'delivery.state': DeliveryHoldState;
  'delivery.hold': DeliveryHoldState;
  /** A dry run (`dryRun: true`) only counts: `deliveryIds` is empty. */
  'deliveries.replay': ReplayOutcome;
  'deliveries.retryNow': { changed: number };
  'deliveries.cancel': { changed: number };
  'deliveries.get': DeliveryView;
  /** null: nothing was sent yet (or a purge removed it). */
  'deliveries.body': { body: string | null };
  'deliveries.revealHeader': { value: string };
  'deliveries.states': { changes: DeliveryChange[] };
}

/** Whether the delivery engine is held, and how many deliveries wait to be sent (pending or retrying). */
export interface DeliveryHoldState {
  held: boolean;
  waiting: number;
}

/** Why an attempt failed (the attempts table's error_code); `http` comes with the status it answered. */
export type DeliveryErrorCode = 'timeout' | 'tls' | 'connect' | 'reset' | 'http';

export interface DeliverySummary {
  id: number;
  status: string;
  attemptCount: number;
  nextAttemptAt: number | null;
  lastError: string | null;
  /** The last attempt's error code while the delivery is retrying or failed (else null). */
  lastErrorCode: DeliveryErrorCode | null;
  /** The status the last attempt got when its error is `http` (else null). */
  lastHttpStatus: number | null;
  /** Why a `skipped` delivery was not sent (e.g. the message's integrations turn webhooks off, a filter dropped it). */
  skipReason: string | null;
  /**
   * What its destination's filters and transform made of it, in a few words: "transformed (version
   * 0123456789ab)", "fields filtered by filter 1 (…)", "dropped by filter 2 (if: …)", "dropped by
   * transform: …", "transform failed: …"; null (or absent) when the destination has neither.
   */
  shaping?: string | null;
  /**
   * Where it goes and what made it: which delivery a row shows depends on them (a replay supersedes
   * earlier deliveries to its destination, one to a typed `targetUrl` does not: shared/shown-delivery.ts),
   * and a row says when the delivery it shows is a replay.
   */
  destinationId: number;
  /** automatic, replay, audience, deletion or test. */
  trigger: string;
  /** A replay's own URL; null: the destination's webhooks. */
  targetUrl: string | null;
}

export interface AttemptView {
  id: number;
  url: string;
  startedAt: number;
  durationMs: number;
  /** As sent, but each credential's value masked (shared/credential-headers.ts): `deliveries.revealHeader` reads it. */
  requestHeaders: Record<string, string>;
  /** The names of the headers whose values `requestHeaders` masks (absent: none). */
  maskedHeaders?: string[];
  responseStatus: number | null;
  responseHeaders: Record<string, string | string[]> | null;
  responseBody: string | null;
  errorCode: DeliveryErrorCode | null;
  errorMessage: string | null;
  outcome: string;
  retryAt: number | null;
  /** The destination's transform run whose output this attempt sent (absent: no transform). */
  transform?: TransformRunView;
  /**
   * A request forwarded to a Tracking API, recorded once for the messages it carried (migration 17): its
   * `id` is its request's, which may equal an attempt's of the records kept per message before; absent:
   * an attempt of the delivery's own. `deliveries.revealHeader` takes both to name one.
   */
  forwarded?: true;
}

export interface DeliveryView extends DeliverySummary {
  replayOf: number | null;
  /** The body as sent (null before the first attempt); in a message's detail, only its start when `bodyBytes` is set. */
  body: string | null;
  /**
   * Set when `body` holds only the first BODY_PREVIEW_BYTES (shared/limits.ts) of a bigger body, cut at
   * a character boundary: the whole body's size in bytes (`deliveries.body` reads it all).
   */
  bodyBytes?: number;
  signature: string | null;
  firstAttemptAt: number | null;
  deadlineAt: number | null;
  createdAt: number;
  attempts: AttemptView[];
  /** Its latest transform run: the last round's that sent nothing because of it, else its last attempt's; null: none. */
  transform?: TransformRunView | null;
}

/** A destination's transform run, as a delivery and its attempts record it (issue 28). */
export interface TransformRunView {
  /** The first 12 hex digits of the transform source's SHA-256. */
  version: string;
  ms: number;
  /** What it logged (at most 100 lines). */
  logs: { level: string; text: string }[];
  outcome: 'changed' | 'unchanged' | 'dropped' | 'retry' | 'failed';
  /** The events it returned, when it changed them (an unchanged event is the stored message). */
  output?: Record<string, unknown>[];
  /** Set instead of `output` when the events were too big to keep with every attempt: their size in bytes. */
  outputBytes?: number;
  /** dropped, retry, failed: why; failed may carry the stack. */
  message?: string;
  stack?: string;
}

/**
 * A delivery's new state, as announced after it is stored: a DeliverySummary's fields (state, last
 * error, and where it goes — which delivery a row shows depends on them), with the delivery's and its
 * message's ids; the skip reason only when a round skipped it (a filter's or a transform's drop).
 */
export type DeliveryChange = { deliveryId: number; messageId: number | null } & Omit<DeliverySummary, 'id' | 'skipReason'> & { skipReason?: string | null };
