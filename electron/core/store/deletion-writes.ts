import type { DatabaseSync } from 'node:sqlite';

/** A deletion request and the purge it may ask for, in the caller's transaction (the store's writer). */
export interface DeletionWrites {
  /** Records the request; its id. */
  record(userId: string, now: number, purge: boolean, sourceIds: number[]): number;
  /** Purges a user's messages of one source, and what deliveries keep of them; how many messages. */
  purgeUser(userId: string, sourceId: number): number;
  /** Notes on the request how many messages its purge removed. */
  notePurged(purged: number, deletionRequestId: number): void;
}

export function deletionWrites(db: DatabaseSync): DeletionWrites {
  const insertDeletion = db.prepare(
    'INSERT INTO deletion_requests (user_id, requested_at, purge, source_ids) VALUES (?, ?, ?, ?)',
  );
  // A purge deletes the user's messages, and the copies of them that deliveries keep: the body sent,
  // an edited replay's body, and the receivers' answers (which may echo what they got). The delivery
  // rows themselves stay, as history of what was sent when, their message link set to NULL. The
  // messages are found once (a scan: no index by user); the rest goes through ids.
  const userMessages = db.prepare('SELECT id FROM messages WHERE user_id = ? AND source_id = ?');
  userMessages.setReturnArrays(true);
  const IDS = 'SELECT value FROM json_each(?)';
  const scrubResponses = db.prepare(`UPDATE attempts SET response_body = NULL WHERE response_body IS NOT NULL
    AND delivery_id IN (SELECT id FROM deliveries WHERE message_id IN (${IDS}))`);
  // A forwarded batch's answer is one record shared by its messages: it goes when any of them is purged.
  const scrubForwardResponses = db.prepare(`UPDATE forward_requests SET response_body = NULL WHERE response_body IS NOT NULL
    AND id IN (SELECT request_id FROM forward_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE message_id IN (${IDS})))`);
  const scrubBodies = db.prepare(`UPDATE deliveries SET body = NULL, body_override = NULL WHERE message_id IN (${IDS})`);
  const deleteMessages = db.prepare(`DELETE FROM messages WHERE id IN (${IDS})`);
  const notePurged = db.prepare('UPDATE deletion_requests SET purged_messages = ? WHERE id = ?');
  return {
    record: (userId, now, purge, sourceIds) =>
      Number(insertDeletion.run(userId, now, purge ? 1 : 0, JSON.stringify(sourceIds)).lastInsertRowid),
    purgeUser(userId, sourceId) {
      const ids = (userMessages.all(userId, sourceId) as unknown as [number][]).map(([id]) => id);
      if (ids.length === 0) return 0;
      const list = JSON.stringify(ids);
      scrubResponses.run(list);
      scrubForwardResponses.run(list);
      scrubBodies.run(list);
      return Number(deleteMessages.run(list).changes);
    },
    notePurged(purged, deletionRequestId) {
      notePurged.run(purged, deletionRequestId);
    },
  };
}
