import fs from 'node:fs';
import path from 'node:path';
import { writable } from './connection.ts';
import { writingDataDir } from './data-dir-errors.ts';
import { DatabaseSync } from './sqlite.ts';

/** The lock itself: a SQLite file whose exclusive lock the owner holds (never opened with `fs`). */
export const LOCK_DB = 'sluice-lock.db';
/**
 * The owner's process id as text, where Sluices before the SQLite lock look for their lock: they see
 * a live owner and refuse, instead of taking over a folder they cannot see is held. The second line
 * says a SQLite lock goes with it (a newer Sluice that finds that line knows the owner is gone once it
 * holds the SQLite lock itself, whatever the pid says).
 */
export const LOCK_FILE = 'sluice.lock';
const SQLITE_MARK = 'sqlite-lock';

/** How long a start waits for a lock that is held before it is refused. */
const DYING_OWNER_MS = 1_000;
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

/**
 * One Sluice per data folder: two would each read the same open deliveries and send every one twice
 * (and race on ports, settings and audience syncs).
 *
 * The lock is one the operating system lets go of when its process dies, however it dies:
 * `sluice-lock.db` is a SQLite file opened in exclusive locking mode and written once, so the
 * connection holds SQLite's exclusive file lock (POSIX advisory locks; LockFileEx on Windows) until it
 * is closed — by the release, or by the kernel at the process's exit, before its parent has reaped it.
 * No process id is asked about, so neither a zombie nor a recycled pid can hold a folder. SQLite also
 * keeps two connections of one process apart, so a second core in the same process is refused too.
 * Nothing opens `sluice-lock.db` with `fs`: closing any descriptor of a file drops every POSIX lock the
 * process has on it.
 *
 * `sluice.lock` carries the owner's pid as text, for the refusal's sentence and for older Sluices
 * (their lock was that file alone: a live pid there keeps them out). One of theirs still running
 * keeps the folder from this one too.
 *
 * A folder that cannot take the lock — a full disk, a read-only folder — is a DataDirError naming it
 * and the fix, and nothing of the attempt is left in it but `sluice-lock.db` (the lock every start
 * uses; removing it could break a lock another process just took on it).
 *
 * Returns the release (safe to call more than once).
 */
export function lockDataDir(dataDir: string): () => void {
  return writingDataDir(dataDir, () => lock(dataDir));
}

function lock(dataDir: string, remade = false): () => void {
  makeFolder(dataDir);
  const textFile = path.join(dataDir, LOCK_FILE);
  const dbFile = path.join(dataDir, LOCK_DB);
  createOwnerOnly(dbFile);
  const db = new DatabaseSync(dbFile);
  try {
    // A killed owner lets go once its last thread has exited, a few ms after it shows as dead (and
    // long before it is reaped): wait that long, then refuse.
    db.exec(`PRAGMA busy_timeout=${DYING_OWNER_MS}`);
    db.exec('PRAGMA locking_mode=EXCLUSIVE');
    db.exec('PRAGMA journal_mode=MEMORY'); // no -journal file beside it
    db.exec('PRAGMA synchronous=OFF'); // what it holds (the owner's pid) is written at every start: no wait for the disk
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL)');
    db.exec('DELETE FROM owner');
    db.prepare('INSERT INTO owner (pid) VALUES (?)').run(process.pid);
    db.exec('COMMIT'); // in exclusive locking mode the lock stays after the commit
  } catch (error) {
    db.close();
    const code = (error as { errcode?: number }).errcode;
    if ((code === SQLITE_BUSY || code === SQLITE_LOCKED) && writable(dataDir)) throw inUse(readOwner(textFile)?.pid ?? null, dataDir);
    if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) {
      // Written without a sync, so a system crash may leave it torn; it holds only a pid. Emptied in
      // place (an empty file is an empty SQLite database): the same file, so a lock another process
      // took on it meanwhile still holds and refuses this start; the descriptor the truncation opens
      // and closes drops no lock of this process, which has none on it (this connection is closed, and
      // another one holding it would have answered busy).
      if (remade) throw new Error(`the lock file ${dbFile} is damaged (${(error as Error).message}) and could not be made again; stop every Sluice using ${dataDir}, delete that file and start again`);
      fs.truncateSync(dbFile, 0);
      console.error(`sluice: the lock file ${dbFile} was damaged (${(error as Error).message}: a system crash while it was written); it was made again`);
      return lock(dataDir, true);
    }
    throw error;
  }
  try {
    claimTextLock(textFile, dataDir);
  } catch (error) {
    db.close();
    throw error;
  }
  let holding = true;
  return () => {
    if (!holding) return;
    holding = false;
    // While still held: a Sluice that takes the folder next writes its own pid after this.
    if (readOwner(textFile)?.pid === process.pid) fs.rmSync(textFile, { force: true });
    db.close();
  };
}

/**
 * Writes this process's pid to `sluice.lock`, once the SQLite lock is ours. What is there already was
 * left by a Sluice that is gone — one with the SQLite lock (we hold it now), or an older one whose
 * process no longer exists — unless an older Sluice still runs with it: then the folder is its.
 */
function claimTextLock(file: string, dataDir: string): void {
  const temporary = `${file}.${process.pid}`;
  try {
    fs.writeFileSync(temporary, `${process.pid}\n${SQLITE_MARK}\n`, { mode: 0o600 });
  } catch (error) {
    fs.rmSync(temporary, { force: true }); // a full disk: created, then the write failed
    throw error;
  }
  try {
    // Created only if absent, as an older Sluice creates its lock: of two starting at once, one wins.
    fs.linkSync(temporary, file);
    fs.rmSync(temporary, { force: true });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      fs.rmSync(temporary, { force: true });
      throw error;
    }
  }
  const found = readOwner(file);
  if (found && !found.sqlite && found.pid !== process.pid && isRunning(found.pid)) {
    fs.rmSync(temporary, { force: true });
    throw inUse(found.pid, dataDir);
  }
  try {
    fs.renameSync(temporary, file); // readers see a whole file or none
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Creates the folder (and its parents) owner-only. Node says ENOENT when a recursive mkdir meets a
 * read-only parent: the nearest folder that exists is asked why, so that the error says it.
 */
function makeFolder(dataDir: string): void {
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    let parent = path.dirname(dataDir);
    while (!fs.existsSync(parent) && path.dirname(parent) !== parent) parent = path.dirname(parent);
    fs.accessSync(parent, fs.constants.W_OK); // throws EROFS or EACCES when that is why
    throw error;
  }
}



/** Creates the lock database owner-only when it is missing (a new file: no lock of this process is on it). */
function createOwnerOnly(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function inUse(owner: number | null, dataDir: string): Error {
  const who = owner === null ? 'another Sluice' : `another Sluice (process ${owner})`;
  return new Error(
    `${who} is using the data folder ${dataDir}; stop it, or give this one its own folder with --data-dir`,
  );
}

/** The pid in `sluice.lock`, and whether a SQLite lock went with it; null when absent or unreadable. */
function readOwner(file: string): { pid: number; sqlite: boolean } | null {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const pid = Number.parseInt(text, 10);
    return Number.isInteger(pid) && pid > 0 ? { pid, sqlite: text.split('\n')[1]?.trim() === SQLITE_MARK } : null;
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
