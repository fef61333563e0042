import { registerSqlFunctions } from './sql-functions.ts';
import { DatabaseSync } from './sqlite.ts';

/**
 * Who opens a connection to the store: the main thread (reads, settings, migrations), the store's
 * writer thread (every other write), the checkpointer thread (WAL checkpoints only).
 */
export type ConnectionRole = 'main' | 'writer' | 'checkpointer';

/**
 * Every connection: `synchronous = NORMAL` (see database.ts, "Durability"), a 5 s wait for the
 * write lock, and a WAL size limit (WAL_SIZE_LIMIT). The main and writer connections also check
 * foreign keys and leave WAL checkpoints to the checkpointer thread (`wal_autocheckpoint = 0`); the
 * main one, which opens the store first, puts it in WAL mode (a property of the file, kept for every
 * later connection).
 */
const PRAGMAS: Record<ConnectionRole, string> = {
  main: `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; PRAGMA foreign_keys = ON;
    PRAGMA busy_timeout = 5000; PRAGMA temp_store = MEMORY;`,
  writer: 'PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;',
  checkpointer: 'PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;',
};

/**
 * The WAL file's size, in bytes, once a checkpoint has let it start over. SQLite reuses the WAL from
 * its beginning after a complete checkpoint but never shrinks it on its own: a burst of writes (a
 * user saw 492 MB after retries) stayed on disk until shutdown. With this limit the connection that
 * starts the WAL over (the next writer after a complete checkpoint) truncates it to this size; the
 * checkpointer (checkpointer-worker.ts) brings it to 0 bytes once the store is idle, and forces a
 * start-over (RESTART) when sustained writes never leave room for one. The pragma is per connection:
 * each one sets it, whichever ends up starting the WAL over.
 */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

/** Opens a connection to the store's file, set up for what `role` does with it. */
export function connect(file: string, role: ConnectionRole): DatabaseSync {
  const db = new DatabaseSync(file);
  try {
    db.exec(`${PRAGMAS[role]} PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT};`);
    registerSqlFunctions(db);
  } catch (error) {
    db.close(); // a store that cannot be set up (busy, unreadable): no connection left open behind the error
    throw error;
  }
  return db;
}

/** The checkpointer thread is gone: SQLite's own checkpoints on this connection take over. */
export function checkpointAutomatically(db: DatabaseSync): void {
  db.exec('PRAGMA wal_autocheckpoint = 1000');
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

/**
 * Runs `read` in one read snapshot (a savepoint: inside a transaction too). A failed read may have
 * ended the transaction already: its error is the one reported, not the savepoint's.
 */
export function readSnapshot<T>(db: DatabaseSync, read: () => T): T {
  db.exec('SAVEPOINT snapshot');
  try {
    const value = read();
    db.exec('RELEASE snapshot');
    return value;
  } catch (error) {
    try {
      if (db.isTransaction) db.exec('ROLLBACK TO snapshot; RELEASE snapshot');
    } catch {}
    throw error;
  }
}
