/**
 * A read-only connection to a store, for exports and the commands that read a store: beside a running
 * relay (WAL lets a reader in beside the writer, and a read-only connection can neither take the write
 * lock nor migrate the store), in the relay's own process as in a command's, and on read-only media.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writable } from '../store/data-dir-errors.ts';
import { registerSqlFunctions } from '../store/sql-functions.ts';
import { DatabaseSync } from '../store/sqlite.ts';

/**
 * Opens `file` read-only. A store in WAL mode (every Sluice store) needs its `-shm` file to be read:
 * SQLite makes it when it is missing, which a read-only folder does not allow ("unable to open
 * database file"). There the store is opened `immutable=1` — SQLite then reads the database file
 * alone, without locks or `-shm` — which is exact when there is no WAL left, as a Sluice that stopped
 * leaves it (its last checkpoint empties the WAL and SQLite removes both files). A WAL that still
 * holds writes (a Sluice that was killed) is read through its `-shm` when that is there too; without
 * it, SQLite cannot read them on read-only media, and the refusal says to read a copy.
 */
export function openReadOnly(file: string): DatabaseSync {
  const db = open(file, false);
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
  const immutable = open(file, true);
  return immutable;
}

function open(file: string, immutable: boolean): DatabaseSync {
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
