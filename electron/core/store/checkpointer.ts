import { Worker } from 'node:worker_threads';
import { once } from 'node:events';

/** Keeps the WAL short by checkpointing in a worker thread; see database.ts for why. */
export class Checkpointer {
  readonly #worker: Worker;

  constructor(file: string, intervalMs = 250) {
    this.#worker = new Worker(new URL('./checkpointer-worker.ts', import.meta.url), {
      workerData: { file, intervalMs },
    });
    this.#worker.unref();
  }

  /** Final checkpoint (TRUNCATE) and stop. Call after the writer connection is idle. */
  async close(): Promise<void> {
    const done = once(this.#worker, 'message');
    this.#worker.postMessage('close');
    await Promise.race([done, once(this.#worker, 'exit')]);
    await this.#worker.terminate();
  }
}
