// Waiting for a store's search indexes (store/search-index.ts) to hold every message, and their size
// against a fresh index of the same messages: tests and benchmarks that measure or search what was
// just stored.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';
import { registerSqlFunctions } from '../../electron/core/store/sql-functions.ts';

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

const INDEX_TABLES = "('messages_search_data', 'messages_search_idx', 'messages_text_data', 'messages_text_idx')";

/**
 * Bytes of the store's index pages, and of a fresh index of the messages it holds, built as the writer
 * does (500 at a time, the tables as migrations 11 and 12 make them).
 */
export function indexSizes(dataDir: string): { indexes: number; fresh: number } {
  const file = path.join(dataDir, DATABASE_FILE);
  const store = new DatabaseSync(file, { readOnly: true });
  const fresh = new DatabaseSync(':memory:');
  try {
    const bytes = (db: DatabaseSync) => Number((db.prepare(`SELECT sum(pgsize) AS n FROM dbstat WHERE name IN ${INDEX_TABLES}`).get() as { n: number }).n);
    registerSqlFunctions(fresh);
    fresh.exec(`ATTACH '${file}' AS src;
      CREATE VIRTUAL TABLE messages_search USING fts5(user_id, anonymous_id, message_id, event, content = '', columnsize = 0, tokenize = 'trigram case_sensitive 1');
      CREATE VIRTUAL TABLE messages_text USING fts5(raw, content = '', columnsize = 0, tokenize = 'ascii');`);
    const trigrams = fresh.prepare('INSERT INTO messages_search (rowid, user_id, anonymous_id, message_id, event) SELECT id, lower(user_id), lower(anonymous_id), lower(message_id), lower(event) FROM src.messages WHERE id BETWEEN ? AND ?');
    const words = fresh.prepare('INSERT INTO messages_text (rowid, raw) SELECT id, sluice_word_text(raw) FROM src.messages WHERE id BETWEEN ? AND ?');
    const ids = (fresh.prepare('SELECT id FROM src.messages ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    for (let i = 0; i < ids.length; i += 500) {
      const [lo, hi] = [ids[i]!, ids[Math.min(ids.length, i + 500) - 1]!];
      fresh.exec('BEGIN');
      trigrams.run(lo, hi);
      words.run(lo, hi);
      fresh.exec('COMMIT');
    }
    return { indexes: bytes(store), fresh: bytes(fresh) };
  } finally {
    store.close();
    fresh.close();
  }
}
