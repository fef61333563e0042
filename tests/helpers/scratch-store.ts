// A real store file, migrated like the app's, with one source (id 1, "web"): for tests of the store's
// own queries and their plans. Closed and removed after each test.
import fs from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach } from 'vitest';
import { openDatabase } from '../../electron/core/store/database.ts';
import { tempDir } from './core.ts';

export function scratchStores(): (prefix: string) => DatabaseSync {
  const opened: { dir: string; db: DatabaseSync }[] = [];
  afterEach(() => {
    for (const { dir, db } of opened.splice(0)) {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  return (prefix) => {
    const dir = tempDir(prefix);
    const db = openDatabase(dir);
    opened.push({ dir, db });
    db.exec(`INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'web', 'wk', 'web', 0)`);
    return db;
  };
}
