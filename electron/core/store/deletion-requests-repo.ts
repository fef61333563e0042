import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { DeletionRequestView } from '../../../shared/contract.ts';

/** A stored deletion request: the contract's view without its deliveries. */
export type StoredDeletionRequest = Omit<DeletionRequestView, 'deliveries'>;

interface Row {
  id: number;
  userId: string;
  requestedAt: number;
  purge: number;
  sourceIds: string;
  purgedMessages: number;
}

/** Read side of deletion requests (the store's writer thread writes them with their notifications). */
export class DeletionRequestsRepo {
  readonly #recent: StatementSync;

  constructor(db: DatabaseSync) {
    this.#recent = db.prepare(
      `SELECT id, user_id AS userId, requested_at AS requestedAt, purge, source_ids AS sourceIds,
         purged_messages AS purgedMessages
       FROM deletion_requests ORDER BY id DESC LIMIT ?`,
    );
  }

  /** The most recent requests, newest first. */
  recent(limit: number): StoredDeletionRequest[] {
    return (this.#recent.all(limit) as unknown as Row[]).map((row) => ({
      id: row.id,
      userId: row.userId,
      requestedAt: row.requestedAt,
      purge: row.purge === 1,
      sourceIds: JSON.parse(row.sourceIds) as number[],
      purgedMessages: row.purgedMessages,
    }));
  }
}
