/**
 * The Node flags the core's worker threads start with: the process's own, less those a worker cannot
 * take. A worker inherits `process.execArgv`, and `--input-type` (a script given with `node
 * --input-type=module -e …`, as a test runner or a one-liner may use sluice/testing) makes it refuse
 * to start (ERR_INPUT_TYPE_NOT_ALLOWED): the store's writer would never run.
 */
export function workerExecArgv(): string[] {
  return process.execArgv.filter((flag, i, all) => !flag.startsWith('--input-type') && !(all[i - 1] === '--input-type'));
}
