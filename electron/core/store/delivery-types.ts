// The shapes of deliveries and their attempts as the store keeps them: what the delivery engine
// records after a round, and what is asked of the writer when deliveries are made on request.
import type { DeliveryErrorCode } from '../../../shared/contract.ts';
import type { BodyShape } from '../../../shared/webhook-body.ts';

/** Which enabled destinations receive each source's messages: a delivery row is created for each. */
export interface Route {
  sourceId: number;
  destinationIds: number[];
  /** Those of destinationIds that forward to a Tracking API: they get every accepted message (its integrations are the API's to read). */
  forwardIds?: number[];
}

export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed' | 'skipped' | 'cancelled';

export interface AttemptRecord {
  url: string;
  startedAt: number;
  durationMs: number;
  /**
   * JSON of the headers sent (never the secret itself) — or, with `headerSet`, only this attempt's own
   * values of the set's blanks (its Standard Webhooks headers; X-Signature is the delivery's).
   */
  requestHeaders: string;
  /**
   * JSON of the headers sent with the values that change per delivery or attempt left null, stored once
   * and shared by the attempts that sent the same set (store/attempt-headers.ts); absent or null:
   * `requestHeaders` holds them all.
   */
  headerSet?: string | null;
  responseStatus: number | null;
  responseHeaders: string | null;
  responseBody: string | null;
  errorCode: DeliveryErrorCode | null;
  errorMessage: string | null;
  outcome: 'success' | 'retry' | 'final';
  retryAt: number | null;
  /**
   * The request this attempt was one message of, when one request carried several deliveries (a
   * forwarded batch): recorded once for all of them, each delivery's attempt a reference to it
   * (delivery-results.ts). This record's request fields are that request's; its error differs only
   * when the receiver refused this message alone.
   */
  carriedBy?: SharedRequest;
  /** The destination's transform run whose output this attempt sent (JSON: delivery/shaping.ts runRecord); absent without a transform. */
  transformRun?: string | null;
}

/** A request several deliveries went in, as recorded once for all of them (migration 17: forward_requests). */
export type SharedRequest = Omit<AttemptRecord, 'outcome' | 'retryAt' | 'carriedBy' | 'headerSet' | 'transformRun'>;

/** The outcome of one delivery round: the delivery's new state and the attempts it made. */
export interface DeliveryResult {
  deliveryId: number;
  status: DeliveryStatus;
  attemptCount: number;
  firstAttemptAt: number;
  nextAttemptAt: number | null;
  deadlineAt: number;
  lastError: string | null;
  /** The body sent and its signature; null when nothing was sent (the stored ones are kept), or when it is recorded by reference (bodyShape). */
  body: string | null;
  signature: string | null;
  /**
   * The body sent was what the builder makes of the delivery's stored message in this shape (no filter,
   * no transform, no body of its own): recorded by reference, not copied (store/delivery-bodies.ts).
   */
  bodyShape?: BodyShape | null;
  attempts: AttemptRecord[];
  /**
   * What the destination's filters and transform made of it (migration 21: deliveries.shaping), e.g.
   * "transformed (version …)", "dropped by filter 2 (if: …)"; absent or null: it has neither.
   */
  shaping?: string | null;
  /** A `skipped` result's reason (a filter's or the transform's drop). */
  skipReason?: string | null;
  /** The transform's run (JSON) of a round that sent nothing because of it: dropped, retry, failed. */
  transformRun?: string | null;
}

export type DeliveryTrigger = 'automatic' | 'replay' | 'audience' | 'deletion' | 'test';

/** A delivery made on request (replay, deletion notification, test), not by ingestion. */
export interface NewDelivery {
  messageId: number | null;
  destinationId: number;
  /**
   * Never 'automatic': only ingestion makes those (request-writes.ts), and it counts them for the delivery
   * overview as it makes them (delivery-hours.ts); a trigger no longer does.
   */
  trigger: Exclude<DeliveryTrigger, 'automatic'>;
  replayOf: number | null;
  /** Post here instead of the destination's webhooks. */
  targetUrl: string | null;
  /** Send this body instead of the message's mapped body. */
  bodyOverride: string | null;
  /** An edited replay's body goes through the destination's transform (deliveries.replay skipTransform: false). */
  transformBody?: boolean;
  due: number;
  /** The deletion request a delete notification belongs to (set on its replays; a deletionRequest op sets its own). */
  deletionRequestId?: number | null;
  /**
   * The message's own messageId when it was planned: the delivery is made only if the row still
   * carries it (a purged message's id can be taken by a new message).
   */
  messageKey?: string | null;
}
