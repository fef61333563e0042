import type { DatabaseSync } from 'node:sqlite';
import type { DeliveryResult } from '../ingest/ingest-protocol.ts';

/**
 * Records one round's result: the delivery's new state and one row per attempt. Used by the store's
 * writer (ingest-worker.ts), and by the delivery benchmark's "raw loop + recording" reference, so
 * that the reference records exactly the rows Sluice does, the same way.
 */
export function deliveryResultRecorder(db: DatabaseSync): (result: DeliveryResult, now: number) => void {
  // A round that was already under way when its delivery was cancelled is recorded (its attempts
  // happened) but does not undo the cancellation. A round that sent nothing keeps the stored body.
  // One under way when its message was purged stores no copy of it again — neither the body nor the
  // receiver's answer (which may echo it): the purge left the delivery with no message and no
  // override (test events, delete notifications and their replays keep theirs: they carry their body).
  const PURGED = 'message_id IS NULL AND body_override IS NULL';
  const updateDelivery = db.prepare(
    `UPDATE deliveries SET status = ?1, attempt_count = ?2, first_attempt_at = ?3, next_attempt_at = ?4, deadline_at = ?5,
       last_error = ?6, body = CASE WHEN ${PURGED} THEN NULL ELSE coalesce(?7, body) END,
       signature = CASE WHEN ?7 IS NULL THEN signature ELSE ?8 END, updated_at = ?9
     WHERE id = ?10 AND status != 'cancelled'`,
  );
  // The answer is read from the delivery's row the update just touched (a primary-key probe in a page
  // already in memory), not returned to JavaScript: this runs once per attempt.
  const insertAttempt = db.prepare(
    `INSERT INTO attempts (delivery_id, url, started_at, duration_ms, request_headers, response_status, response_headers,
       response_body, error_code, error_message, outcome, retry_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, (SELECT CASE WHEN ${PURGED} THEN NULL ELSE ?8 END FROM deliveries WHERE id = ?1), ?9, ?10, ?11, ?12)`,
  );
  return (result, now) => {
    updateDelivery.run(result.status, result.attemptCount, result.firstAttemptAt, result.nextAttemptAt, result.deadlineAt,
      result.lastError, result.body, result.signature, now, result.deliveryId);
    for (const a of result.attempts) {
      insertAttempt.run(result.deliveryId, a.url, a.startedAt, a.durationMs, a.requestHeaders, a.responseStatus,
        a.responseHeaders, a.responseBody, a.errorCode, a.errorMessage, a.outcome, a.retryAt);
    }
  };
}
