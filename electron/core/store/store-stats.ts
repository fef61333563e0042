// What /stats and sluice/testing's counts give: messages by status and by type, deliveries by status.
// Each reads every row of its table (no index holds these counts), so the core asks the counting
// thread for them once the store is large (queries/store-reader.ts).
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

export function storeStats(db: DatabaseSync): StoreStats {
  return readSnapshot(db, () => {
    const messages: Record<string, number> = { accepted: 0, rejected: 0, duplicate: 0 };
    for (const row of db.prepare('SELECT status, count(*) AS n FROM messages GROUP BY status').all() as { status: string; n: number }[]) messages[row.status] = row.n;
    const types = new Map<string, number>();
    const typed = db.prepare(`SELECT coalesce(type, ${RECEIVED_TYPE}) AS type, count(*) AS n FROM messages GROUP BY 1`).all() as { type: string; n: number }[];
    for (const row of typed) types.set(row.type, (types.get(row.type) ?? 0) + row.n);
    const deliveries: Record<string, number> = {};
    for (const row of db.prepare('SELECT status, count(*) AS n FROM deliveries GROUP BY status').all() as { status: string; n: number }[]) deliveries[row.status] = row.n;
    return { messages, types: Object.fromEntries(types), deliveries };
  });
}
