import type { DatabaseSync } from 'node:sqlite';
import type { DeliveryResult } from './delivery-types.ts';

/**
 * Records one round's result: the delivery's new state and one row per attempt. Used by the store's
 * writer (writer-worker.ts), and by the delivery benchmark's "raw loop + recording" reference, so
 * that the reference records exactly the rows Sluice does, the same way.
 */
export function deliveryResultRecorder(db: DatabaseSync): (result: DeliveryResult, now: number) => void {
  // A round that was already under way when its delivery was cancelled is recorded (its attempts
  // happened) but does not undo the cancellation. A round that sent nothing keeps the stored body.
  // One under way when its message was purged stores no copy of it again — neither the body nor the
  // receiver's answer (which may echo it): the purge left the delivery with no message and no
  // override (test events, delete notifications and their replays keep theirs: they carry their body).
  //
  // Parameters are anonymous (`?`), a value repeated where the SQL uses it twice: Node 22.19 and
  // 24.0–24.6 cannot bind numbered ones (`?1`) by position ("column index out of range").
  const PURGED = 'message_id IS NULL AND body_override IS NULL';
  const updateDelivery = db.prepare(
    `UPDATE deliveries SET status = ?, attempt_count = ?, first_attempt_at = ?, next_attempt_at = ?, deadline_at = ?,
       last_error = ?, body = CASE WHEN ${PURGED} THEN NULL ELSE coalesce(?, body) END,
       signature = CASE WHEN ? IS NULL THEN signature ELSE ? END, updated_at = ?
     WHERE id = ? AND status != 'cancelled'`,
  );
  // The answer is read from the delivery's row the update just touched (a primary-key probe in a page
  // already in memory), not returned to JavaScript: this runs once per attempt.
  const insertAttempt = db.prepare(
    `INSERT INTO attempts (delivery_id, url, started_at, duration_ms, request_headers, response_status, response_headers,
       response_body, error_code, error_message, outcome, retry_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT CASE WHEN ${PURGED} THEN NULL ELSE ? END FROM deliveries WHERE id = ?), ?, ?, ?, ?)`,
  );
  return (result, now) => {
    updateDelivery.run(result.status, result.attemptCount, result.firstAttemptAt, result.nextAttemptAt, result.deadlineAt,
      result.lastError, result.body, result.body, result.signature, now, result.deliveryId);
    for (const a of result.attempts) {
      insertAttempt.run(result.deliveryId, a.url, a.startedAt, a.durationMs, a.requestHeaders, a.responseStatus,
        a.responseHeaders, a.responseBody, result.deliveryId, a.errorCode, a.errorMessage, a.outcome, a.retryAt);
    }
  };
}
