/**
 * Which delivery a message's row shows when it has several (one per destination, plus replays): the
 * most telling state wins. The contract's list summaries and the store's filter queries use this one
 * order, so a filter on "failed" selects exactly the rows the stream shows as failed.
 */
export const STATUS_WEIGHT: Readonly<Record<string, number>> = { failed: 6, retrying: 5, pending: 4, cancelled: 3, delivered: 2, skipped: 1 };

/** SQL for the state the row of message `alias`.id shows: its most telling delivery's status, or 'none'. */
export function shownDeliverySql(alias: string): string {
  const weight = Object.entries(STATUS_WEIGHT)
    .map(([status, w]) => `WHEN '${status}' THEN ${w}`)
    .join(' ');
  return `COALESCE((SELECT d.status FROM deliveries d WHERE d.message_id = ${alias}.id
    ORDER BY CASE d.status ${weight} ELSE 0 END DESC LIMIT 1), 'none')`;
}
