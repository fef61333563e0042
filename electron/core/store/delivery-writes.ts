import type { DatabaseSync } from 'node:sqlite';
import type { NewDelivery } from './delivery-types.ts';
import { issueLeaver } from './issue-writes.ts';
import { LATEST_IN_LANE_SQL } from './shown-delivery.ts';

/**
 * Deliveries made or moved on request, in the caller's transaction: replays, delete notifications
 * and test events created, retry now, cancel. The store's writer runs them (writer-worker.ts); a
 * round's result is recorded by delivery-results.ts.
 */
export interface DeliveryWrites {
  /** Creates the deliveries whose message (if any) still exists; the others are left out and listed. */
  create(deliveries: NewDelivery[], now: number, deletionRequestId: number | null): { ids: number[]; goneMessageIds: number[] };
  /**
   * Moves pending or retrying deliveries' next attempt to now; how many moved. With `reopenFailed`
   * (a bulk retry of Issues), failed ones of a destination not deleted become retrying, due now: one more
   * round, which fails them again if it fails past their 4-hour window or round cap (retry-schedule.ts).
   */
  retryNow(deliveryIds: number[], now: number, reopenFailed?: boolean): number;
  /** Cancels pending or retrying deliveries; how many were. */
  cancel(deliveryIds: number[], now: number): number;
}

export function deliveryWrites(db: DatabaseSync): DeliveryWrites {
  // A delivery of a message only while the message exists: a purge committed between planning a
  // replay and writing it (often in the same group) deleted it, and its deliveries are not created.
  // Message ids can be reused once the newest rows are purged (the table has no AUTOINCREMENT): a
  // replay also needs the delivery it repeats to still point at the message — a purge sets that
  // link to NULL — and the message to still carry the messageId it was planned with, or a new
  // message that took the id would be sent in the purged one's place.
  // Parameters are anonymous, values repeated where used twice (delivery-results.ts says why).
  const insertRequested = db.prepare(
    `INSERT INTO deliveries (message_id, destination_id, trigger, replay_of, status, target_url, body_override,
       deletion_request_id, next_attempt_at, created_at, updated_at, transform_body)
     SELECT ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?
     WHERE ? IS NULL OR (EXISTS (SELECT 1 FROM messages WHERE id = ? AND (? IS NULL OR message_id IS ?))
       AND (? IS NULL OR EXISTS (SELECT 1 FROM deliveries repeated WHERE repeated.id = ? AND repeated.message_id = ?)))`,
  );
  const retryNow = db.prepare(
    `UPDATE deliveries SET next_attempt_at = ?, updated_at = ? WHERE id = ? AND status IN ('pending', 'retrying')`,
  );
  // Only a failure that is still the message's last word for the destination: one a later replay to its
  // webhooks superseded (delivered, or failed in its own right) is not sent again (before 2026-12-01 a bulk
  // retry of an Issues group reopened both, and the receiver got the message twice).
  const reopen = db.prepare(
    `UPDATE deliveries AS d SET status = 'retrying', next_attempt_at = ?, updated_at = ? WHERE d.id = ? AND d.status = 'failed'
       AND d.destination_id IN (SELECT id FROM destinations WHERE deleted_at IS NULL)
       AND (d.message_id IS NULL OR ${LATEST_IN_LANE_SQL})`,
  );
  const cancel = db.prepare(
    `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, last_error = 'cancelled', updated_at = ?
     WHERE id = ? AND status IN ('pending', 'retrying')`,
  );
  const leaveIssues = issueLeaver(db);
  return {
    create(deliveries, now, deletionRequestId) {
      const ids: number[] = [];
      const gone = new Set<number>();
      for (const d of deliveries) {
        const messageKey = d.messageKey ?? null;
        const result = insertRequested.run(d.messageId, d.destinationId, d.trigger, d.replayOf, d.targetUrl,
          d.bodyOverride, d.deletionRequestId ?? deletionRequestId, d.due, now, now, d.transformBody ? 1 : null,
          d.messageId, d.messageId, messageKey, messageKey, d.replayOf, d.replayOf, d.messageId);
        if (result.changes === 1) {
          const id = Number(result.lastInsertRowid);
          ids.push(id);
          if (d.trigger === 'replay') leaveIssues(id, now); // the failure it repeats is now the replay's to show
        } else gone.add(d.messageId!);
      }
      return { ids, goneMessageIds: [...gone] };
    },
    retryNow: (deliveryIds, now, reopenFailed = false) =>
      deliveryIds.reduce((n, id) => n + Number(retryNow.run(now, now, id).changes || (reopenFailed ? reopen.run(now, now, id).changes : 0)), 0),
    cancel: (deliveryIds, now) => deliveryIds.reduce((n, id) => n + Number(cancel.run(now, id).changes), 0),
  };
}
