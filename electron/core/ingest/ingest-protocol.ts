/**
 * Messages between the request thread (IngestPipeline) and the ingest worker, which is also the
 * store's single writer: delivery results are committed there too, in the same group commits, so
 * the request thread never waits for SQLite's write lock.
 */
import type { IngestJob } from './prepare-request.ts';
import type { DeliveryErrorCode } from '../../../shared/contract.ts';
import type { AudienceOp, AudienceOutcome } from '../audiences/audience-ops.ts';
import type { BodyShape } from '../../../shared/webhook-body.ts';
import type { ResultColumns } from './result-columns.ts';

/** Which enabled destinations receive each source's messages: a delivery row is created for each. */
export interface Route {
  sourceId: number;
  destinationIds: number[];
}

export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed' | 'skipped' | 'cancelled';

export interface AttemptRecord {
  url: string;
  startedAt: number;
  durationMs: number;
  /** JSON of the headers sent (never the secret itself). */
  requestHeaders: string;
  responseStatus: number | null;
  responseHeaders: string | null;
  responseBody: string | null;
  errorCode: DeliveryErrorCode | null;
  errorMessage: string | null;
  outcome: 'success' | 'retry' | 'final';
  retryAt: number | null;
}

/** The outcome of one delivery round: the delivery's new state and the attempts it made. */
export interface DeliveryResult {
  deliveryId: number;
  status: DeliveryStatus;
  attemptCount: number;
  firstAttemptAt: number;
  nextAttemptAt: number | null;
  deadlineAt: number;
  lastError: string | null;
  /** The body sent and its signature; null when nothing was sent (the stored ones are kept). */
  body: string | null;
  signature: string | null;
  attempts: AttemptRecord[];
}

export type DeliveryTrigger = 'automatic' | 'replay' | 'audience' | 'deletion' | 'test';

/** A delivery made on request (replay, deletion notification, test), not by ingestion. */
export interface NewDelivery {
  messageId: number | null;
  destinationId: number;
  trigger: DeliveryTrigger;
  replayOf: number | null;
  /** Post here instead of the destination's webhooks. */
  targetUrl: string | null;
  /** Send this body instead of the message's mapped body. */
  bodyOverride: string | null;
  due: number;
  /** The deletion request a delete notification belongs to (set on its replays; a deletionRequest op sets its own). */
  deletionRequestId?: number | null;
  /**
   * The message's own messageId when it was planned: the delivery is made only if the row still
   * carries it (a purged message's id can be taken by a new message).
   */
  messageKey?: string | null;
}

/** Writes the request thread asks the store's writer for, each in one transaction. */
export type WriteOp =
  | { op: 'createDeliveries'; deliveries: NewDelivery[]; now: number }
  | { op: 'retryNow'; deliveryIds: number[]; now: number }
  | { op: 'cancel'; deliveryIds: number[]; now: number }
  | {
      op: 'deletionRequest';
      userId: string;
      purge: boolean;
      sourceIds: number[];
      deliveries: NewDelivery[];
      now: number;
    }
  | AudienceOp;

export interface WriteOutcome {
  /**
   * Ids of created rows (deliveries). createDeliveries leaves out the deliveries of messages that no
   * longer exist (purged after the caller planned them), so it may return fewer ids than asked for.
   */
  ids: number[];
  /** createDeliveries: messages that were gone when the write ran (no delivery created for them). */
  goneMessageIds?: number[];
  /** Rows changed (retryNow, cancel) or messages purged. */
  changed: number;
  deletionRequestId?: number;
  /** What an audience op did (audiences/audience-ops.ts). */
  audience?: AudienceOutcome;
}

export type ToIngestWorker =
  | { kind: 'job'; job: IngestJob }
  | { kind: 'sources'; writeKeys: [writeKey: string, sourceId: number][] }
  | { kind: 'routes'; routes: Route[] }
  | { kind: 'results'; id: number; columns: ResultColumns }
  | { kind: 'write'; id: number; op: WriteOp }
  | ({ kind: 'bodies'; id: number } & BodiesRequest)
  | { kind: 'autocheckpoint' }
  | { kind: 'close' };

/**
 * Webhook bodies (and signatures) for the messages of queued deliveries, built by the writer thread
 * off the delivery engine's thread (delivery/prepare-bodies.ts).
 */
export interface BodiesRequest {
  messageIds: number[];
  bodyShape: BodyShape;
  sharedSecret: string | null;
}

/** By position in the request; null for a message that is gone (purged) or never forwarded. */
export interface PreparedBodies {
  bodies: (string | null)[];
  signatures: (string | null)[];
}

/** Why a message was rejected, by its index in the request. */
export interface RejectedEntry {
  index: number;
  code: string;
  message: string;
  messageId?: string;
}

/**
 * One committed request. Only ids and statuses travel back, as typed arrays (cheap to clone):
 * whoever needs more of a message reads it from the store.
 */
export interface CommittedRequest {
  requestId: number;
  sourceId: number;
  receivedAt: number;
  ids: Float64Array;
  /** Index into MESSAGE_STATUSES (shared/messages.ts): 0 accepted, 1 rejected, 2 duplicate. */
  statuses: Uint8Array;
  rejected: RejectedEntry[];
  /** Deliveries created for these messages (pending or skipped). */
  deliveries: number;
}

/** One unit of a group commit that failed, with the store's error (see ingest-worker.ts). */
export type UnitFailure =
  | { kind: 'job'; id: number; message: string }
  | { kind: 'results'; id: number; message: string }
  | { kind: 'op'; id: number; op: WriteOp['op']; message: string };

export type FromIngestWorker =
  | { kind: 'committed'; results: (CommittedRequest & { jobId: number })[] }
  | { kind: 'refused'; jobId: number; status: number; code: string; message: string }
  /** Units of a group commit that were not stored (the rest of the group was). */
  | { kind: 'failed'; failures: UnitFailure[] }
  | { kind: 'results-committed'; ids: number[] }
  | { kind: 'written'; id: number; outcome: WriteOutcome }
  | ({ kind: 'bodies'; id: number } & PreparedBodies)
  | { kind: 'closed' };

