// Runs WAL checkpoints on a connection of its own, off the thread that serves requests.
import { parentPort, workerData } from 'node:worker_threads';
import { connect } from './connection.ts';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = connect(file, 'checkpointer');

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
