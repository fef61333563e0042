import { DatabaseSync } from './sqlite.ts';
import fs from 'node:fs';
import path from 'node:path';
import { migrate } from './migrations.ts';

export const DATABASE_FILE = 'sluice.db';

/**
 * Opens (creating if needed) the store in `dataDir`, owner-only, in WAL mode, migrated.
 *
 * Durability: WAL with synchronous=NORMAL. A commit is written to the WAL file before ingestion
 * answers, so an acknowledged message survives a crash of the process (tests kill it with SIGKILL);
 * an OS crash or power loss may lose the last commits, which SQLite documents as the WAL trade-off
 * and a local inspector can afford. Automatic checkpoints are off: the checkpointer runs them (and
 * their fsyncs) on its own connection in a worker thread, so a checkpoint never stalls a request.
 */
export function openDatabase(dataDir: string): DatabaseSync {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DATABASE_FILE);
  // Create the file ourselves so it is owner-only; SQLite gives -wal and -shm the same mode.
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
  const db = new DatabaseSync(file);
  db.exec(`
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    PRAGMA wal_autocheckpoint = 0;
    PRAGMA foreign_keys = ON;
    PRAGMA busy_timeout = 5000;
    PRAGMA temp_store = MEMORY;
  `);
  migrate(db);
  return db;
}

/** Runs `fn` in one transaction; rolls back and rethrows on error. */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
