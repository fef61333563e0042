// Waiting for a store's search indexes (store/search-index.ts) to hold every message, and their size
// against a fresh index of the same messages: tests and benchmarks that measure or search what was
// just stored.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';
import { searchIndexer } from '../../electron/core/store/search-index.ts';
import { registerSqlFunctions } from '../../electron/core/store/sql-functions.ts';
import { until } from './wait.ts';

/** Resolves once the indexes cover every message of the store in `dataDir`, or throws after `ms`. */
export async function indexCaughtUp(dataDir: string, ms = 300_000, pollMs = 100): Promise<void> {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, pollMs))) {
      const { lo, hi, top } = db.prepare('SELECT lo, hi, (SELECT coalesce(max(id), 0) FROM messages) AS top FROM search_index').get() as { lo: number; hi: number; top: number };
      if (lo <= 1 && hi >= top) return;
    }
    throw new Error(`the search index did not catch up within ${ms / 1000} s`);
  } finally {
    db.close();
  }
}

/**
 * The search index has caught up and the writer has stopped writing (its merge steps, which go on
 * after the last slice, are done): no commit for `quietMs` (PRAGMA data_version, which changes with
 * every other connection's commit). For a test that then counts rows; only where nothing else writes.
 */
export async function indexSettled(dataDir: string, quietMs = 500, ms = 300_000): Promise<void> {
  await indexCaughtUp(dataDir, ms);
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    const version = db.prepare('PRAGMA data_version');
    const read = () => Number((version.get() as { data_version: number }).data_version);
    let last = read();
    let since = Date.now();
    await until(() => {
      const now = read();
      if (now !== last) [last, since] = [now, Date.now()];
      return Date.now() - since >= quietMs;
    }, ms, 'the writer to stop writing');
  } finally {
    db.close();
  }
}

const INDEX_TABLES = "('messages_search_data', 'messages_search_idx', 'messages_text_data', 'messages_text_idx')";

/**
 * Bytes of the store's index pages, and of a fresh index of the messages it holds, built by the
 * writer's own indexer (store/search-index.ts, 500 at a time) into the store's own index tables
 * (their schema read from the store), in memory.
 */
export function indexSizes(dataDir: string): { indexes: number; fresh: number } {
  const file = path.join(dataDir, DATABASE_FILE);
  const store = new DatabaseSync(file, { readOnly: true });
  const fresh = new DatabaseSync(':memory:');
  try {
    const bytes = (db: DatabaseSync) => Number((db.prepare(`SELECT sum(pgsize) AS n FROM dbstat WHERE name IN ${INDEX_TABLES}`).get() as { n: number }).n);
    registerSqlFunctions(fresh);
    const schema = (name: string) => (store.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').get(name) as { sql: string }).sql;
    fresh.exec(`ATTACH '${file}' AS src;
      CREATE TABLE messages (id INTEGER PRIMARY KEY, user_id TEXT, anonymous_id TEXT, message_id TEXT, event TEXT, raw TEXT);
      INSERT INTO messages SELECT id, user_id, anonymous_id, message_id, event, raw FROM src.messages;
      DETACH src;
      ${schema('search_index')};
      INSERT INTO search_index (id, lo, hi) VALUES (1, 1, 0);
      ${schema('messages_search')};
      ${schema('messages_text')};`);
    const indexer = searchIndexer(fresh);
    while (indexer.step(500));
    while (indexer.merge(256)); // as the writer merges them once idle
    return { indexes: bytes(store), fresh: bytes(fresh) };
  } finally {
    store.close();
    fresh.close();
  }
}
