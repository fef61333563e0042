// The WAL stays bounded (electron/core/store/checkpointer-worker.ts): after a burst of ingestion and an
// idle moment it is back to (nearly) nothing, and under writes that never pause long enough for a
// PASSIVE checkpoint to let SQLite start the WAL over, RESTART checkpoints keep it from growing with
// everything written. Outcomes only, with generous bounded waits: no timed assertions.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect, it } from 'vitest';
import { Checkpointer, type CheckpointerOptions } from '../../../electron/core/store/checkpointer.ts';
import { WAL_SIZE_LIMIT } from '../../../electron/core/store/connection.ts';
import { DATABASE_FILE, openDatabase } from '../../../electron/core/store/database.ts';
import { post, startCore, tempDir } from '../../helpers/core.ts';
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

it('after a burst of ingestion and an idle moment, the WAL is back under 1 MB', async () => {
  const core = await startCore();
  cleanups.push(() => core.dispose());
  const file = path.join(core.dataDir, DATABASE_FILE);
  let largest = 0;
  const sampler = setInterval(() => (largest = Math.max(largest, walSize(file))), 50);
  cleanups.push(() => clearInterval(sampler));

  // 40,000 messages of ~0.5 KB, 500 a request, 4 at a time: the WAL takes every page each commit touches.
  const pad = 'x'.repeat(300);
  let next = 0;
  const lane = async () => {
    while (next < 80) {
      const n = next++;
      const batch = Array.from({ length: 500 }, (_, i) => ({ type: 'track', event: 'Burst', userId: `u_${n * 500 + i}`, properties: { i, pad } }));
      expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
  largest = Math.max(largest, walSize(file));
  expect(largest).toBeGreaterThan(8 * MB); // a burst that grew the WAL well past what an idle store keeps

  await until(() => walSize(file) < MB, 30_000, 'the WAL to be truncated once idle');
});

it('under writes without pauses long enough for PASSIVE checkpoints to catch up, RESTART checkpoints keep the WAL far below what was written', async () => {
  // Small thresholds to see it in a second; the same mechanism as the defaults (128 MB, every 500 ms).
  const settings = { intervalMs: 50, restartAboveBytes: 4 * MB, heavyEveryMs: 100, truncateAboveBytes: 1 * MB, idleMs: 500 };
  const bounded = await sustainedWrites(settings);
  // 80 MB of rows went through the WAL; without RESTART (the control) its file holds nearly all of it.
  expect(bounded.largest).toBeLessThan(bounded.written / 4);
  const control = await sustainedWrites({ ...settings, restartAboveBytes: Number.MAX_SAFE_INTEGER });
  expect(control.largest).toBeGreaterThan(control.written / 2);
});

/**
 * A store's file with a writer as the store's (no automatic checkpoints, the WAL size limit) and a
 * checkpointer; 400 transactions of 200 KB with 1 ms between them (the writer waiting for its next
 * request): the checkpointer catches the WAL between two of them only with a write lock of its own.
 * journal_size_limit (64 MB) only trims a WAL beyond it: this one stays below, so the file's size is
 * its high-water mark. Idle afterwards, the WAL is truncated.
 */
async function sustainedWrites(settings: CheckpointerOptions): Promise<{ written: number; largest: number }> {
  const dir = tempDir('sluice-wal-');
  const db = openDatabase(dir);
  const file = path.join(dir, DATABASE_FILE);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => db.close());
  expect(db.prepare('PRAGMA journal_size_limit').get()).toEqual({ journal_size_limit: WAL_SIZE_LIMIT });
  const checkpointer = new Checkpointer(file, (error) => {
    throw error;
  }, settings);
  cleanups.push(() => checkpointer.close());
  // The thread is running once it has truncated a first idle WAL of 2 MB.
  db.exec(`CREATE TABLE filler (id INTEGER PRIMARY KEY, body BLOB);
    WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < 1000) INSERT INTO filler (body) SELECT randomblob(2000) FROM k`);
  expect(walSize(file)).toBeGreaterThan(MB);
  await until(() => walSize(file) === 0, 30_000, 'the checkpointer to start');

  const insert = db.prepare('INSERT INTO filler (body) VALUES (randomblob(2000))');
  const written = 400 * 100 * 2000;
  let largest = 0;
  for (let round = 0; round < 400; round++) {
    db.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < 100; i++) insert.run();
    db.exec('COMMIT');
    largest = Math.max(largest, walSize(file));
    await sleep(1);
  }
  await until(() => walSize(file) < MB, 30_000, 'the idle WAL to be truncated');
  return { written, largest };
}

it('while a reader holds an old snapshot, the checkpointer never takes the write lock to copy what PASSIVE could not: the writer is never kept waiting, and the WAL is started over once the reader ends', async () => {
  // A RESTART holds the write lock while it copies the frames PASSIVE left; behind a reader's snapshot
  // that was the whole WAL (0.8 s for 166 MB idle; past the writer's 5 s busy timeout under load, so
  // delivery results failed to commit). Here a writer that never waits (busy_timeout 0) counts the
  // commits the checkpointer's lock refused.
  const dir = tempDir('sluice-wal-');
  const db = openDatabase(dir);
  const file = path.join(dir, DATABASE_FILE);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => db.close());
  db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, body BLOB)');
  const reader = openDatabase(dir);
  cleanups.push(() => reader.close());
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM filler').get(); // its snapshot: every frame written from now on stays uncopied

  const insert = db.prepare('INSERT INTO filler (body) VALUES (randomblob(2000))');
  const write = (rows: number) => {
    db.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < rows; i++) insert.run();
    db.exec('COMMIT');
  };
  for (let i = 0; i < 40; i++) write(100); // 8 MB behind the reader, past restartAboveBytes
  const checkpointer = new Checkpointer(file, (error) => {
    throw error;
  }, { intervalMs: 20, restartAboveBytes: 2 * MB, heavyEveryMs: 20, heavyBusyMs: 100, heavyCopyBytes: 1 * MB, truncateAboveBytes: 1 * MB, idleMs: 200 });
  cleanups.push(() => checkpointer.close());

  db.exec('PRAGMA busy_timeout = 0');
  let refused = 0;
  let commits = 0;
  const stopAt = Date.now() + 1_500; // about 15 of the checkpointer's heavy turns
  while (Date.now() < stopAt) {
    try {
      write(1);
      commits++;
    } catch (error) {
      if (!/locked|busy/i.test((error as Error).message)) throw error;
      refused++;
      if (db.isTransaction) db.exec('ROLLBACK');
    }
    await sleep(2);
  }
  expect(commits).toBeGreaterThan(50);
  expect(refused).toBe(0);

  // The reader ends: PASSIVE catches up without the lock, then the WAL is started over (or truncated once idle).
  reader.exec('COMMIT');
  db.exec('PRAGMA busy_timeout = 5000');
  await until(() => walSize(file) < MB, 30_000, 'the WAL to be started over once the reader ended');
});
