// Runs WAL checkpoints on a connection of its own, off the thread that serves requests.
import { DatabaseSync } from './sqlite.ts';
import { parentPort, workerData } from 'node:worker_threads';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new DatabaseSync(file);
db.exec('PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;');

function checkpoint(mode: 'PASSIVE' | 'TRUNCATE'): void {
  try {
    db.prepare(`PRAGMA wal_checkpoint(${mode})`).get();
  } catch (error) {
    // Busy: the next tick tries again (a checkpoint is never needed for correctness). Anything
    // else ends the thread, and the owner turns automatic checkpoints back on.
    if (!/busy|locked/i.test((error as Error).message)) throw error;
  }
}

const timer = setInterval(() => checkpoint('PASSIVE'), intervalMs);
parentPort?.on('message', (msg: string) => {
  if (msg === 'close') {
    clearInterval(timer);
    checkpoint('TRUNCATE');
    db.close();
    parentPort?.postMessage('closed');
    parentPort?.close();
  }
});
