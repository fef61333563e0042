import type { DatabaseSync } from 'node:sqlite';
import type { AttemptRecord, DeliveryResult, SharedRequest } from './delivery-types.ts';
import { issueJoiner } from './issue-writes.ts';

/** Records groups of rounds' results in the caller's transaction. */
export interface DeliveryResultRecorder {
  /** A group of rounds' results: each delivery's new state and its attempts. */
  record(results: readonly DeliveryResult[], now: number): void;
  /**
   * Forgets the header sets it knows the ids of: call it when the writes it made are rolled back (a set
   * stored in them is gone, and its id may be given to another set).
   */
  forget(): void;
}

/** What a request that carried several deliveries meant for each of them (the recorder's grouping). */
interface Shares {
  /** Every delivery it carried. */
  ids: number[];
  /** Those whose attempt has the request's error, by outcome and next retry. */
  alike: Map<string, { outcome: AttemptRecord['outcome']; retryAt: number | null; ids: number[] }>;
  /** Those the receiver refused alone: their own error. */
  own: { deliveryId: number; attempt: AttemptRecord }[];
}

/**
 * Records a group of rounds' results: each delivery's new state and its attempts — a row per attempt
 * of its own (attempts), and for a request that carried several deliveries (a forwarded batch: an
 * attempt's `carriedBy`) one record of the request (forward_requests) with a reference per delivery
 * (forward_attempts; migration 17). A round's results are in one group (the engine adds them
 * together), so a request is recorded once. Used by the store's writer (writer-worker.ts), and by the
 * delivery and forward benchmarks' "raw loop + recording" references, so that they record exactly the
 * rows Sluice does, the same way.
 *
 * What an attempt of its own writes is what changes at each attempt — its timing, outcome and answer.
 * Its request headers are written by reference when it has a header set (AttemptRecord.headerSet; a
 * webhook's): the set is stored once (header_sets, migration 18) and the attempt keeps its id and its own
 * values of the set's blanks; the body is its delivery's (deliveries.body, or an edited replay's own).
 */
export function deliveryResultRecorder(db: DatabaseSync): DeliveryResultRecorder {
  // A round that was already under way when its delivery was cancelled is recorded (its attempts
  // happened) but does not undo the cancellation. A round that sent nothing keeps the stored body.
  // One under way when its message was purged stores no copy of it again — neither the body nor the
  // receiver's answer (which may echo it): the purge left the delivery with no message and no
  // override (test events, delete notifications and their replays keep theirs: they carry their body).
  //
  // Parameters are anonymous (`?`), a value repeated where the SQL uses it twice: Node 22.19 and
  // 24.0–24.6 cannot bind numbered ones (`?1`) by position ("column index out of range").
  const PURGED = 'message_id IS NULL AND body_override IS NULL';
  // A body sent is stored whole, or by reference to its message (its shape: store/delivery-bodies.ts);
  // each clears the other. A round that sent nothing (both NULL) keeps what was stored.
  const BODY = `body = CASE WHEN ${PURGED} THEN NULL WHEN ? IS NOT NULL THEN NULL ELSE coalesce(?, body) END,
       body_shape = CASE WHEN ${PURGED} THEN NULL WHEN ? IS NOT NULL THEN ? WHEN ? IS NOT NULL THEN NULL ELSE body_shape END`;
  const bodyParams = (body: string | null, shape: string | null) => [shape, body, shape, shape, body] as const;
  const updateDelivery = db.prepare(
    `UPDATE deliveries SET status = ?, attempt_count = ?, first_attempt_at = ?, next_attempt_at = ?, deadline_at = ?,
       last_error = ?, ${BODY},
       signature = CASE WHEN ? IS NULL THEN signature ELSE ? END, updated_at = ?,
       skip_reason = ?, shaping = ?, transform_run = ?
     WHERE id = ? AND status != 'cancelled'`,
  );
  // The answer is read from the delivery's row the update just touched (a primary-key probe in a page
  // already in memory), not returned to JavaScript: this runs once per attempt.
  const insertAttempt = db.prepare(
    `INSERT INTO attempts (delivery_id, url, started_at, duration_ms, request_headers, header_set, response_status, response_headers,
       response_body, error_code, error_message, outcome, retry_at, transform_run)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT CASE WHEN ${PURGED} THEN NULL ELSE ? END FROM deliveries WHERE id = ?), ?, ?, ?, ?, ?)`,
  );
  // A cancelled delivery's round still records what it sent: its attempts' X-Signature is the delivery's.
  const keepSent = db.prepare(
    `UPDATE deliveries SET ${BODY}, signature = ?, updated_at = ?
     WHERE id = ? AND status = 'cancelled'`,
  );
  const storeSet = db.prepare(
    'INSERT INTO header_sets (headers) VALUES (?) ON CONFLICT (headers) DO UPDATE SET headers = excluded.headers RETURNING id',
  );
  // A few sets serve every attempt (one per webhook, loop chain and signing): their ids are kept here,
  // so an attempt costs no lookup.
  let setIds = new Map<string, number>();
  const setId = (headers: string | null | undefined): number | null => {
    if (headers === null || headers === undefined) return null;
    let id = setIds.get(headers);
    if (id === undefined) {
      id = Number((storeSet.get(headers) as { id: number }).id);
      if (setIds.size >= 1000) setIds = new Map();
      setIds.set(headers, id);
    }
    return id;
  };
  // A shared request's answer is left out when any delivery it carried lost its message meanwhile.
  const insertRequest = db.prepare(
    `INSERT INTO forward_requests (url, started_at, duration_ms, request_headers, response_status, response_headers,
       response_body, error_code, error_message)
     VALUES (?, ?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM deliveries WHERE id IN (SELECT value FROM json_each(?)) AND ${PURGED})
       THEN NULL ELSE ? END, ?, ?)`,
  );
  // Each delivery's share: its outcome and next retry, and its own error only when it differs from the
  // request's (NULL, NULL: the request's). The shares that say the same (all of a batch, mostly) are
  // one statement per request, not one per message.
  const insertShares = db.prepare(
    'INSERT INTO forward_attempts (delivery_id, request_id, outcome, retry_at) SELECT value, ?, ?, ? FROM json_each(?)',
  );
  const insertOwnShare = db.prepare(
    'INSERT INTO forward_attempts (delivery_id, request_id, outcome, retry_at, error_code, error_message, transform_run) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  // A round that left its delivery retrying or failed puts it in its Issues group (nothing for one delivered).
  const joinIssue = issueJoiner(db);
  const record = (results: readonly DeliveryResult[], now: number): void => {
    /** The requests that carried deliveries of this group, each with its shares. */
    const requests = new Map<SharedRequest, Shares>();
    for (const result of results) {
      const shape = result.bodyShape ?? null;
      const body = bodyParams(result.body, shape);
      const updated = updateDelivery.run(result.status, result.attemptCount, result.firstAttemptAt, result.nextAttemptAt, result.deadlineAt,
        result.lastError, ...body, result.body ?? shape, result.signature, now, result.skipReason ?? null, result.shaping ?? null,
        result.transformRun ?? null, result.deliveryId).changes;
      if (updated === 0 && result.signature !== null) keepSent.run(...body, result.signature, now, result.deliveryId);
      else if (updated > 0 && (result.status === 'retrying' || result.status === 'failed')) joinIssue(result, now);
      for (const a of result.attempts) {
        const request = a.carriedBy;
        if (!request) {
          insertAttempt.run(result.deliveryId, a.url, a.startedAt, a.durationMs, a.requestHeaders, setId(a.headerSet), a.responseStatus,
            a.responseHeaders, a.responseBody, result.deliveryId, a.errorCode, a.errorMessage, a.outcome, a.retryAt, a.transformRun ?? null);
          continue;
        }
        let shares = requests.get(request);
        if (!shares) requests.set(request, (shares = { ids: [], alike: new Map(), own: [] }));
        shares.ids.push(result.deliveryId);
        // Its own error, or its own transform run (issue 28), makes a share of its own.
        if (a.errorCode !== request.errorCode || a.errorMessage !== request.errorMessage || a.transformRun) shares.own.push({ deliveryId: result.deliveryId, attempt: a });
        else {
          const key = `${a.outcome} ${a.retryAt}`;
          const alike = shares.alike.get(key);
          if (alike) alike.ids.push(result.deliveryId);
          else shares.alike.set(key, { outcome: a.outcome, retryAt: a.retryAt, ids: [result.deliveryId] });
        }
      }
    }
    for (const [request, { ids, alike, own }] of requests) {
      const requestId = Number(insertRequest.run(request.url, request.startedAt, request.durationMs, request.requestHeaders,
        request.responseStatus, request.responseHeaders, JSON.stringify(ids), request.responseBody,
        request.errorCode, request.errorMessage).lastInsertRowid);
      for (const share of alike.values()) insertShares.run(requestId, share.outcome, share.retryAt, JSON.stringify(share.ids));
      for (const { deliveryId, attempt } of own) {
        // NULL, NULL: the request's error (a share of its own only for its transform run).
        const same = attempt.errorCode === request.errorCode && attempt.errorMessage === request.errorMessage;
        insertOwnShare.run(deliveryId, requestId, attempt.outcome, attempt.retryAt, same ? null : attempt.errorCode, same ? null : attempt.errorMessage,
          attempt.transformRun ?? null);
      }
    }
  };
  return {
    record,
    forget() {
      setIds = new Map();
    },
  };
}
