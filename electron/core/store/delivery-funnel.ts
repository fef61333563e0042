// The delivery overview's counts (shared/channels/overview.ts): per destination, its automatic
// deliveries made from `from` to `to`, by state and skip reason. The whole hours of the window are
// summed from delivery_hours (migration 22: counts per hour, kept by the store's writer and by triggers:
// store/delivery-hours.ts), the partial hours at its ends counted from index ranges (migration 26): the
// deliveries not delivered from deliveries_funnel, the delivered ones as those made (deliveries_made) less
// those. Neither reads a delivery row, and the work grows with the window's hours, not with its
// deliveries. Run in the counting thread (count-worker.ts).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { readSnapshot } from './connection.ts';
import { skipKindOf } from '../../../shared/message-query.ts';
import { OVERVIEW_REASONS, type DestinationFunnel } from '../../../shared/channels/overview.ts';

const HOUR = 3_600_000;
interface Statements {
  hours: StatementSync;
  range: StatementSync;
  made: StatementSync;
  destinations: StatementSync;
}
const statements = new WeakMap<DatabaseSync, Statements>();

function prepared(db: DatabaseSync): Statements {
  let s = statements.get(db);
  if (!s) {
    s = {
      hours: db.prepare(
        `SELECT status, skip_reason AS reason, sum(n) AS n FROM delivery_hours
         WHERE destination_id = ? AND hour BETWEEN ? AND ? GROUP BY status, skip_reason`,
      ),
      // The index's WHERE named as it is (the planner reads a partial index only then); its states listed,
      // so that a range reads each state's entries from the window's start (the index's status comes before
      // created_at: without them, a range would read all of the destination's entries).
      range: db.prepare(
        `SELECT status, coalesce(skip_reason, '') AS reason, count(*) AS n FROM deliveries INDEXED BY deliveries_funnel
         WHERE trigger = 'automatic' AND destination_id = ? AND status <> 'delivered'
           AND status IN ('pending', 'in_flight', 'retrying', 'failed', 'skipped', 'cancelled') AND created_at BETWEEN ? AND ?
         GROUP BY status, skip_reason`,
      ),
      // Every destination's at once: the index is by time first (new entries share its right edge).
      made: db.prepare(
        `SELECT destination_id AS id, count(*) AS n FROM deliveries INDEXED BY deliveries_made
         WHERE trigger = 'automatic' AND created_at BETWEEN ? AND ? GROUP BY destination_id`,
      ),
      destinations: db.prepare('SELECT id, name, enabled FROM destinations ORDER BY name COLLATE NOCASE'),
    };
    statements.set(db, s);
  }
  return s;
}

/**
 * Every destination's funnel over the deliveries made from `from` (ms; null: the first) to `to`, both included.
 * In one read snapshot: a range's delivered deliveries are its made ones less its others, read by two
 * statements, which a commit between them would set apart (more pending than made: fewer than none delivered).
 */
export function deliveryFunnels(db: DatabaseSync, from: number | null, to: number): DestinationFunnel[] {
  return readSnapshot(db, () => funnels(db, from, to));
}

function funnels(db: DatabaseSync, from: number | null, to: number): DestinationFunnel[] {
  const s = prepared(db);
  // Whole hours inside the window: [firstHour, lastHour]; the ms before and after them from the index.
  const firstHour = from === null ? Number.MIN_SAFE_INTEGER : Math.ceil(from / HOUR);
  const lastHour = Math.floor((to + 1) / HOUR) - 1;
  const destinations = s.destinations.all() as { id: number; name: string; enabled: number }[];
  /** The ranges counted from the indexes (the partial hours at the window's ends), each with every destination's deliveries made. */
  const ranges: { from: number; to: number; made: Map<number, number> }[] = [];
  const range = (rangeFrom: number, rangeTo: number) => {
    const made = new Map<number, number>();
    for (const row of s.made.all(rangeFrom, rangeTo) as { id: number; n: number }[]) made.set(Number(row.id), Number(row.n));
    ranges.push({ from: rangeFrom, to: rangeTo, made });
  };
  if (firstHour <= lastHour) {
    if (from !== null && from < firstHour * HOUR) range(from, firstHour * HOUR - 1);
    if ((lastHour + 1) * HOUR <= to) range((lastHour + 1) * HOUR, to);
  } else {
    range(from ?? Number.MIN_SAFE_INTEGER, to);
  }
  return destinations.map(({ id, name, enabled }) => {
    const tally = new Map<string, number>(); // "status\0reason" → count
    const add = (status: string, reason: string, n: number) => {
      const key = `${status}\u0000${reason}`;
      tally.set(key, (tally.get(key) ?? 0) + n);
    };
    if (firstHour <= lastHour) {
      for (const row of s.hours.all(id, firstHour, lastHour) as { status: string; reason: string; n: number }[]) add(row.status, row.reason, Number(row.n));
    }
    for (const { from: rangeFrom, to: rangeTo, made } of ranges) {
      let notDelivered = 0;
      for (const row of s.range.all(id, rangeFrom, rangeTo) as { status: string; reason: string; n: number }[]) {
        add(row.status, row.reason, Number(row.n));
        notDelivered += Number(row.n);
      }
      add('delivered', '', (made.get(id) ?? 0) - notDelivered);
    }
    return funnelOf(id, name, enabled === 1, tally);
  });
}

function funnelOf(id: number, name: string, enabled: boolean, tally: Map<string, number>): DestinationFunnel {
  const states: Record<string, number> = {};
  const skipped = { plan: 0, filter: 0, transform: 0, integrations: 0, other: 0, total: 0 };
  const reasons: DestinationFunnel['reasons'] = [];
  for (const [key, count] of tally) {
    if (count === 0) continue;
    // At the first NUL only: a reason may quote an event name holding one.
    const cut = key.indexOf('\u0000');
    const [status, reason] = [key.slice(0, cut), key.slice(cut + 1)];
    states[status] = (states[status] ?? 0) + count;
    if (status !== 'skipped') continue;
    const kind = skipKindOf(reason || null);
    skipped[kind] += count;
    skipped.total += count;
    reasons.push({ reason: reason || 'no reason recorded', kind, count });
  }
  reasons.sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  const n = (state: string) => states[state] ?? 0;
  const [pending, retrying, delivered, failed, cancelled] = [n('pending'), n('retrying'), n('delivered'), n('failed'), n('cancelled')];
  const attempted = delivered + retrying + failed;
  return {
    id,
    name,
    enabled,
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
}
