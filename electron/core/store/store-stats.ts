// What /stats and sluice/testing's counts give: messages by status and by type, deliveries by status —
// without reading every row: event_counts holds the accepted messages of clients by type (migration
// 10), partial indexes the rest (migration 19: refused, duplicate, made by Sluice; skipped and
// cancelled deliveries; open and failed ones since migration 6), and what is left of each table's
// count is accepted, or delivered. Each read names its index (INDEXED BY): a plan that would scan the
// table fails here instead of answering slowly.
import type { DatabaseSync } from 'node:sqlite';
import { readSnapshot } from './connection.ts';

export interface StoreStats {
  messages: Record<string, number>;
  /**
   * By type as a test sees it: the row's, or for a refused message without one what its text says
   * (String() of its `type`: "constructor", "undefined"…), given as own properties, never inherited.
   */
  types: Record<string, number>;
  deliveries: Record<string, number>;
}

/** The type a test's message shows when the row has none: String() of the received `type`. */
const RECEIVED_TYPE = `CASE WHEN json_valid(raw) AND json_type(raw) = 'object' THEN CASE json_type(raw, '$.type')
    WHEN 'text' THEN json_extract(raw, '$.type') WHEN 'integer' THEN CAST(json_extract(raw, '$.type') AS TEXT)
    WHEN 'real' THEN CAST(json_extract(raw, '$.type') AS TEXT) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
    WHEN 'null' THEN 'null' WHEN 'object' THEN '[object Object]' WHEN 'array' THEN raw -> '$.type' ELSE 'undefined' END ELSE 'undefined' END`;

type Counted = { key: string; n: number }[];

export function storeStats(db: DatabaseSync): StoreStats {
  const all = (sql: string) => db.prepare(sql).all() as Counted;
  const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return readSnapshot(db, () => {
    const types = new Map<string, number>();
    const add = (type: string, n: number) => types.set(type, (types.get(type) ?? 0) + n);
    const messages: Record<string, number> = { accepted: 0, rejected: 0, duplicate: 0 };
    // Refused and duplicate messages, of any origin.
    for (const { key, n } of all(`SELECT status || char(10) || coalesce(type, ${RECEIVED_TYPE}) AS key, count(*) AS n
        FROM messages INDEXED BY messages_unaccepted WHERE status <> 'accepted' GROUP BY key`)) {
      const at = key.indexOf('\n');
      messages[key.slice(0, at)] = (messages[key.slice(0, at)] ?? 0) + n;
      add(key.slice(at + 1), n);
    }
    // Accepted messages Sluice made, then those of clients.
    for (const { key, n } of all(`SELECT type AS key, count(*) AS n FROM messages INDEXED BY messages_made
        WHERE origin <> 'ingest' AND status = 'accepted' GROUP BY type`)) add(key, n);
    for (const { key, n } of all("SELECT type AS key, sum(n) AS n FROM event_counts WHERE plan = '' GROUP BY type")) add(key, n);
    messages.accepted = one('SELECT count(*) AS n FROM messages') - messages.rejected! - messages.duplicate!;

    const deliveries: Record<string, number> = {};
    const counted = [
      ...all(`SELECT status AS key, count(*) AS n FROM deliveries INDEXED BY deliveries_destination_due WHERE status IN ('pending', 'retrying') GROUP BY status`),
      ...all(`SELECT status AS key, count(*) AS n FROM deliveries INDEXED BY deliveries_not_sent WHERE status IN ('skipped', 'cancelled') GROUP BY status`),
      { key: 'failed', n: one("SELECT count(*) AS n FROM deliveries INDEXED BY deliveries_failed WHERE status = 'failed'") },
    ];
    let rest = one('SELECT count(*) AS n FROM deliveries');
    for (const { key, n } of counted) if (n > 0) (deliveries[key] = n, rest -= n);
    if (rest > 0) deliveries.delivered = rest;
    return { messages, types: Object.fromEntries(types), deliveries };
  });
}
