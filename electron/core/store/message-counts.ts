// The stream's counts and positions: how many messages there are, how many match the filters, and
// which message is the nth match (newest first) — for "12,481 of 1,034,227", the jump to the oldest
// and to a time. Read part by part like a search (store/message-search.ts): above the indexed range,
// through the index, below it. Counting may read every matching row (a filter on a payload field of
// a million messages takes seconds), so the core runs these in a thread of their own (count-worker.ts).
import type { DatabaseSync } from 'node:sqlite';
import type { MessageCounts } from '../../../shared/channels/messages.ts';
import { readSnapshot } from './connection.ts';
import { filterTerms, type ListMessagesQuery } from './messages-repo.ts';
import { compileQuery } from './message-query-sql.ts';
import { partFrom, searchParts } from './message-search.ts';

export type CountQuery = Omit<ListMessagesQuery, 'beforeId' | 'afterId' | 'limit'>;

/** Each part of the search (above the indexed range, through the index, below it), newest first, with the filters' terms. */
export function parts(db: DatabaseSync, query: CountQuery): ReturnType<typeof partFrom>[] {
  const { search, ...filters } = query;
  const terms = filterTerms(filters);
  return searchParts(db, compileQuery(search)).map((part) => partFrom(part, terms));
}

/**
 * Every message, and those the filters (search included) match: one read snapshot, with the newest
 * message id it holds (the writer gives ids in commit order, so the snapshot holds every stored id up
 * to it and none above).
 */
export function countMessages(db: DatabaseSync, query: CountQuery): MessageCounts {
  return readSnapshot(db, () => {
    // Apart: SQLite counts a bare count(*) through its smallest index and reads max(id) off the
    // rowid's end; asked together, it would step through every row for them.
    const { total } = db.prepare('SELECT count(*) AS total FROM messages').get() as { total: number };
    const { newestId } = db.prepare('SELECT coalesce(max(id), 0) AS newestId FROM messages').get() as { newestId: number };
    if (Object.values(query).every((v) => v === undefined || v === '')) return { total, matching: total, newestId };
    let matching = 0;
    for (const part of parts(db, query)) matching += (db.prepare(`SELECT count(*) AS n ${part.sql}`).get(...part.values) as { n: number }).n;
    return { total, matching, newestId };
  });
}

/**
 * The id just above the match at `offset` (0: the newest), to list from as `beforeId`; null past the
 * last match. Walks the matches newest first without loading them.
 */
export function matchAt(db: DatabaseSync, query: CountQuery, offset: number): number | null {
  return readSnapshot(db, () => {
    let left = offset;
    for (const part of parts(db, query)) {
      const row = db.prepare(`SELECT m.id AS id ${part.sql} ORDER BY ${part.order} DESC LIMIT 1 OFFSET ?`).get(...part.values, left) as { id: number } | undefined;
      if (row) return row.id + 1;
      left -= (db.prepare(`SELECT count(*) AS n ${part.sql}`).get(...part.values) as { n: number }).n;
      if (left < 0) return null;
    }
    return null;
  });
}

/** The id just above the newest message received at or before `at` (ms), to list from as `beforeId`. */
export function idAtTime(db: DatabaseSync, at: number): number | null {
  const row = db.prepare('SELECT id FROM messages INDEXED BY messages_received WHERE received_at <= ? ORDER BY received_at DESC, id DESC LIMIT 1').get(at) as
    | { id: number }
    | undefined;
  return row ? row.id + 1 : null;
}
