import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { preparedOnUse } from './prepared.ts';
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

/** What a purge of a user would remove, counted in one read (one snapshot). */
export interface PurgeCounts {
  messages: number;
  /** The sources holding them or a profile of the user, ascending. */
  sourceIds: number[];
  /** Sources keeping a profile of the user. */
  profiles: number;
  deliveries: number;
  attempts: number;
  audienceMemberships: number;
}

/** The sources keeping a profile of the user (`?`: the userId): part of where a user's data is. */
const PROFILED = 'SELECT source_id FROM profile_users WHERE user_id = ?';

/** Read side of deletion requests (the store's writer thread writes them with their notifications). */
export class DeletionRequestsRepo {
  readonly #sql;

  constructor(db: DatabaseSync) {
    this.#sql = preparedOnUse(db, {
      recent: `SELECT id, user_id AS userId, requested_at AS requestedAt, purge, source_ids AS sourceIds,
           purged_messages AS purgedMessages
         FROM deletion_requests ORDER BY id DESC LIMIT ?`,
      // The sources a user's data is in: their messages (any status: rejected ones hold their data too;
      // one scan, no index by user), or a profile of them (audiences' traits and events, which outlive the
      // messages: a prune keeps them).
      sourcesOfUser: `SELECT source_id AS id FROM messages WHERE user_id = ? UNION ${PROFILED} ORDER BY 1`,
      // The destinations an audience's sync sent the user to (migration 30: kept when retention or a clear takes
      // the identifies, the audience is edited or deleted; before, found through those identifies only), and
      // those in the own lists of audiences the user is a member of (synced before the record existed).
      audienceDestinations: `SELECT destination_id AS id FROM audience_sent_users WHERE user_id = ?
         UNION SELECT CAST(j.value AS INTEGER) FROM audiences a, json_each(a.destination_ids) j
         WHERE a.destination_ids IS NOT NULL AND EXISTS (SELECT 1 FROM audience_members m WHERE m.audience_id = a.id AND m.user_id = ?)
         ORDER BY 1`,
      // The rows a purge takes (deletion-writes.ts purgeUser, the audience writer's forgetPurgedUser) in
      // the sources sourcesOfUser names (here read from the same two parts): the user's messages, the
      // deliveries of them whose bodies it removes, their attempts whose answers it removes (a forwarded
      // message's attempt is its share of a request's record, migration 17: the purge clears that
      // request's answer), the profiles, and the memberships in those sources' audiences.
      purgeCounts: `WITH mine AS MATERIALIZED (SELECT id, source_id FROM messages WHERE user_id = ?),
           sent AS MATERIALIZED (SELECT d.id FROM mine JOIN deliveries d ON d.message_id = mine.id),
           profiled AS MATERIALIZED (${PROFILED}),
           affected AS MATERIALIZED (SELECT source_id FROM mine UNION SELECT source_id FROM profiled)
         SELECT
           (SELECT count(*) FROM mine) AS messages,
           (SELECT json_group_array(source_id) FROM (SELECT source_id FROM affected ORDER BY source_id)) AS sourceIds,
           (SELECT count(*) FROM profiled) AS profiles,
           (SELECT count(*) FROM sent) AS deliveries,
           (SELECT count(*) FROM sent JOIN attempts a ON a.delivery_id = sent.id)
             + (SELECT count(*) FROM sent JOIN forward_attempts fa ON fa.delivery_id = sent.id) AS attempts,
           (SELECT count(*) FROM audience_members m JOIN audiences a ON a.id = m.audience_id
             WHERE m.user_id = ? AND a.source_id IN (SELECT source_id FROM affected)) AS audienceMemberships`,
    });
  }

  /** The sources holding the user's messages or a profile of them, ascending: those a deletion request concerns. */
  sourcesOfUser(userId: string): number[] {
    return (this.#sql.sourcesOfUser.all(userId, userId) as { id: number }[]).map((row) => row.id);
  }

  /**
   * The destinations an audience chose (its own list, connected to its source or not) that it sent this
   * user's membership to — a member now, or named in a sync's record — which a deletion request notifies
   * beside the sources' own destinations.
   */
  audienceDestinationsOfUser(userId: string): number[] {
    return (this.#sql.audienceDestinations.all(userId, userId) as { id: number }[]).map((row) => row.id);
  }

  /** What purging this user would remove now. */
  purgeCounts(userId: string): PurgeCounts {
    const row = this.#sql.purgeCounts.get(userId, userId, userId) as unknown as Omit<PurgeCounts, 'sourceIds'> & { sourceIds: string };
    return { ...row, sourceIds: JSON.parse(row.sourceIds) as number[] };
  }

  /** The most recent requests, newest first. */
  recent(limit: number): StoredDeletionRequest[] {
    return (this.#sql.recent.all(limit) as unknown as Row[]).map((row) => ({
      id: row.id,
      userId: row.userId,
      requestedAt: row.requestedAt,
      purge: row.purge === 1,
      sourceIds: JSON.parse(row.sourceIds) as number[],
      purgedMessages: row.purgedMessages,
    }));
  }
}
