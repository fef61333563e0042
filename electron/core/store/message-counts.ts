// The stream's counts and positions: how many messages there are, how many match the filters, and
// which message is the nth match (newest first) — for "12,481 of 1,034,227", the jump to the oldest
// and to a time. Read part by part like a search (store/message-search.ts): above the indexed range,
// through the index, below it. Counting may read every matching row (a filter on a payload field of
// a million messages takes seconds), so the core runs these in a thread of their own (count-worker.ts).
import type { DatabaseSync } from 'node:sqlite';
import { filterTerms, type ListMessagesQuery } from './messages-repo.ts';
import { compileQuery } from './message-query-sql.ts';
import type { SearchPart } from './message-search.ts';

export type CountQuery = Omit<ListMessagesQuery, 'beforeId' | 'afterId' | 'limit'>;

/** The parts of the id range to read, newest first, each with its terms (the query's and the filters'). */
function parts(db: DatabaseSync, query: CountQuery): { part: SearchPart; where: string[]; params: (string | number)[] }[] {
  const filters = filterTerms(query);
  const search = compileQuery(query.search);
  const all = (extra: string[], extraParams: (string | number)[]) => ({ where: [...extra, ...search.where, ...filters.where], params: [...extraParams, ...search.params, ...filters.params] });
  if (!search.index) return [{ part: { where: [], params: [], match: null }, ...all([], []) }];
  const { lo, hi } = db.prepare('SELECT lo, hi FROM search_index WHERE id = 1').get() as { lo: number; hi: number };
  const index = search.index;
  if (lo > hi) return [{ part: { where: [], params: [], match: null }, ...all([], []) }]; // nothing indexed: every row tested
  return [
    { part: { where: [], params: [], match: null }, ...all(['m.id > ?'], [hi]) },
    {
      part: { where: [], params: [], match: { table: index.table, query: index.match } },
      where: ['s.rowid BETWEEN ? AND ?', ...index.where, ...filters.where],
      params: [lo, hi, ...index.params, ...filters.params],
    },
    { part: { where: [], params: [], match: null }, ...all(['m.id < ?'], [lo]) },
  ];
}

function from(part: SearchPart): { sql: string; values: (string | number)[] } {
  return part.match
    ? { sql: `FROM ${part.match.table} s CROSS JOIN messages m ON m.id = s.rowid WHERE ${part.match.table} MATCH ?`, values: [part.match.query] }
    : { sql: 'FROM messages m WHERE 1', values: [] };
}

/** Every message, and those the filters (search included) match: one read snapshot. */
export function countMessages(db: DatabaseSync, query: CountQuery): { total: number; matching: number } {
  return inSnapshot(db, () => {
    const { total } = db.prepare('SELECT count(*) AS total FROM messages').get() as { total: number };
    let matching = 0;
    if (Object.values(query).every((v) => v === undefined || v === '')) matching = total;
    else {
      for (const { part, where, params } of parts(db, query)) {
        const base = from(part);
        const sql = `SELECT count(*) AS n ${base.sql}${where.length ? ` AND ${where.join(' AND ')}` : ''}`;
        matching += (db.prepare(sql).get(...base.values, ...params) as { n: number }).n;
      }
    }
    return { total, matching };
  });
}

/**
 * The id just above the match at `offset` (0: the newest), to list from as `beforeId`; null past the
 * last match. Walks the matches newest first without loading them.
 */
export function matchAt(db: DatabaseSync, query: CountQuery, offset: number): number | null {
  return inSnapshot(db, () => {
    let left = offset;
    for (const { part, where, params } of parts(db, query)) {
      const base = from(part);
      const order = part.match ? 's.rowid' : 'm.id';
      const sql = `SELECT m.id AS id ${base.sql}${where.length ? ` AND ${where.join(' AND ')}` : ''} ORDER BY ${order} DESC LIMIT 1 OFFSET ?`;
      const row = db.prepare(sql).get(...base.values, ...params, left) as { id: number } | undefined;
      if (row) return row.id + 1;
      const counted = `SELECT count(*) AS n ${base.sql}${where.length ? ` AND ${where.join(' AND ')}` : ''}`;
      left -= (db.prepare(counted).get(...base.values, ...params) as { n: number }).n;
      if (left < 0) return null;
    }
    return null;
  });
}

/**
 * Reads in one snapshot. A failed read may have ended the transaction already: its error is the one
 * reported, not the COMMIT's.
 */
function inSnapshot<T>(db: DatabaseSync, read: () => T): T {
  db.exec('BEGIN');
  try {
    const value = read();
    db.exec('COMMIT');
    return value;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/** The id just above the newest message received at or before `at` (ms), to list from as `beforeId`. */
export function idAtTime(db: DatabaseSync, at: number): number | null {
  const row = db.prepare('SELECT id FROM messages INDEXED BY messages_received WHERE received_at <= ? ORDER BY received_at DESC, id DESC LIMIT 1').get(at) as
    | { id: number }
    | undefined;
  return row ? row.id + 1 : null;
}
