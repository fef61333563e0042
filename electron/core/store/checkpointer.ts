import { workerExecArgv } from '../worker-options.ts';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';

/**
 * Keeps the WAL short by checkpointing in a worker thread; see database.ts for why. Should the
 * thread fail, the writer's connections fall back to SQLite's automatic checkpoints (onFailure), so
 * the WAL cannot grow without bound.
 */
export class Checkpointer {
  readonly #worker: Worker;
  #exited = false;
  #closing = false;

  constructor(file: string, onFailure: (error: Error) => void, intervalMs = 250) {
    this.#worker = new Worker(new URL('./checkpointer-worker.ts', import.meta.url), {
      workerData: { file, intervalMs },
      ...workerExecArgv(),
    });
    this.#worker.unref();
    this.#worker.on('error', (error) => onFailure(error));
    this.#worker.on('exit', (code) => {
      this.#exited = true;
      if (code !== 0 && !this.#closing) onFailure(new Error(`the checkpointer stopped (exit code ${code})`));
    });
  }

  /** Final checkpoint (TRUNCATE) and stop. Call after the writers are idle. */
  async close(): Promise<void> {
    if (this.#exited) return;
    this.#closing = true;
    const done = Promise.race([once(this.#worker, 'message'), once(this.#worker, 'exit')]);
    this.#worker.postMessage('close');
    const timeout = new Promise((resolve) => setTimeout(resolve, 5_000).unref());
    await Promise.race([done, timeout]);
    await this.#worker.terminate();
  }
}
