// The background check's thread (its owner: store-check.ts; the SQL: store/store-walk.ts). A read-only
// connection of its own, one slice of the walk each time the owner asks: the owner decides when (it
// rests while the writer is busy), this thread only reads. A slice aims at `sliceMs` of work: the rows
// it reads go up or down with how long the last slices took.
import { parentPort, workerData } from 'node:worker_threads';
import { StoreWalk } from '../store/store-walk.ts';
import { openReadOnly } from '../store/connection.ts';
import type { FromStoreCheck, ToStoreCheck } from './store-check.ts';
import { passGate } from '../worker-options.ts';

const { file, sliceMs, gate } = workerData as { file: string; sliceMs: number; gate?: Int32Array };
const port = parentPort!;
const MIN_ROWS = 16;
const MAX_ROWS = 20_000;
let rows = 256;
let db: ReturnType<typeof openReadOnly> | null = null;
let walk: StoreWalk | null = null;

port.on('message', (message: ToStoreCheck) => {
  if (message.kind === 'close') {
    db?.close();
    port.close();
    return;
  }
  const started = performance.now();
  let reply: FromStoreCheck;
  try {
    db ??= openReadOnly(file);
    walk ??= new StoreWalk(db);
    const slice = walk.slice(message.position, rows);
    const ms = performance.now() - started;
    if (slice.rows >= rows && ms < sliceMs / 2) rows = Math.min(rows * 2, MAX_ROWS);
    else if (ms > sliceMs * 2) rows = Math.max(Math.floor(rows / 2), MIN_ROWS);
    reply = { kind: 'slice', ...slice, ms, tables: walk.tables().length };
  } catch (error) {
    // Not damage (that is a finding): busy, an I/O error, a store replaced under it. The next try opens afresh.
    try {
      db?.close();
    } catch {
      // already unusable
    }
    db = null;
    walk = null;
    reply = { kind: 'failed', message: (error as Error).message, ms: performance.now() - started };
  }
  port.postMessage(reply);
});

// Loaded: slices are read from now on (before this, the owner's close() may cancel the thread).
passGate(gate);
port.postMessage({ kind: 'ready' } satisfies FromStoreCheck);
