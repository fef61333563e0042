// The delivery overview's counts (shared/channels/overview.ts): per destination, its automatic
// deliveries made from `from` to `to`, by state and skip reason. Each count is a range of the
// deliveries_funnel index (migration 22: destination_id, trigger, status, created_at, skip_reason),
// which covers it: no delivery row is read, and a state's range holds only its own entries. Run in
// the counting thread (count-worker.ts).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { skipKindOf } from '../../../shared/message-query.ts';
import { OVERVIEW_REASONS, type DestinationFunnel } from '../../../shared/channels/overview.ts';

const STATES = ['pending', 'retrying', 'delivered', 'failed', 'cancelled'] as const;

const statements = new WeakMap<DatabaseSync, { count: StatementSync; reasons: StatementSync; destinations: StatementSync }>();

function prepared(db: DatabaseSync) {
  let s = statements.get(db);
  if (!s) {
    s = {
      count: db.prepare(
        "SELECT count(*) AS n FROM deliveries INDEXED BY deliveries_funnel WHERE destination_id = ? AND trigger = 'automatic' AND status = ? AND created_at BETWEEN ? AND ?",
      ),
      reasons: db.prepare(
        `SELECT skip_reason AS reason, count(*) AS n FROM deliveries INDEXED BY deliveries_funnel
         WHERE destination_id = ? AND trigger = 'automatic' AND status = 'skipped' AND created_at BETWEEN ? AND ? GROUP BY skip_reason`,
      ),
      destinations: db.prepare('SELECT id, name, enabled FROM destinations ORDER BY name COLLATE NOCASE'),
    };
    statements.set(db, s);
  }
  return s;
}

/** Every destination's funnel over the deliveries made from `from` (ms; null: the first) to `to`, both included. */
export function deliveryFunnels(db: DatabaseSync, from: number | null, to: number): DestinationFunnel[] {
  const s = prepared(db);
  const since = from ?? Number.MIN_SAFE_INTEGER;
  const destinations = s.destinations.all() as { id: number; name: string; enabled: number }[];
  return destinations.map(({ id, name, enabled }) => {
    const n = (state: string) => Number((s.count.get(id, state, since, to) as { n: number }).n);
    const [pending, retrying, delivered, failed, cancelled] = STATES.map(n) as [number, number, number, number, number];
    const skipped = { plan: 0, filter: 0, transform: 0, integrations: 0, other: 0, total: 0 };
    const reasons: DestinationFunnel['reasons'] = [];
    for (const row of s.reasons.all(id, since, to) as { reason: string | null; n: number }[]) {
      const kind = skipKindOf(row.reason);
      const count = Number(row.n);
      skipped[kind] += count;
      skipped.total += count;
      reasons.push({ reason: row.reason ?? 'no reason recorded', kind, count });
    }
    reasons.sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
    const attempted = delivered + retrying + failed;
    return {
      id,
      name,
      enabled: enabled === 1,
      received: pending + cancelled + attempted + skipped.total,
      skipped,
      reasons: reasons.slice(0, OVERVIEW_REASONS),
      pending,
      cancelled,
      attempted,
      delivered,
      retrying,
      failed,
    };
  });
}
