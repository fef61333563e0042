import type { DatabaseSync } from 'node:sqlite';
import type { DeliveryResult } from './delivery-types.ts';
import { issueKeyOf } from './issue-kind.ts';
import { preparedOnUse } from './prepared.ts';

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
  // and of a destination not deleted (a round in flight when it was deleted does not open its closed groups again).
  const s = preparedOnUse(db, {
    upsert: `INSERT INTO issues (destination_id, url, http_status, error_kind, error, first_seen, last_seen)
     SELECT destination_id, ?, ?, ?, ?, ?, ? FROM deliveries WHERE id = ? AND trigger <> 'test' AND status IN ('retrying', 'failed')
       AND destination_id IN (SELECT id FROM destinations WHERE deleted_at IS NULL)
     ON CONFLICT (destination_id, url, http_status, error_kind) DO UPDATE SET error = excluded.error, last_seen = max(last_seen, excluded.last_seen)
     RETURNING id`,
    member: 'SELECT issue_id FROM issue_deliveries WHERE delivery_id = ?',
    leave: `UPDATE issues SET failed = failed - (? = 'failed'), retrying = retrying - (? = 'retrying'),
       closed_at = CASE WHEN failed + retrying = 1 THEN ? ELSE closed_at END WHERE id = ?`,
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
