import type { DatabaseSync } from 'node:sqlite';

/** A deletion request and the purge it may ask for, in the caller's transaction (the store's writer). */
export interface DeletionWrites {
  /** Records the request; its id. */
  record(userId: string, now: number, purge: boolean, sourceIds: number[]): number;
  /** Purges a user's messages of one source, what deliveries keep of them, and the requests only they used; how many messages. */
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
  const userMessages = db.prepare('SELECT id, request_id, origin FROM messages WHERE user_id = ? AND source_id = ?');
  userMessages.setReturnArrays(true);
  const IDS = 'SELECT value FROM json_each(?)';
  const scrubResponses = db.prepare(`UPDATE attempts SET response_body = NULL WHERE response_body IS NOT NULL
    AND delivery_id IN (SELECT id FROM deliveries WHERE message_id IN (${IDS}))`);
  // A forwarded batch's answer is one record shared by its messages: it goes when any of them is purged.
  const scrubForwardResponses = db.prepare(`UPDATE forward_requests SET response_body = NULL WHERE response_body IS NOT NULL
    AND id IN (SELECT request_id FROM forward_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE message_id IN (${IDS})))`);
  const scrubBodies = db.prepare(`UPDATE deliveries SET body = NULL, body_override = NULL WHERE message_id IN (${IDS})`);
  const deleteMessages = db.prepare(`DELETE FROM messages WHERE id IN (${IDS})`);
  // A request whose messages were all the user's goes with them: its row keeps the batch-level context and
  // the sender's IP. A request's messages are stored together, in one unit (consecutive ids, a client's
  // messages in the order of their requests: store/request-writes.ts), so whether another message still uses
  // it is read beside the purged ones, by id, not by a scan (messages have no index by request): between
  // the first and the last purged message of it, and the nearest client message on either side — past the
  // Violation Generated events between (origin 'plan': a request's own, at most FORWARD_PER_REQUEST), not past
  // anything else: an audience sync's identifies are a unit of their own, never inside a request's, and a
  // sync's run of them may be a million rows long. The requests of the messages Sluice made (an audience's
  // identify of the user: a loop chain, no more) are left to pruning.
  const usedBetween = db.prepare('SELECT 1 FROM messages WHERE id BETWEEN ? AND ? AND request_id = ? LIMIT 1');
  const nearestBefore = db.prepare("SELECT request_id, origin FROM messages WHERE id < ? AND origin <> 'plan' ORDER BY id DESC LIMIT 1");
  const nearestAfter = db.prepare("SELECT request_id, origin FROM messages WHERE id > ? AND origin <> 'plan' ORDER BY id LIMIT 1");
  const deleteRequest = db.prepare('DELETE FROM requests WHERE id = ?');
  /** Whether this row (the nearest message on one side) is a client's message of this request. */
  const clientOf = (row: unknown, requestId: number) => {
    const near = row as { request_id: number | null; origin: string } | undefined;
    return near?.origin === 'ingest' && near.request_id === requestId;
  };
  /** Removes the requests of these (first, last) spans of purged messages that no message left uses. */
  const dropUnused = (spans: Map<number, { first: number; last: number }>) => {
    for (const [requestId, { first, last }] of spans) {
      if (usedBetween.get(first, last, requestId)) continue;
      if (clientOf(nearestBefore.get(first), requestId) || clientOf(nearestAfter.get(last), requestId)) continue;
      deleteRequest.run(requestId);
    }
  };
  const notePurged = db.prepare('UPDATE deletion_requests SET purged_messages = ? WHERE id = ?');
  return {
    record: (userId, now, purge, sourceIds) =>
      Number(insertDeletion.run(userId, now, purge ? 1 : 0, JSON.stringify(sourceIds)).lastInsertRowid),
    purgeUser(userId, sourceId) {
      const rows = userMessages.all(userId, sourceId) as unknown as [id: number, requestId: number | null, origin: string][];
      if (rows.length === 0) return 0;
      const list = JSON.stringify(rows.map(([id]) => id));
      const spans = new Map<number, { first: number; last: number }>();
      for (const [id, requestId, origin] of rows) {
        if (requestId === null || origin !== 'ingest') continue;
        const span = spans.get(requestId);
        if (!span) spans.set(requestId, { first: id, last: id });
        else {
          span.first = Math.min(span.first, id);
          span.last = Math.max(span.last, id);
        }
      }
      scrubResponses.run(list);
      scrubForwardResponses.run(list);
      scrubBodies.run(list);
      const purged = Number(deleteMessages.run(list).changes);
      dropUnused(spans);
      return purged;
    },
    notePurged(purged, deletionRequestId) {
      notePurged.run(purged, deletionRequestId);
    },
  };
}
