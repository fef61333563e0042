// Waiting for a store's search indexes (store/search-index.ts) to hold every message: tests and
// benchmarks that measure or search what was just stored.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';

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
