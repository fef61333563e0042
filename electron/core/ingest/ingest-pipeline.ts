import { Worker } from 'node:worker_threads';
import { IngestError } from './ingest-error.ts';
import type { CommittedRequest, FromIngestWorker, ToIngestWorker } from './ingest-protocol.ts';
import type { IngestJob } from './prepare-request.ts';

interface Waiting {
  resolve: (committed: CommittedRequest) => void;
  reject: (error: Error) => void;
}

/**
 * The request thread's handle on the ingest worker (ingest-worker.ts). `submit` resolves with the
 * request's stored message ids and statuses once they are durable, or rejects with the IngestError
 * to answer.
 */
export class IngestPipeline {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();
  readonly #onCommitted: (committed: CommittedRequest[]) => void;
  #nextId = 1;
  #closed = false;
  #failure: Error | undefined;
  #whenClosed: (() => void) | undefined;

  constructor(file: string, onCommitted: (committed: CommittedRequest[]) => void) {
    this.#onCommitted = onCommitted;
    this.#worker = new Worker(new URL('./ingest-worker.ts', import.meta.url), { workerData: { file } });
    this.#worker.on('message', (message: FromIngestWorker) => this.#receive(message));
    this.#worker.on('error', (error) => this.#fail(new Error(`the ingest worker failed: ${error.message}`)));
    this.#worker.on('exit', (code) => this.#fail(new Error(`the ingest worker stopped (exit code ${code})`)));
  }

  /** Tells the worker which write keys exist (for requests that carry the key in the body). */
  setWriteKeys(writeKeys: [string, number][]): void {
    this.#post({ kind: 'sources', writeKeys });
  }

  submit(job: Omit<IngestJob, 'id'>): Promise<CommittedRequest> {
    if (this.#closed) return Promise.reject(new Error('ingestion is closed'));
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    // Hand the body over without a copy when it owns its memory; small bodies share node's pool.
    const body = job.body;
    const owns = body.byteOffset === 0 && body.buffer.byteLength === body.byteLength;
    const transferable = owns ? body : new Uint8Array(body);
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#worker.postMessage({ kind: 'job', job: { ...job, id, body: transferable } } satisfies ToIngestWorker, [
        transferable.buffer as ArrayBuffer,
      ]);
    });
  }

  /** Waits until every submitted request is committed, then stops the worker. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#failure) return;
    await new Promise<void>((resolve) => {
      this.#whenClosed = resolve;
      this.#post({ kind: 'close' });
    });
    await this.#worker.terminate();
  }

  #post(message: ToIngestWorker): void {
    this.#worker.postMessage(message);
  }

  #receive(message: FromIngestWorker): void {
    switch (message.kind) {
      case 'committed': {
        for (const result of message.results) this.#take(result.jobId)?.resolve(result);
        this.#onCommitted(message.results);
        return;
      }
      case 'refused':
        this.#take(message.jobId)?.reject(new IngestError(message.status, message.code, message.message));
        return;
      case 'failed':
        for (const id of message.jobIds) this.#take(id)?.reject(new Error(`could not store the request: ${message.message}`));
        return;
      case 'closed':
        this.#whenClosed?.();
    }
  }

  #take(id: number): Waiting | undefined {
    const waiting = this.#waiting.get(id);
    this.#waiting.delete(id);
    return waiting;
  }

  #fail(error: Error): void {
    if (this.#closed && this.#waiting.size === 0) return;
    this.#failure ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
    this.#whenClosed?.();
  }
}
