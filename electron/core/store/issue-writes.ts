import type { DatabaseSync } from 'node:sqlite';
import type { DeliveryResult } from './delivery-types.ts';
import { issueKeyOf } from './issue-kind.ts';
import { preparedOnUse } from './prepared.ts';
import { LATEST_IN_LANE_SQL } from './shown-delivery.ts';

/** A delivery (of status ?, given twice) leaves group ?, which closes at ? when it was the last. */
const LEAVE_SQL = `UPDATE issues SET failed = failed - (? = 'failed'), retrying = retrying - (? = 'retrying'),
  closed_at = CASE WHEN failed + retrying = 1 THEN ? ELSE closed_at END WHERE id = ?`;

/**
 * Puts a delivery that a round left retrying or failed in its Issues group (migration 24), in the
 * caller's transaction, after the round's result is recorded (delivery-results.ts): the group of its
 * key (issue-kind.ts) is made or reopened, its latest error and last seen (the failed attempt's start,
 * else `now`) set, and the delivery is counted in it — moved from the group it was in when its key
 * changed (a timeout, then a 503), which closes when that was its last. What follows — failed ↔ retrying, leaving (delivered, cancelled, deleted), closing — migration 24's
 * triggers do. Called only for retrying and failed results: a delivery sent at the first try costs nothing here.
 */
export function issueJoiner(db: DatabaseSync): (result: DeliveryResult, now: number) => void {
  // Not a test's delivery, still failed or retrying (a cancel that came between the round and its record stays),
  // of a destination not deleted (a round in flight when it was deleted does not open its closed groups again),
  // and not superseded by a later replay (issueLeaver: a delivery still retrying when it was replayed).
  const s = preparedOnUse(db, {
    upsert: `INSERT INTO issues (destination_id, url, http_status, error_kind, error, first_seen, last_seen)
     SELECT d.destination_id, ?, ?, ?, ?, ?, ? FROM deliveries d WHERE d.id = ? AND d.trigger <> 'test' AND d.status IN ('retrying', 'failed')
       AND d.destination_id IN (SELECT id FROM destinations WHERE deleted_at IS NULL)
       AND (d.message_id IS NULL OR ${LATEST_IN_LANE_SQL})
     ON CONFLICT (destination_id, url, http_status, error_kind) DO UPDATE SET error = excluded.error, last_seen = max(last_seen, excluded.last_seen)
     RETURNING id`,
    member: 'SELECT issue_id FROM issue_deliveries WHERE delivery_id = ?',
    leave: LEAVE_SQL,
    enter: `UPDATE issues SET failed = failed + (? = 'failed'), retrying = retrying + (? = 'retrying'), seen = seen + 1, closed_at = NULL WHERE id = ?`,
    place: 'INSERT INTO issue_deliveries (delivery_id, issue_id) VALUES (?, ?) ON CONFLICT (delivery_id) DO UPDATE SET issue_id = excluded.issue_id',
  });
  return (result, now) => {
    const key = issueKeyOf(result);
    const at = key.at ?? now;
    const row = s.upsert.get(key.url, key.status, key.kind, key.error, at, at, result.deliveryId) as { id: number } | undefined;
    if (!row) return;
    const before = (s.member.get(result.deliveryId) as { issue_id: number } | undefined)?.issue_id;
    if (before === row.id) return; // counted there already (the trigger moved it between failed and retrying)
    if (before !== undefined) s.leave.run(result.status, result.status, at, before);
    s.enter.run(result.status, result.status, row.id);
    s.place.run(result.deliveryId, row.id);
  };
}

/**
 * Takes out of their Issues groups the deliveries that delivery `id` (a replay, just created, in the
 * caller's transaction) supersedes: the earlier ones of its message to its destination in its lane (the
 * destination's own webhooks, or a typed URL: shown-delivery.ts). The message's failure is then the
 * replay's to show — pending, delivered, or failed in a group of its own — and is not counted twice, nor
 * kept open after the replay delivered it. Each group left empty closes; a bulk retry already skips them
 * (delivery-writes.ts). One indexed probe of the message's deliveries; none when they are in no group.
 */
export function issueLeaver(db: DatabaseSync): (id: number, now: number) => void {
  const s = preparedOnUse(db, {
    superseded: `SELECT m.delivery_id AS deliveryId, m.issue_id AS issueId, d.status FROM deliveries later
       JOIN deliveries d ON d.message_id = later.message_id AND d.destination_id = later.destination_id AND d.id < later.id
         AND (d.target_url IS NULL) = (later.target_url IS NULL)
       JOIN issue_deliveries m ON m.delivery_id = d.id
      WHERE later.id = ? AND later.message_id IS NOT NULL`,
    leave: LEAVE_SQL,
    forget: 'DELETE FROM issue_deliveries WHERE delivery_id = ?',
  });
  return (id, now) => {
    for (const row of s.superseded.all(id) as { deliveryId: number; issueId: number; status: string }[]) {
      s.leave.run(row.status, row.status, now, row.issueId);
      s.forget.run(row.deliveryId);
    }
  };
}

/**
 * Closes destination `id`'s groups as it is deleted, in the caller's transaction (the delete mark's:
 * store/destinations-repo.ts): its failed deliveries are nothing the user can act on any more (a retry
 * skips them: delivery-writes.ts), and its retrying ones are being cancelled. They leave issue_deliveries
 * (so the triggers count nothing more for them), and each open group's counts go to 0, closed now.
 * The groups stay listed as closed, under the destination's deleted name.
 */
export function closeIssuesOf(db: DatabaseSync, destinationId: number, now: number): void {
  db.prepare('DELETE FROM issue_deliveries WHERE issue_id IN (SELECT id FROM issues WHERE destination_id = ?)').run(destinationId);
  db.prepare('UPDATE issues SET failed = 0, retrying = 0, closed_at = ? WHERE destination_id = ? AND closed_at IS NULL').run(now, destinationId);
}
