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
