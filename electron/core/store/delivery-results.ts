import type { DatabaseSync } from 'node:sqlite';
import type { DeliveryResult } from '../ingest/ingest-protocol.ts';

/**
 * Records one round's result: the delivery's new state and one row per attempt. Used by the store's
 * writer (ingest-worker.ts), and by the delivery benchmark's "raw loop + recording" reference, so
 * that the reference records exactly the rows Sluice does, the same way.
 */
export function deliveryResultRecorder(db: DatabaseSync): (result: DeliveryResult, now: number) => void {
  // A round that was already under way when its delivery was cancelled is recorded (its attempts
  // happened) but does not undo the cancellation. A round that sent nothing keeps the stored body;
  // one under way when its message was purged does not store the body again (a delivery of a
  // message whose link is NULL; test events and delete notifications never had one).
  const updateDelivery = db.prepare(
    `UPDATE deliveries SET status = ?1, attempt_count = ?2, first_attempt_at = ?3, next_attempt_at = ?4, deadline_at = ?5,
       last_error = ?6, body = CASE WHEN message_id IS NULL AND trigger NOT IN ('test', 'deletion') THEN NULL ELSE coalesce(?7, body) END,
       signature = CASE WHEN ?7 IS NULL THEN signature ELSE ?8 END, updated_at = ?9
     WHERE id = ?10 AND status != 'cancelled'`,
  );
  const insertAttempt = db.prepare(
    `INSERT INTO attempts (delivery_id, url, started_at, duration_ms, request_headers, response_status, response_headers,
       response_body, error_code, error_message, outcome, retry_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
