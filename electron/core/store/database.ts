import type { DatabaseSync } from 'node:sqlite';
import fs from 'node:fs';
import path from 'node:path';
import { connect, type Durability } from './connection.ts';
import { check, openChecked } from './integrity.ts';
import { migrate } from './migrations.ts';
import { useIncrementalVacuum } from './auto-vacuum.ts';

export const DATABASE_FILE = 'sluice.db';

/** The store's database file in the data folder `dataDir` (what the store's threads and a read-only connection open). */
export function databaseFile(dataDir: string): string {
  return path.join(dataDir, DATABASE_FILE);
}

/**
 * Opens (creating if needed) the store in `dataDir`, owner-only, in WAL mode, migrated.
 *
 * Durability: WAL with synchronous=NORMAL. A commit is written to the WAL file before ingestion
 * answers, so an acknowledged message survives a crash of the process (tests kill it with SIGKILL);
 * an OS crash or power loss may lose the last commits, which SQLite documents as the WAL trade-off
 * and a local inspector can afford (a store not kept, `durable: false`, is not synced at all:
 * connection.ts Durability). Automatic checkpoints are off: the checkpointer runs them (and
 * their fsyncs) on its own connection in a worker thread, so a checkpoint never stalls a request.
 */
export function openDatabase(dataDir: string, durability: Durability = {}): DatabaseSync {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = databaseFile(dataDir);
  const fresh = !fs.existsSync(file) || fs.statSync(file).size === 0;
  const copied = fresh && emptyStore !== undefined;
  if (copied) writeTemplate(file, emptyStore!, durability.durable ?? true);
  // Create the file ourselves so it is owner-only; SQLite gives -wal and -shm the same mode.
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
  // A damaged store is refused here with a sentence (integrity.ts), before anything writes to it; a
  // copy of the image was checked when the image was taken, and is not read again.
  const db = openChecked(file, () => connect(file, 'main', durability), { sound: copied });
  useIncrementalVacuum(db, file);
  migrate(db);
  if (fresh && emptyStore === undefined) {
    // Everything the migrations wrote, into the file (the store's checkpointer does not run yet): its
    // image is an empty store, kept once SQLite finds it sound.
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    if (check(db, 'quick_check', 1).length === 0) emptyStore = fs.readFileSync(file);
  }
  return db;
}

/**
 * The image of a new store once migrated, kept by this process from its first new store: a later new
 * store (a test's relay, one per test) starts as a copy of it rather than running every migration again
 * (10–25 ms). Kept in memory, not on disk: the code that made it is the code running (no template of
 * other migrations to detect), and parallel test workers share nothing. The image is checked once
 * (quick_check) when it is taken; a copy is not read by the start check again (3–5 ms of a start), but
 * is migrated like any store after.
 */
let emptyStore: Buffer | undefined;

/** Writes `image` as the store file, whole or not at all (a copy cut short never looks like a store): a temporary name, then a rename. */
function writeTemplate(file: string, image: Buffer, durable: boolean): void {
  const temporary = `${file}.${process.pid}.new`;
  const fd = fs.openSync(temporary, 'w', 0o600);
  try {
    fs.writeSync(fd, image);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
}
