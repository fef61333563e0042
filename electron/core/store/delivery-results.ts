import type { DatabaseSync } from 'node:sqlite';
import type { DeliveryResult, SharedRequest } from './delivery-types.ts';

/**
 * Records a group of rounds' results: each delivery's new state and its attempts — a row per attempt
 * of its own (attempts), and for a request that carried several deliveries (a forwarded batch: an
 * attempt's `carriedBy`) one record of the request (forward_requests) with a reference per delivery
 * (forward_attempts; migration 17). A round's results are in one group (the engine adds them
 * together), so a request is recorded once. Used by the store's writer (writer-worker.ts), and by the
 * delivery and forward benchmarks' "raw loop + recording" references, so that they record exactly the
 * rows Sluice does, the same way.
 */
export function deliveryResultRecorder(db: DatabaseSync): (results: readonly DeliveryResult[], now: number) => void {
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
  // A shared request's answer is left out when any delivery it carried lost its message meanwhile.
  const insertRequest = db.prepare(
    `INSERT INTO forward_requests (url, started_at, duration_ms, request_headers, response_status, response_headers,
       response_body, error_code, error_message)
     VALUES (?, ?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM deliveries WHERE id IN (SELECT value FROM json_each(?)) AND ${PURGED})
       THEN NULL ELSE ? END, ?, ?)`,
  );
  // Each delivery's share: its own error only when it differs from the request's (NULL, NULL: the request's).
  const insertCarried = db.prepare(
    'INSERT INTO forward_attempts (delivery_id, request_id, outcome, retry_at, error_code, error_message) VALUES (?, ?, ?, ?, ?, ?)',
  );
  return (results, now) => {
    /** The shared requests of this group: the deliveries each carried, then its id once inserted. */
    const carried = new Map<SharedRequest, number[]>();
    for (const result of results) {
      for (const { carriedBy } of result.attempts) {
        if (!carriedBy) continue;
        const ids = carried.get(carriedBy);
        if (ids) ids.push(result.deliveryId);
        else carried.set(carriedBy, [result.deliveryId]);
      }
    }
    const requestIds = new Map<SharedRequest, number>();
    for (const result of results) {
      updateDelivery.run(result.status, result.attemptCount, result.firstAttemptAt, result.nextAttemptAt, result.deadlineAt,
        result.lastError, result.body, result.body, result.signature, now, result.deliveryId);
      for (const a of result.attempts) {
        const request = a.carriedBy;
        if (!request) {
          insertAttempt.run(result.deliveryId, a.url, a.startedAt, a.durationMs, a.requestHeaders, a.responseStatus,
            a.responseHeaders, a.responseBody, result.deliveryId, a.errorCode, a.errorMessage, a.outcome, a.retryAt);
          continue;
        }
        let requestId = requestIds.get(request);
        if (requestId === undefined) {
          requestId = Number(insertRequest.run(request.url, request.startedAt, request.durationMs, request.requestHeaders,
            request.responseStatus, request.responseHeaders, JSON.stringify(carried.get(request)), request.responseBody,
            request.errorCode, request.errorMessage).lastInsertRowid);
          requestIds.set(request, requestId);
        }
        const own = a.errorCode !== request.errorCode || a.errorMessage !== request.errorMessage;
        insertCarried.run(result.deliveryId, requestId, a.outcome, a.retryAt, own ? a.errorCode : null, own ? a.errorMessage : null);
      }
    }
  };
}
