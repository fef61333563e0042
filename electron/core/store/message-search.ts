// The stream's search, reading side: a query (shared/message-query.ts, as SQL in
// store/message-query-sql.ts) answered through an index where the index covers the messages, and by
// testing the messages where it does not yet.
//
// The indexes cover the ids [lo, hi] (store/search-index.ts fills them in the writer thread). A search
// runs over three parts of the id range, in the order asked — newest first: above hi (arrived since
// the last slice was indexed: a few), [lo, hi] through the index, below lo (only while an older store
// is being indexed) — and stops once it has enough rows. The parts are read in one snapshot, so a
// message indexed meanwhile is neither missed nor listed twice.
import type { DatabaseSync } from 'node:sqlite';
import type { CompiledQuery } from './message-query-sql.ts';

/** A part of a search: its WHERE terms; `match` when it is read through an index. */
export interface SearchPart {
  where: string[];
  params: (string | number)[];
  /** The index and its FTS5 query: the part joins it as `s` and orders by `s.rowid`. */
  match: { table: 'messages_text' | 'messages_search'; query: string } | null;
}

/** The query's tests on every row, without an index (a short time range, a page of given ids). */
export function queryPart(query: CompiledQuery): SearchPart {
  return { where: query.where, params: query.params, match: null };
}

/**
 * One part's SELECT (`select` over `messages m`, the caller's terms added): through the index when the
 * part has a match, in the index's rowid order (m.id's); else over `from` (which may name an index).
 * Its last parameter, the LIMIT, is the caller's.
 */
export function partQuery(
  part: SearchPart | null,
  select: string,
  terms: { where: string[]; params: (string | number)[] },
  order: 'DESC' | 'ASC',
  from = 'messages m',
): { sql: string; values: (string | number)[] } {
  const where = [...(part?.where ?? []), ...terms.where];
  const values = [...(part?.params ?? []), ...terms.params];
  if (part?.match) {
    const { table, query } = part.match;
    return {
      sql: `SELECT ${select} FROM ${table} s CROSS JOIN messages m ON m.id = s.rowid
        WHERE ${table} MATCH ? AND ${where.join(' AND ')} ORDER BY s.rowid ${order} LIMIT ?`,
      values: [query, ...values],
    };
  }
  return { sql: `SELECT ${select} FROM ${from} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY m.id ${order} LIMIT ?`, values };
}

/** Where a page starts: ids below `below` (newest first) or above `above` (oldest first). */
export interface PageBounds {
  below?: number | undefined;
  above?: number | undefined;
}

/**
 * Reads the messages that match `query` part by part until `limit` rows are found, all in one read
 * snapshot: `read` gets a part and how many rows are still wanted, and returns them in `order`.
 */
export function searchRows<T>(
  db: DatabaseSync,
  query: CompiledQuery,
  order: 'desc' | 'asc',
  bounds: PageBounds,
  limit: number,
  read: (part: SearchPart, wanted: number) => T[],
): T[] {
  const { index } = query;
  if (index === null) return read(queryPart(query), limit);
  const rows: T[] = [];
  db.exec('SAVEPOINT search');
  try {
    const { lo, hi } = db.prepare('SELECT lo, hi FROM search_index WHERE id = 1').get() as { lo: number; hi: number };
    // The index's part gets the page's bound itself: it walks the index, not the messages.
    const from = Math.max(lo, (bounds.above ?? 0) + 1);
    const to = Math.min(hi, (bounds.below ?? Number.MAX_SAFE_INTEGER) - 1);
    const parts: SearchPart[] = [
      { where: ['m.id > ?', ...query.where], params: [hi, ...query.params], match: null },
      { where: ['s.rowid BETWEEN ? AND ?', ...index.where], params: [from, to, ...index.params], match: { table: index.table, query: index.match } },
      { where: ['m.id < ?', ...query.where], params: [lo, ...query.params], match: null },
    ];
    if (order === 'asc') parts.reverse();
    for (const part of parts) {
      if (rows.length >= limit) break;
      if (part.match !== null && from > to) continue;
      rows.push(...read(part, limit - rows.length));
    }
  } catch (error) {
    // A failed read (a full disk, an I/O error) may have ended the transaction already: report the
    // read's error, not the savepoint's.
    try {
      if (db.isTransaction) db.exec('ROLLBACK TO search; RELEASE search');
    } catch {}
    throw error;
  }
  db.exec('RELEASE search');
  return rows;
}
