// Runs WAL checkpoints on a connection of its own, off the thread that serves requests, and keeps the
// WAL file small: PASSIVE checkpoints at each tick (they never wait for anyone), a RESTART when
// sustained writes let the WAL grow far past its limit, a TRUNCATE (to 0 bytes) once the store is idle.
// A checkpoint that fails (a full disk, an I/O error) is retried with a backoff; the thread keeps going.
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointerSettings, FromCheckpointer } from './checkpointer.ts';
import { connect } from './connection.ts';
import { passGate } from '../worker-options.ts';
import type { DatabaseSync } from './sqlite.ts';

type Mode = 'PASSIVE' | 'RESTART' | 'TRUNCATE';
interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const settings = workerData as CheckpointerSettings;
const walFile = `${settings.file}-wal`;
const BUSY_MS = 5_000; // the connection's own (connection.ts); heavy checkpoints lower it while they run

/** Null after a failure: the next attempt opens a fresh connection. */
let db: DatabaseSync | null = null;
/** A WAL frame's size: a page and its 24-byte header. */
let frameBytes = 4096 + 24;
/** The WAL's frame count and file size at the last tick, and since when they have not changed. */
let lastFrames = -1;
let lastBytes = -1;
let quietSince = Date.now();
let heavyNotBefore = 0;
/** The frame count a RESTART last completed at: nothing to do again until writers move the WAL. */
let restartedAt = -1;
/**
 * Set while checkpoints are failing: when to try again, and the wait after the next failure. A thread
 * started while its predecessor's checkpoints were failing starts in that state (tries at once).
 */
let failing: { retryAt: number; backoffMs: number } | null = settings.failing ? { retryAt: 0, backoffMs: settings.backoffMs } : null;

function post(message: FromCheckpointer): void {
  parentPort?.postMessage(message);
}

function walBytes(): number {
  try {
    return fs.statSync(walFile).size;
  } catch {
    return 0; // no WAL file (yet, or after the last connection closed)
  }
}

function checkpoint(mode: Mode, busyMs = BUSY_MS): CheckpointResult {
  if (!db) {
    db = connect(settings.file, 'checkpointer', { durable: settings.durable });
    frameBytes = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size) + 24;
  }
  if (busyMs !== BUSY_MS) db.exec(`PRAGMA busy_timeout = ${busyMs}`);
  try {
    // SQLITE_BUSY (the writer or a reader kept it from finishing) is not an error here: busy = 1.
    return db.prepare(`PRAGMA wal_checkpoint(${mode})`).get() as unknown as CheckpointResult;
  } finally {
    if (busyMs !== BUSY_MS) db.exec(`PRAGMA busy_timeout = ${BUSY_MS}`);
  }
}

function tick(): void {
  const now = Date.now();
  if (failing && now < failing.retryAt) return;
  try {
    const passive = checkpoint('PASSIVE');
    const bytes = walBytes();
    if (passive.log !== lastFrames || bytes !== lastBytes) {
      lastFrames = passive.log;
      lastBytes = bytes;
      quietSince = now;
    }
    if (now >= heavyNotBefore) {
      // Idle: a TRUNCATE brings the file to 0 bytes (a RESTART would leave it at its size until the
      // next writer's commit trims it to journal_size_limit). Under sustained writes a PASSIVE
      // checkpoint rarely catches up with the writer at the moment a transaction starts, which is
      // when SQLite starts the WAL over, so the WAL only grows: a RESTART holds the write lock while it
      // copies what PASSIVE left (little: it just ran, and heavyCopyBytes at most) and waits for the
      // readers (`heavyBusyMs` at most), and the next writer starts the WAL over and trims it. The file's size is what
      // the disk holds; the frames in use are what RESTART is about (below journal_size_limit the
      // file stays as large as it ever was, however little it holds).
      // Only when PASSIVE left little to copy: the copy happens under the write lock (heavyCopyBytes).
      const caughtUp = (passive.log - passive.checkpointed) * frameBytes <= settings.heavyCopyBytes;
      if (!caughtUp) {
        // A reader's snapshot holds PASSIVE back: the next ticks copy on without the write lock.
      } else if (bytes > settings.truncateAboveBytes && now - quietSince >= settings.idleMs) {
        heavyNotBefore = now + settings.heavyEveryMs;
        checkpoint('TRUNCATE', settings.heavyBusyMs);
      } else if (passive.log * frameBytes > settings.restartAboveBytes && passive.log !== restartedAt) {
        heavyNotBefore = now + settings.heavyEveryMs;
        const restart = checkpoint('RESTART', settings.heavyBusyMs);
        if (restart.busy === 0) restartedAt = restart.log; // done until a writer starts the WAL over
      }
    }
    if (failing) {
      post({ kind: 'recovered' });
      failing = null;
    }
  } catch (error) {
    // Busy: the next tick tries again (a checkpoint is never needed for correctness).
    if (/busy|locked/i.test((error as Error).message)) return;
    failed(error as Error, now);
  }
}

/**
 * A checkpoint failed (SQLITE_FULL, SQLITE_IOERR, a store that cannot be opened): drop the connection
 * (the next try opens a new one), retry after 1 s, then 2, 4… up to 30 s, and tell the owner (which
 * logs the first failure of an episode only).
 */
function failed(error: Error, now: number): void {
  try {
    db?.close();
  } catch {
    // already unusable
  }
  db = null;
  if (failing) failing.backoffMs = Math.min(failing.backoffMs * 2, settings.maxBackoffMs);
  else failing = { retryAt: now, backoffMs: settings.backoffMs };
  failing.retryAt = now + failing.backoffMs;
  post({ kind: 'failed', reason: error.message });
}

const timer = setInterval(tick, settings.intervalMs);
parentPort?.on('message', (msg: string) => {
  if (msg !== 'close') return;
  clearInterval(timer);
  try {
    checkpoint('TRUNCATE'); // the writers are idle: nothing left in the WAL at exit
    db?.close();
  } catch {
    // a failing disk: the WAL stays, and SQLite replays it at the next open
  }
  post({ kind: 'closed' });
  parentPort?.close();
});

// Loaded: the ticks run from now on (before this, the owner's close() may cancel the thread).
passGate(settings.gate);
post({ kind: 'ready' });
