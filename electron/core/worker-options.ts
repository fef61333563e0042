import type { WorkerOptions } from 'node:worker_threads';

/**
 * The Node flags the core's worker threads start with. A worker inherits `process.execArgv` (Node
 * drops the per-process ones itself), but `--input-type` — a script given with `node
 * --input-type=module -e …`, as a one-liner may use sluice/testing — makes it refuse to start
 * (ERR_INPUT_TYPE_NOT_ALLOWED): then the flags are given without it. Otherwise nothing is given: an
 * explicit list is checked strictly (a `node --test` child's own flags would be refused).
 */
export function workerExecArgv(): Pick<WorkerOptions, 'execArgv'> {
  if (!process.execArgv.some((flag) => flag.startsWith('--input-type'))) return {};
  return { execArgv: process.execArgv.filter((flag, i, all) => !flag.startsWith('--input-type') && all[i - 1] !== '--input-type') };
}

/**
 * For tests: holds the threads that close() may cancel (the store's writer, the checkpointer, the
 * store check) while they load — their code loaded, before the writer opens the store and before any
 * thread begins its work — until the test opens it: a thread still loading, made
 * observable without timing anything. Each thread gets `cells` in its workerData and calls passGate.
 */
export class LoadGate {
  /** [0]: 1 once open; [1]: threads that reached it; [2]: threads that went through. */
  readonly cells = new Int32Array(new SharedArrayBuffer(12));

  open(): void {
    Atomics.store(this.cells, 0, 1);
    Atomics.notify(this.cells, 0);
  }

  /** Threads that reached it (those not `passed` are held there, or were ended there). */
  get reached(): number {
    return Atomics.load(this.cells, 1);
  }

  /** Threads that finished loading through it. */
  get passed(): number {
    return Atomics.load(this.cells, 2);
  }
}

/** In a thread, before it opens the store or begins its work: waits while the gate (if any) is shut. */
export function passGate(cells: Int32Array | undefined): void {
  if (!cells) return;
  Atomics.add(cells, 1, 1);
  Atomics.wait(cells, 0, 0);
  Atomics.add(cells, 2, 1);
}

/**
 * Who has a thread's store connection: the thread claims it before it opens the store, the owner's
 * close() before it ends a thread still loading. A thread the owner claimed first opens nothing and
 * ends itself; then the owner need not wait for it (it holds nothing of the data folder).
 */
export const CLAIM = { loading: 0, opened: 1, cancelled: 2 } as const;

/** A new claim cell, for a thread's workerData. */
export function claimCell(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** In the thread: true if it may open the store (the owner had not cancelled it). */
export function claimToOpen(cell: Int32Array): boolean {
  return Atomics.compareExchange(cell, 0, CLAIM.loading, CLAIM.opened) === CLAIM.loading;
}

/** In the owner: true if the thread had not opened the store and now never will. */
export function claimToCancel(cell: Int32Array): boolean {
  return Atomics.compareExchange(cell, 0, CLAIM.loading, CLAIM.cancelled) === CLAIM.loading;
}
