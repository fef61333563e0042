/**
 * The row's delivery state in SQL: the same rule as shared/shown-delivery.ts (the latest delivery per
 * destination to its own webhooks; replays to a typed URL only when there is nothing else; then the
 * most telling state), so a filter on "failed" selects exactly the rows the stream shows as failed.
 * Each probe reads one message's deliveries through the `deliveries_message` index, and the
 * "superseded?" check is a range seek on it (message_id = ? AND rowid > ?): no scan of deliveries.
 */
import { STATUS_WEIGHT } from '../../../shared/shown-delivery.ts';
import { partialIndexTerm } from './prepared.ts';

export { STATUS_WEIGHT };

const WEIGHT_CASE = `CASE d.status ${Object.entries(STATUS_WEIGHT)
  .map(([status, w]) => `WHEN '${status}' THEN ${w}`)
  .join(' ')} ELSE 0 END`;
/**
 * Weight 0 is the one status the order leaves out (`in_flight`, which the engine does not store);
 * no delivery at all (max() of nothing) stays NULL.
 */
const FROM_WEIGHT = (key: string) =>
  `CASE ${key} ${Object.entries(STATUS_WEIGHT)
    .map(([status, w]) => `WHEN ${w} THEN '${status}'`)
    .join(' ')} WHEN 0 THEN 'in_flight' END`;

/**
 * True for a delivery `d` that no later delivery of the same kind (to the destination's own
 * webhooks, or to a typed URL) supersedes for its message and destination.
 */
export const LATEST_IN_LANE_SQL = `NOT EXISTS (SELECT 1 FROM deliveries later WHERE later.message_id = d.message_id
    AND later.destination_id = d.destination_id AND later.id > d.id
    AND (later.target_url IS NULL) = (d.target_url IS NULL))`;

/**
 * SQL for the state the row of message `alias`.id shows, or 'none' when it has no delivery. One
 * aggregate rather than ORDER BY … LIMIT 1 (no sorter per message): the key puts deliveries to the
 * destination's webhooks above typed-URL ones, then the state's weight; the status comes back from
 * the weight (one status per weight).
 */
export function shownDeliverySql(alias: string): string {
  const maxKey = `max((d.target_url IS NULL) * 16 + ${WEIGHT_CASE})`;
  return `COALESCE((SELECT ${FROM_WEIGHT(`${maxKey} % 16`)} FROM deliveries d
    WHERE d.message_id = ${alias}.id AND ${LATEST_IN_LANE_SQL}), 'none')`;
}

/** States few deliveries are in: the deliveries' partial indexes (failed; pending and retrying) find them. */
const RARE_STATES: readonly string[] = ['failed', 'pending', 'retrying', 'cancelled', 'skipped'];

/**
 * "The row of message m shows this delivery state" (`none`: no delivery), for the list's Delivery filter
 * and the query language's `status:`. For a state few deliveries are in, only messages with such a
 * delivery can show it: they are found first, then the exact test.
 */
export function shownDeliveryIs(state: string): { sql: string; params: string[] } {
  if (RARE_STATES.includes(state)) {
    const status = partialIndexTerm('d.status', state);
    return { sql: `(m.id IN (SELECT d.message_id FROM deliveries d WHERE ${status.sql}) AND ${shownDeliverySql('m')} = ?)`, params: [...status.params, state] };
  }
  return { sql: `${shownDeliverySql('m')} = ?`, params: [state] };
}
