import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerSqlFunctions } from './sql-functions.ts';
import { DatabaseSync } from './sqlite.ts';

/**
 * Who opens a connection to the store: the main thread (reads, settings, migrations), the store's
 * writer thread (every other write), the checkpointer thread (WAL checkpoints only).
 */
export type ConnectionRole = 'main' | 'writer' | 'checkpointer';

/**
 * Every connection: `synchronous = NORMAL` (see database.ts, "Durability"; OFF for a store that is
 * not kept, Durability below), a 5 s wait for the
 * write lock, and a WAL size limit (WAL_SIZE_LIMIT). The main and writer connections also check
 * foreign keys and leave WAL checkpoints to the checkpointer thread (`wal_autocheckpoint = 0`); the
 * main one, which opens the store first, puts it in WAL mode (a property of the file, kept for every
 * later connection). Before that it asks for incremental auto-vacuum (auto-vacuum.ts): a new store
 * takes it with its first page — which the switch to WAL writes — so it needs no VACUUM (one fsync-bound
 * rewrite less at each new store); an existing one keeps its mode until useIncrementalVacuum converts it.
 * `synchronous` comes first: a new store's first page is then written as durably as the store is kept.
 */
const PRAGMAS: Record<ConnectionRole, (sync: Synchronous) => string> = {
  main: (sync) => `PRAGMA synchronous = ${sync}; PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
    PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA temp_store = MEMORY;`,
  writer: (sync) => `PRAGMA synchronous = ${sync}; PRAGMA wal_autocheckpoint = 0; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;`,
  checkpointer: (sync) => `PRAGMA busy_timeout = 5000; PRAGMA synchronous = ${sync};`,
};

type Synchronous = 'NORMAL' | 'OFF';

/**
 * Whether the store is synced to disk. `false` is for a store thrown away when its relay stops
 * (sluice/testing's temporary folder): every connection runs `synchronous = OFF`, so neither a commit
 * nor a checkpoint waits for the disk — a crash of the process still loses nothing acknowledged (the
 * writes are the OS's), a crash of the OS may lose the store, as it loses a temporary folder.
 */
export interface Durability {
  durable?: boolean;
}

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
export function connect(file: string, role: ConnectionRole, { durable = true }: Durability = {}): DatabaseSync {
  const db = new DatabaseSync(file);
  try {
    db.exec(`${PRAGMAS[role](durable ? 'NORMAL' : 'OFF')} PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT};`);
    registerSqlFunctions(db);
  } catch (error) {
    db.close(); // a store that cannot be set up (busy, unreadable): no connection left open behind the error
    throw error;
  }
  return db;
}

/**
 * A read-only connection to a store, for exports, the counting and check threads and the commands that
 * read a store: beside a running relay (WAL lets a reader in beside the writer, and a read-only
 * connection can neither take the write lock nor migrate the store), in the relay's own process as in
 * a command's, and on read-only media.
 *
 * Opens `file` read-only. A store in WAL mode (every Sluice store) needs its `-shm` file to be read:
 * SQLite makes it when it is missing, which a read-only folder does not allow ("unable to open
 * database file"). There the store is opened `immutable=1` — SQLite then reads the database file
 * alone, without locks or `-shm` — which is exact when there is no WAL left, as a Sluice that stopped
 * leaves it (its last checkpoint empties the WAL and SQLite removes both files). A WAL that still
 * holds writes (a Sluice that was killed) is read through its `-shm` when that is there too; without
 * it, SQLite cannot read them on read-only media, and the refusal says to read a copy.
 */
export function openReadOnly(file: string): DatabaseSync {
  const db = openReading(file, false);
  try {
    db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get(); // SQLite opens the file at the first read
    return db;
  } catch (error) {
    db.close();
    if (writable(path.dirname(file)) || !fs.existsSync(file)) throw error;
    if (walBytes(file) > 0) {
      throw new Error(
        `it is on a read-only folder and its WAL (${path.basename(file)}-wal, left by a Sluice that was stopped abruptly) holds writes ` +
          `not yet in the database file, which SQLite can read there only with its -shm file, and that is missing: copy the folder ` +
          'somewhere writable and read the copy (--data-dir COPY)',
      );
    }
  }
  return openReading(file, true);
}

function openReading(file: string, immutable: boolean): DatabaseSync {
  let location: string | URL = file;
  if (immutable) {
    location = pathToFileURL(file);
    location.searchParams.set('immutable', '1');
  }
  const db = new DatabaseSync(location, { readOnly: true });
  // A relay starting up may hold the lock for a moment (recovery, a migration).
  db.exec('PRAGMA busy_timeout = 5000');
  registerSqlFunctions(db);
  return db;
}

function walBytes(file: string): number {
  try {
    return fs.statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

/** Whether this process may write in `dir` (false on a read-only file system). */
export function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The checkpointer thread is gone: SQLite's own checkpoints on this connection take over. */
export function checkpointAutomatically(db: DatabaseSync): void {
  db.exec('PRAGMA wal_autocheckpoint = 1000');
}

/**
 * Runs `fn` in one transaction; rolls back and rethrows on error. Inside another transaction, in a
 * savepoint: what `fn` wrote is undone alone if it fails, and commits with the outer transaction.
 */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  const [begin, end, undo] = db.isTransaction
    ? ['SAVEPOINT nested', 'RELEASE nested', 'ROLLBACK TO nested; RELEASE nested']
    : ['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK'];
  db.exec(begin);
  try {
    const result = fn();
    db.exec(end);
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec(undo);
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
