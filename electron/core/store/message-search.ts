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
import { readSnapshot } from './connection.ts';
import type { CompiledQuery } from './message-query-sql.ts';
import { writtenLimit } from './prepared.ts';
import { indexedRange } from './search-index.ts';

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
 * One part's FROM and WHERE (over `messages m`, the caller's terms added): through the index when the
 * part has a match (`order` is then the index's rowid, m.id's); else over `from` (which may name an index).
 */
export function partFrom(
  part: SearchPart | null,
  terms: { where: string[]; params: (string | number)[] },
  from = 'messages m',
): { sql: string; values: (string | number)[]; order: string } {
  const where = [...(part?.where ?? []), ...terms.where];
  const values = [...(part?.params ?? []), ...terms.params];
  if (part?.match) {
    const { table, query } = part.match;
    return { sql: `FROM ${table} s CROSS JOIN messages m ON m.id = s.rowid WHERE ${[`${table} MATCH ?`, ...where].join(' AND ')}`, values: [query, ...values], order: 's.rowid' };
  }
  return { sql: `FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, values, order: 'm.id' };
}

/** One part's SELECT of `select`, in `order`, at most `limit` rows (written in: prepared.ts writtenLimit). */
export function partQuery(
  part: SearchPart | null,
  select: string,
  terms: { where: string[]; params: (string | number)[] },
  order: 'DESC' | 'ASC',
  limit: number,
  from = 'messages m',
): { sql: string; values: (string | number)[] } {
  const found = partFrom(part, terms, from);
  return { sql: `SELECT ${select} ${found.sql} ORDER BY ${found.order} ${order} ${writtenLimit(limit)}`, values: found.values };
}

/** Where a page starts: ids below `below` (newest first) or above `above` (oldest first). */
interface PageBounds {
  below?: number | undefined;
  above?: number | undefined;
}

/**
 * The parts of the id range a search reads, newest first: above the indexed range, through the index
 * (left out when the page's bounds leave nothing of it), below it. One part when the query has no
 * index to read. Read them in one snapshot (readSnapshot).
 */
export function searchParts(db: DatabaseSync, query: CompiledQuery, bounds: PageBounds = {}): SearchPart[] {
  const { index } = query;
  if (index === null) return [queryPart(query)];
  const { lo, hi } = indexedRange(db);
  // The index's part gets the page's bound itself: it walks the index, not the messages.
  const from = Math.max(lo, (bounds.above ?? 0) + 1);
  const to = Math.min(hi, (bounds.below ?? Number.MAX_SAFE_INTEGER) - 1);
  return [
    { where: ['m.id > ?', ...query.where], params: [hi, ...query.params], match: null },
    ...(from <= to
      ? [{ where: ['s.rowid BETWEEN ? AND ?', ...index.where], params: [from, to, ...index.params], match: { table: index.table, query: index.match } }]
      : []),
    { where: ['m.id < ?', ...query.where], params: [lo, ...query.params], match: null },
  ];
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
  if (query.index === null) return read(queryPart(query), limit);
  return readSnapshot(db, () => {
    const parts = searchParts(db, query, bounds);
    if (order === 'asc') parts.reverse();
    const rows: T[] = [];
    for (const part of parts) {
      if (rows.length >= limit) break;
      rows.push(...read(part, limit - rows.length));
    }
    return rows;
  });
}

/**
 * The query as one condition on `messages m`, for a read in another order than the messages' ids (the
 * deliveries of the messages that match, in theirs): the ids the index matches where it covers the
 * messages (read once, for the whole statement), each clause tested on the row elsewhere. Read it and
 * the rows in one snapshot (readSnapshot), as searchParts.
 */
export function searchCondition(db: DatabaseSync, query: CompiledQuery): { where: string[]; params: (string | number)[] } {
  if (query.index === null) return { where: query.where, params: query.params };
  const { lo, hi } = indexedRange(db);
  const { table, match, where, params } = query.index;
  const indexed = [`m.id IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid BETWEEN ? AND ?)`, ...where];
  // A query read through another's index (withIndex) may have no tests of its own.
  const elsewhere = query.where.length ? query.where.join(' AND ') : '1';
  return {
    where: [`((m.id BETWEEN ? AND ? AND ${indexed.join(' AND ')}) OR ((m.id < ? OR m.id > ?) AND ${elsewhere}))`],
    params: [lo, hi, match, lo, hi, ...params, lo, hi, ...query.params],
  };
}
