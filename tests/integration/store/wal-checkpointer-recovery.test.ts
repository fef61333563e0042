// The checkpointer comes back (electron/core/store/checkpointer.ts, checkpointer-worker.ts): a
// checkpoint that fails is retried with a backoff, logged once when the failures start and once when
// they end; a thread that dies is restarted, a few times a minute at most, then SQLite's automatic
// checkpoints take over (the core's onFailure).
//
// The fault is a real one: the operating system refuses the checkpointer's writes to the database
// file. The checkpointer runs in a child process whose file size limit (RLIMIT_FSIZE, set with
// `prlimit`) is just above the file's size, so copying new pages into it fails with EFBIG, as a full
// disk fails a write (SQLite says "disk I/O error"); this process writes the WAL without a limit.
// Raising the child's limit (`prlimit --pid`) is the space coming back. Root ignores file modes, and
// a full disk needs a mount of its own: a size limit needs neither. Linux with util-linux only.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import { Checkpointer } from '../../../electron/core/store/checkpointer.ts';
import { DATABASE_FILE, openDatabase } from '../../../electron/core/store/database.ts';
import { tempDir } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

const MB = 1024 * 1024;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function walSize(file: string): number {
  try {
    return fs.statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

/** A migrated store in a fresh folder, its WAL checkpointed into the file; closed and removed after the test. */
function store(): { db: ReturnType<typeof openDatabase>; file: string } {
  const dir = tempDir('sluice-checkpointer-');
  const db = openDatabase(dir);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => db.close());
  return { db, file: path.join(dir, DATABASE_FILE) };
}

/** Adds `mb` MB of rows: the WAL holds them until a checkpoint copies them into the file. */
function fill(db: ReturnType<typeof openDatabase>, mb: number): void {
  db.exec(`CREATE TABLE IF NOT EXISTS filler (body BLOB);
    WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < ${mb * 512}) INSERT INTO filler SELECT randomblob(2000) FROM k`);
}

const hasPrlimit = process.platform === 'linux' && (() => {
  try {
    execFileSync('prlimit', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

it.skipIf(!hasPrlimit)('checkpoints that fail for want of space are retried, logged once, and resume when space returns: the WAL shrinks', async () => {
  const { db, file } = store();
  const limit = fs.statSync(file).size + 64 * 1024;
  // The child: a Checkpointer with the defaults (1 s backoff doubling), its log lines on stdout.
  const code = `
    const { Checkpointer } = await import(${JSON.stringify(new URL('../../../electron/core/store/checkpointer.ts', import.meta.url).href)});
    new Checkpointer(${JSON.stringify(file)}, (error) => console.log('FELL BACK: ' + error.message), { log: (line) => console.log(line) });
    console.log('ready');
    setInterval(() => {}, 60_000);`;
  const child: ChildProcess = spawn('prlimit', [`--fsize=${limit}:`, process.execPath, '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => child.kill());
  const lines: string[] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString();
    const complete = text.split('\n');
    partial = complete.pop()!;
    lines.push(...complete);
  });
  await until(() => lines.includes('ready'), 30_000, 'the child to start');

  fill(db, 8);
  expect(walSize(file)).toBeGreaterThan(8 * MB);
  await until(() => lines.some((line) => line.startsWith('sluice: WAL checkpoints failing')), 30_000, 'a failed checkpoint');
  expect(lines).toEqual(['ready', 'sluice: WAL checkpoints failing (disk I/O error); retrying']);

  // Retries 1 s and 3 s after the first failure fail again, quietly; the thread stays (no restart, no fallback).
  await sleep(3_500);
  expect(lines).toEqual(['ready', 'sluice: WAL checkpoints failing (disk I/O error); retrying']);
  expect(walSize(file)).toBeGreaterThan(8 * MB);

  execFileSync('prlimit', ['--pid', String(child.pid), '--fsize=unlimited:']); // the space returns
  await until(() => lines.length > 2, 60_000, 'checkpoints to resume');
  expect(lines.slice(2)).toEqual([expect.stringMatching(/^sluice: WAL checkpoints resumed \(after \d+ failed tries over \d+ s\)$/)]);
  expect(Number(/after (\d+)/.exec(lines[2]!)![1])).toBeGreaterThanOrEqual(3);
  // Idle since: the WAL is copied into the file and truncated.
  await until(() => walSize(file) < MB, 30_000, 'the WAL to shrink');
  expect((db.prepare('SELECT count(*) AS n FROM filler').get() as { n: number }).n).toBe(8 * 512);
});

it('a checkpointer thread that dies is restarted, and checkpoints again; past the restarts a minute allows, SQLite takes over', async () => {
  const { db, file } = store();
  const workers: Worker[] = [];
  const onWorker = (worker: Worker) => workers.push(worker);
  process.on('worker', onWorker);
  cleanups.push(() => process.off('worker', onWorker));
  const lines: string[] = [];
  const failures: Error[] = [];
  const checkpointer = new Checkpointer(file, (error) => failures.push(error), {
    log: (line) => lines.push(line),
    maxRestartsPerMinute: 2,
    restartDelayMs: 50,
    intervalMs: 50,
    idleMs: 300,
    truncateAboveBytes: 1 * MB,
  });
  cleanups.push(() => checkpointer.close());
  // Running: a WAL of 2 MB is truncated once idle.
  fill(db, 2);
  await until(() => walSize(file) === 0, 30_000, 'checkpoints');
  expect(workers).toHaveLength(1);

  for (const [i, delay] of [[1, 50], [2, 100]] as const) {
    await workers[i - 1]!.terminate();
    await until(() => workers.length === i + 1, 10_000, `restart ${i}`);
    expect(lines.at(-1)).toMatch(new RegExp(`^sluice: the checkpointer stopped \\(exit code \\d+\\); restarting in ${delay} ms$`));
    // The new thread checkpoints.
    fill(db, 2);
    expect(walSize(file)).toBeGreaterThan(MB);
    await until(() => walSize(file) === 0, 30_000, `checkpoints after restart ${i}`);
  }
  expect(checkpointer.restarts).toBe(2);
  expect(failures).toEqual([]);

  await workers[2]!.terminate(); // a third death within the minute
  await until(() => failures.length > 0, 10_000, 'the fallback');
  expect(failures.map((error) => error.message)).toEqual([expect.stringMatching(/^the checkpointer stopped 3 times within a minute \(last: exit code \d+\)$/)]);
  await sleep(300);
  expect(workers).toHaveLength(3); // not restarted again
  expect(lines).toHaveLength(2);
});
