/** Messages between the request thread (IngestPipeline) and the ingest worker. */
import type { IngestJob } from './prepare-request.ts';

export type ToIngestWorker =
  | { kind: 'job'; job: IngestJob }
  | { kind: 'sources'; writeKeys: [writeKey: string, sourceId: number][] }
  | { kind: 'close' };

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
  /** Index into MESSAGE_STATUS_NAMES. */
  statuses: Uint8Array;
  rejected: RejectedEntry[];
}

export type FromIngestWorker =
  | { kind: 'committed'; results: (CommittedRequest & { jobId: number })[] }
  | { kind: 'refused'; jobId: number; status: number; code: string; message: string }
  | { kind: 'failed'; jobIds: number[]; message: string }
  | { kind: 'closed' };

export const MESSAGE_STATUS_NAMES = ['accepted', 'rejected', 'duplicate'] as const;
