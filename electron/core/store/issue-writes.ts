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
  // Not a test's delivery, and still failed or retrying (a cancel that came between the round and its record stays).
  const s = preparedOnUse(db, {
    upsert: `INSERT INTO issues (destination_id, url, http_status, error_kind, error, first_seen, last_seen)
     SELECT destination_id, ?, ?, ?, ?, ?, ? FROM deliveries WHERE id = ? AND trigger <> 'test' AND status IN ('retrying', 'failed')
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
