/** Messages between the request thread (IngestPipeline) and the ingest worker. */
import type { IngestJob } from './prepare-request.ts';

export type ToIngestWorker =
  | { kind: 'job'; job: IngestJob }
  | { kind: 'sources'; writeKeys: [writeKey: string, sourceId: number][] }
  | { kind: 'close' };

/** Committed messages travel as parallel columns: cheap to clone, and no per-message objects. */
export interface CommittedColumns {
  requestId: number;
  ids: Float64Array;
  /** 0 accepted, 1 rejected, 2 duplicate. */
  statuses: Uint8Array;
  messageIds: (string | null)[];
  types: (string | null)[];
  rejectCodes: (string | null)[];
  rejectReasons: (string | null)[];
  userIds: (string | null)[];
  anonymousIds: (string | null)[];
  events: (string | null)[];
  timestamps: (number | null)[];
}

export type FromIngestWorker =
  | { kind: 'committed'; results: ({ jobId: number; sourceId: number; receivedAt: number } & CommittedColumns)[] }
  | { kind: 'refused'; jobId: number; status: number; code: string; message: string }
  | { kind: 'failed'; jobIds: number[]; message: string }
  | { kind: 'closed' };

export const STATUS_NAMES = ['accepted', 'rejected', 'duplicate'] as const;
