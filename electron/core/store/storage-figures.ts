import fs from 'node:fs';
import path from 'node:path';
import type { StorageView } from '../../../shared/storage.ts';
import { DATABASE_FILE } from './database.ts';
import type { DatabaseSync } from './sqlite.ts';

export type StorageFigures = Pick<
  StorageView,
  'dataDir' | 'databaseFile' | 'messages' | 'deliveries' | 'attempts' | 'approximate' | 'databaseBytes' | 'walBytes' | 'freeBytes' | 'oldestMessageAt' | 'newestMessageAt'
>;

/** Tables whose id range holds at most this many rows are counted exactly. */
export const EXACT_COUNT_BELOW = 200_000;
/** A larger table is estimated from its id range and the share of ids in use in this many windows… */
const SAMPLE_WINDOWS = 8;
/** …of this many ids each. */
const SAMPLE_WIDTH = 500;

// The attempts figure counts attempt records: a row per attempt of its own (webhooks), and one per
// forwarded request, shared by the messages it carried (migration 17).
const COUNTED = ['messages', 'deliveries', 'attempts', 'forward_requests'] as const;

/**
 * What the store holds, for Settings — in milliseconds on a store of ten million messages, so nothing
 * here reads a whole table or index:
 * - a table's first and last ids are its id B-tree's first and last entries (min/max of an INTEGER
 *   PRIMARY KEY is a lookup, not a scan);
 * - count(*) has no shortcut in SQLite: it reads every page of the table's smallest index. So only an
 *   id range below EXACT_COUNT_BELOW (at most that many rows) is counted; a larger one is estimated:
 *   the range times the share of ids still in use in a few windows spread over it (each a rowid range
 *   search of SAMPLE_WIDTH ids). Ids only grow and the pruner removes the oldest first, so ranges are
 *   dense; the windows catch the holes a clear of one source leaves. `approximate` says so.
 * - file sizes come from the file system; the free pages inside the file from the header
 *   (`freelist_count` × `page_size`, two pragmas that read no table);
 * - the oldest and newest messages are the first and last entries of the `messages_received` index,
 *   each in a subquery of its own: `min(x), max(x)` in one SELECT is not optimised and scans the index.
 * tests/integration/store/storage-figures.test.ts holds every statement run on a large store to searches.
 */
export function storageFigures(db: DatabaseSync, dataDir: string): StorageFigures {
  const databaseFile = path.join(dataDir, DATABASE_FILE);
  let approximate = false;
  const counts = COUNTED.map((table) => {
    const { count, exact } = countRows(db, table);
    if (!exact) approximate = true;
    return count;
  });
  const { oldest, newest } = db
    .prepare('SELECT (SELECT min(received_at) FROM messages) AS oldest, (SELECT max(received_at) FROM messages) AS newest')
    .get() as { oldest: number | null; newest: number | null };
  const freePages = Number((db.prepare('PRAGMA freelist_count').get() as { freelist_count: number }).freelist_count);
  const pageSize = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
  return {
    dataDir,
    databaseFile,
    messages: counts[0]!,
    deliveries: counts[1]!,
    attempts: counts[2]! + counts[3]!,
    approximate,
    databaseBytes: fileSize(databaseFile),
    walBytes: fileSize(`${databaseFile}-wal`),
    freeBytes: freePages * pageSize,
    oldestMessageAt: oldest === null ? null : Number(oldest),
    newestMessageAt: newest === null ? null : Number(newest),
  };
}

const FIGURE_QUERIES = {
  idRange: (table: string) => `SELECT (SELECT min(id) FROM ${table}) AS first, (SELECT max(id) FROM ${table}) AS last`,
  countExact: (table: string) => `SELECT count(*) AS n FROM ${table}`,
  countWindow: (table: string) => `SELECT count(*) AS n FROM ${table} WHERE id BETWEEN ? AND ?`,
};

function countRows(db: DatabaseSync, table: (typeof COUNTED)[number]): { count: number; exact: boolean } {
  const { first, last } = db.prepare(FIGURE_QUERIES.idRange(table)).get() as { first: number | null; last: number | null };
  if (first === null || last === null) return { count: 0, exact: true };
  const span = Number(last) - Number(first) + 1;
  // At most EXACT_COUNT_BELOW rows: counting them reads a few MB at most.
  if (span < EXACT_COUNT_BELOW) return { count: Number((db.prepare(FIGURE_QUERIES.countExact(table)).get() as { n: number }).n), exact: true };
  const window = db.prepare(FIGURE_QUERIES.countWindow(table));
  const step = (span - SAMPLE_WIDTH) / (SAMPLE_WINDOWS - 1);
  let used = 0;
  for (let i = 0; i < SAMPLE_WINDOWS; i++) {
    const from = Number(first) + Math.round(i * step);
    used += Number((window.get(from, from + SAMPLE_WIDTH - 1) as { n: number }).n);
  }
  return { count: Math.round((span * used) / (SAMPLE_WINDOWS * SAMPLE_WIDTH)), exact: false };
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0; // no WAL: none yet, or the last connection removed it
  }
}
