// A data folder Sluice cannot write to at start — its disk is full, or it is read-only — said in one
// sentence naming the folder and the fix, instead of the system's `ENOSPC: … write` or SQLite's
// "attempt to write a readonly database". Only the start's own file work (the folder's lock, opening
// and migrating the store) is read this way: an EACCES from a port, say, is no folder's problem.
import fs from 'node:fs';
import { writable } from './connection.ts';
import { databaseFile } from './database.ts';
import { isDiskFull } from './integrity.ts';

const SQLITE_READONLY = 8;
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM']);

/** A data folder that cannot take Sluice's files: what is wrong (`full`, `read-only`) and the fix. */
export class DataDirError extends Error {
  readonly dataDir: string;
  readonly kind: 'full' | 'read-only';

  constructor(dataDir: string, kind: 'full' | 'read-only', message: string) {
    super(message);
    this.name = 'DataDirError';
    this.dataDir = dataDir;
    this.kind = kind;
  }
}

export function startDiskFullSentence(dataDir: string): string {
  return (
    `the disk holding the data folder ${dataDir} is full: Sluice cannot start, it writes its lock and its store there; ` +
    'free some space (or give another folder with --data-dir) and start again'
  );
}

/** A read-only data folder: the fix, and when it holds a store, how to keep or read its messages. */
export function readOnlySentence(dataDir: string, why: string): string {
  const start = `the data folder ${dataDir} is read-only (${why}): Sluice writes its lock and its store there; give it a writable folder with --data-dir`;
  if (!fs.existsSync(databaseFile(dataDir))) return start;
  return `${start} (a copy of this one keeps its messages), or read this store as it is with "sluice export --data-dir ${dataDir}"`;
}

/**
 * What `error`, met while the start wrote to `dataDir`, says about the folder: a DataDirError for a
 * full disk or a read-only folder, null for anything else.
 */
export function dataDirError(error: unknown, dataDir: string): DataDirError | null {
  if (error instanceof DataDirError) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const sqlite = ((error as { errcode?: unknown } | null)?.errcode as number | undefined) ?? -1;
  if ((code !== undefined && FULL_CODES.has(code)) || isDiskFull(error)) return new DataDirError(dataDir, 'full', startDiskFullSentence(dataDir));
  if (code !== undefined && READ_ONLY_CODES.has(code)) return new DataDirError(dataDir, 'read-only', readOnlySentence(dataDir, code === 'EROFS' ? 'a read-only file system' : `${code}: not writable by this user`));
  // SQLite opens a file it may not write read-only, and says so at the first write ("attempt to write a
  // readonly database"); on a folder it cannot write, a store in WAL mode cannot even be opened (its
  // -shm cannot be made) and a lock it cannot take may be reported busy.
  if ((sqlite & 0xff) === SQLITE_READONLY || (sqlite !== -1 && !writable(dataDir))) {
    return new DataDirError(dataDir, 'read-only', readOnlySentence(dataDir, readOnlyWhy(dataDir)));
  }
  return null;
}

/** Runs the start's file work `fn` on `dataDir`, a full disk or a read-only folder thrown as a DataDirError. */
export function writingDataDir<T>(dataDir: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw dataDirError(error, dataDir) ?? error;
  }
}

/** Why SQLite could not write: the file system is read-only, or this user may not write there. */
function readOnlyWhy(dataDir: string): string {
  try {
    fs.accessSync(dataDir, fs.constants.W_OK);
    return 'its store cannot be written by this user';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EROFS' ? 'a read-only file system' : `${code}: not writable by this user`;
  }
}
