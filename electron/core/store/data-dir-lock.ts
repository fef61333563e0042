import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from './sqlite.ts';

export const LOCK_FILE = 'sluice.lock';
/** The lock's owner's process id, for the sentence a refused start says (the lock file itself cannot be read while held). */
export const PID_FILE = 'sluice.pid';

/** How long a start waits for a lock that is held before it is refused. */
const DYING_OWNER_MS = 1_000;
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_NOTADB = 26;
const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * One Sluice per data folder: two would each read the same open deliveries and send every one twice
 * (and race on ports, settings and audience syncs).
 *
 * The lock is one the operating system lets go of when its process dies, however it dies: `sluice.lock`
 * is a SQLite file opened in exclusive locking mode and written once, so the connection holds SQLite's
 * exclusive file lock (POSIX advisory locks; LockFileEx on Windows) until it is closed — by the release,
 * or by the kernel at the process's exit, before its parent has reaped it. No process id is asked about,
 * so neither a zombie nor a recycled pid can hold a folder. SQLite also keeps two connections of one
 * process apart, so a second core in the same process is refused too.
 *
 * Nothing may open `sluice.lock` with `fs` while a core of this process may hold it: closing any
 * descriptor of a file drops every POSIX lock the process has on it. The owner's pid is kept beside it,
 * in `sluice.pid`, for the refusal's sentence.
 *
 * Returns the release (safe to call more than once).
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCK_FILE);
  const pidFile = path.join(dataDir, PID_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    createOwnerOnly(file);
    const db = new DatabaseSync(file);
    try {
      // A killed owner lets go once its last thread has exited, a few ms after it shows as dead (and
      // long before it is reaped): wait that long, then refuse.
      db.exec(`PRAGMA busy_timeout=${DYING_OWNER_MS}`);
      db.exec('PRAGMA locking_mode=EXCLUSIVE');
      db.exec('PRAGMA journal_mode=MEMORY'); // no -journal file beside it
      db.exec('BEGIN EXCLUSIVE');
      db.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL)');
      db.exec('DELETE FROM owner');
      db.prepare('INSERT INTO owner (pid) VALUES (?)').run(process.pid);
      db.exec('COMMIT'); // in exclusive locking mode the lock stays after the commit
    } catch (error) {
      db.close();
      const code = (error as { errcode?: number }).errcode;
      if (code === SQLITE_BUSY || code === SQLITE_LOCKED) throw inUse(ownerOf(pidFile), dataDir);
      if (code === SQLITE_NOTADB) {
        replaceLegacyLock(file, dataDir);
        continue;
      }
      throw error;
    }
    writeOwner(pidFile);
    let holding = true;
    return () => {
      if (!holding) return;
      holding = false;
      // While still held: a Sluice that takes the folder next writes its own pid after this.
      fs.rmSync(pidFile, { force: true });
      db.close();
    };
  }
  throw new Error(`could not lock the data folder ${dataDir}: ${file} keeps being replaced`);
}

/** Creates the lock file owner-only when it is missing (a new file: no lock of this process is on it). */
function createOwnerOnly(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function writeOwner(pidFile: string): void {
  const temporary = `${pidFile}.${process.pid}`;
  fs.writeFileSync(temporary, `${process.pid}\n`, { mode: 0o600 });
  fs.renameSync(temporary, pidFile); // readers see a whole pid or none
}

/**
 * A `sluice.lock` that is not a SQLite file was written by an older Sluice: its process id as text.
 * That Sluice still running keeps the folder (it knows no other lock); otherwise the file is moved
 * aside — by a rename only one process can win — and the lock is taken afresh. If what was moved is
 * already a SQLite lock (another Sluice replaced the old file first), it is put back.
 */
function replaceLegacyLock(file: string, dataDir: string): void {
  const owner = ownerOf(file);
  if (owner !== null && owner !== process.pid && isRunning(owner)) throw inUse(owner, dataDir);
  const aside = `${file}.${process.pid}.${Date.now()}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another process moved it first
    throw error;
  }
  // Reading the moved file cannot drop another process's lock on it (only this process's own).
  const header = fs.readFileSync(aside).subarray(0, SQLITE_HEADER.length).toString('latin1');
  if (header === SQLITE_HEADER) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // Yet another file is in place: whoever locked it holds the folder, and the next attempt says so.
    }
  }
  fs.rmSync(aside, { force: true });
}

function inUse(owner: number | null, dataDir: string): Error {
  const who = owner === null ? 'another Sluice' : `another Sluice (process ${owner})`;
  return new Error(
    `${who} is using the data folder ${dataDir}; stop it, or give this one its own folder with --data-dir`,
  );
}

function ownerOf(file: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** For an older Sluice's text lock only: whether that process exists. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0); // no signal sent: only asks whether the process exists
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}
