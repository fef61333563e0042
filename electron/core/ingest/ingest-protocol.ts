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
import type { NewDelivery, Route } from '../store/delivery-types.ts';
import type { CommittedRequest } from '../store/stored-request.ts';

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

