import { claimCell, claimToCancel, workerExecArgv } from '../worker-options.ts';
import { Worker } from 'node:worker_threads';
import { storeFailure } from '../store/store-failure.ts';
import type { BodiesRequest, FromWriter, IngestJob, PlanRule, PreparedBodies, Refusal, SourceKey, ToWriter, WriteOp, WriteOutcome, WriterSetup } from './protocol.ts';
import type { CommittedRequest } from '../store/stored-request.ts';
import type { DeliveryResult, Route } from '../store/delivery-types.ts';
import { toColumns } from './result-columns.ts';

/** A request the writer thread's parser refused (ingest/prepare-request.ts), as it refused it. */
export class JobRefused extends Error {
  readonly refusal: Refusal;

  constructor(refusal: Refusal) {
    super(refusal.message);
    this.name = 'JobRefused';
    this.refusal = refusal;
  }
}

/** The writer takes no request now: it is closing (Sluice is stopping), or restarting after its thread died. */
export class WriterUnavailable extends Error {
  readonly reason: 'closing' | 'restarting';

  constructor(reason: 'closing' | 'restarting', message: string) {
    super(message);
    this.name = 'WriterUnavailable';
    this.reason = reason;
  }
}

interface Waiting {
  resolve: (committed: CommittedRequest) => void;
  reject: (error: Error) => void;
}

/**
 * The main thread's handle on the store's writer thread (writer-worker.ts). `submit` resolves with the
 * request's stored message ids and statuses once they are durable, or rejects with what kept it out:
 * a StoreFailure (store/store-failure.ts), the writer thread's refusal (JobRefused), the writer closing
 * or restarting (WriterUnavailable); each host makes its own answer of these (ingestion's:
 * ingest/ingest-error.ts). Should the worker die, the requests it held fail (unacknowledged, so clients retry) and
 * a new worker takes over.
 */
export class StoreWriter {
  readonly #file: string;
  /** Whether the worker indexes messages for search (store/search-index.ts). */
  readonly #searchIndex: boolean;
  /** Tests only: holds the worker while it loads (worker-options.ts LoadGate). */
  readonly #gate: Int32Array | undefined;
  /** Whether its connection syncs the store to disk (store/connection.ts Durability). */
  readonly #durable: boolean;
  readonly #spare: boolean;
  readonly #waiting = new Map<number, Waiting>();
  readonly #waitingResults = new Map<number, { resolve: (outcome?: WriteOutcome) => void; reject: (error: Error) => void }>();
  readonly #waitingBodies = new Map<number, (prepared: PreparedBodies | null) => void>();
  readonly #onCommitted: (committed: CommittedRequest[]) => void;
  readonly #onRestarted: (() => void) | undefined;
  readonly #onReady: (() => void) | undefined;
  #worker: Worker;
  /** The current worker's claim on its store connection (worker-options.ts CLAIM). */
  #claim = claimCell();
  #writeKeys: SourceKey[] = [];
  #routes: Route[] = [];
  #plans: PlanRule[] = [];
  #autoCheckpoint = false;
  /** False between a worker's death and its replacement: requests are refused, not queued into the void. */
  #alive = true;
  /** The worker has loaded (opened the store, prepared its statements) and handles what is sent to it. */
  #ready = false;
  #restarts: number[] = [];
  #nextId = 1;
  #closed = false;
  #whenClosed: (() => void) | undefined;
  #lastCommitAt = -Infinity;

  /**
   * `onRestarted` runs when a new worker has replaced a dead one: writes the old one committed but
   * never acknowledged (it died in between) are in the store, and nobody was told.
   */
  constructor(
    file: string,
    onCommitted: (committed: CommittedRequest[]) => void,
    onRestarted?: () => void,
    options: {
      searchIndex?: boolean;
      /** false: a store not kept, never synced to disk (store/connection.ts Durability). */
      durable?: boolean;
      /** Tests only: holds the worker while it loads (worker-options.ts LoadGate). */
      gate?: Int32Array;
      /** Each worker has loaded (the first one, and each that replaces a dead one). */
      onReady?: () => void;
      /**
       * Keep a spare thread loaded for the next writer of this process (sluice/testing: a relay per test,
       * each of whose first message would otherwise wait for a new thread to load its code).
       */
      spare?: boolean;
    } = {},
  ) {
    this.#file = file;
    this.#searchIndex = options.searchIndex ?? true;
    this.#gate = options.gate;
    this.#durable = options.durable ?? true;
    this.#onReady = options.onReady;
    this.#spare = options.spare ?? false;
    this.#onCommitted = onCommitted;
    this.#onRestarted = onRestarted;
    this.#worker = this.#spawn();
  }

  /** The writer thread's id (worker_threads threadId): which thread writes. */
  get threadId(): number {
    return this.#worker.threadId;
  }

  /** When the writer last committed something (performance.now()): background work rests while it is busy. */
  get lastCommitAt(): number {
    return this.#lastCommitAt;
  }

  /** Tells the worker which write keys exist (for requests that carry the key in the body), and the origins each source accepts. */
  setWriteKeys(writeKeys: SourceKey[]): void {
    this.#writeKeys = writeKeys;
    this.#worker.postMessage({ kind: 'sources', writeKeys } satisfies ToWriter);
  }

  /** The checkpointer thread is gone: let the writer's connection checkpoint by itself. */
  useAutomaticCheckpoints(): void {
    this.#autoCheckpoint = true;
    this.#worker.postMessage({ kind: 'autocheckpoint' } satisfies ToWriter);
  }

  /** Tells the worker which destinations each source's new messages go to. */
  setRoutes(routes: Route[]): void {
    this.#routes = routes;
    this.#worker.postMessage({ kind: 'routes', routes } satisfies ToWriter);
  }

  /** Tells the worker which tracking plans check each source's new messages (plans/plan-checks.ts). */
  setPlans(plans: PlanRule[]): void {
    this.#plans = plans;
    this.#worker.postMessage({ kind: 'plans', plans } satisfies ToWriter);
  }

  /** Commits delivery results (the deliveries' new state and their attempts); resolves once durable. */
  commitResults(results: DeliveryResult[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the store is closed'));
    if (!this.#alive) return Promise.reject(unavailable());
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waitingResults.set(id, { resolve: () => resolve(), reject });
      this.#worker.postMessage({ kind: 'results', id, columns: toColumns(results) } satisfies ToWriter);
    });
  }

  /**
   * Has the writer build webhook bodies for queued deliveries (delivery/prepare-bodies.ts). Never
   * rejects: null when the writer is closed or gone, and the engine builds the bodies itself.
   */
  prepareBodies(request: BodiesRequest): Promise<PreparedBodies | null> {
    if (this.#closed || !this.#alive) return Promise.resolve(null);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#waitingBodies.set(id, resolve);
      this.#worker.postMessage({ kind: 'bodies', id, ...request } satisfies ToWriter);
    });
  }

  /** Runs one write (deliveries on request, retry now, cancel, deletion request) in the writer. */
  write(op: WriteOp): Promise<WriteOutcome> {
    if (this.#closed) return Promise.reject(new Error('the store is closed'));
    if (!this.#alive) return Promise.reject(unavailable());
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waitingResults.set(id, { resolve: (outcome) => resolve(outcome!), reject });
      this.#worker.postMessage({ kind: 'write', id, op } satisfies ToWriter);
    });
  }

  submit(job: Omit<IngestJob, 'id'>): Promise<CommittedRequest> {
    if (this.#closed) return Promise.reject(new WriterUnavailable('closing', 'Sluice is shutting down; retry later'));
    if (!this.#alive) return Promise.reject(unavailable());
    const id = this.#nextId++;
    // Hand the body over without a copy when it owns its memory; small bodies share node's pool.
    const body = job.body;
    const owns = body.byteOffset === 0 && body.buffer.byteLength === body.byteLength;
    const transferable = owns ? body : new Uint8Array(body);
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      try {
        this.#worker.postMessage({ kind: 'job', job: { ...job, id, body: transferable } } satisfies ToWriter, [
          transferable.buffer as ArrayBuffer,
        ]);
      } catch (error) {
        this.#waiting.delete(id);
        reject(error as Error);
      }
    });
  }

  /**
   * Waits until every submitted request is committed, then stops the worker. A worker still loading
   * that was handed nothing to store is cancelled instead (a relay closed right after its start does
   * not wait for the writer to load): it has written nothing, and what it was told meanwhile — write
   * keys, routes, plans — is the store's settings, kept by the main thread.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (!this.#alive) return;
    if (!this.#ready && this.#waiting.size === 0 && this.#waitingResults.size === 0 && this.#waitingBodies.size === 0) {
      // Not opened yet: it never will (it ends itself), so nothing of the folder waits on its end.
      if (claimToCancel(this.#claim)) {
        void this.#worker.terminate();
        return;
      }
      await this.#worker.terminate(); // its connection closes with the thread (an open transaction rolls back)
      return;
    }
    await new Promise<void>((resolve) => {
      this.#whenClosed = resolve;
      this.#worker.postMessage({ kind: 'close' } satisfies ToWriter);
    });
    await this.#worker.terminate();
  }

  #spawn(): Worker {
    const setup: WriterSetup = { file: this.#file, searchIndex: this.#searchIndex, durable: this.#durable, gate: this.#gate, claim: (this.#claim = claimCell()) };
    const worker = takeSpare(setup) ?? writerThread(setup);
    if (this.#spare) keepSpare();
    worker.on('message', (message: FromWriter) => this.#receive(message));
    worker.on('error', (error) => console.error('sluice: the store writer failed:', error));
    worker.on('exit', (code) => this.#onExit(worker, code));
    this.#alive = true;
    this.#ready = false;
    if (this.#writeKeys.length > 0) worker.postMessage({ kind: 'sources', writeKeys: this.#writeKeys } satisfies ToWriter);
    if (this.#routes.length > 0) worker.postMessage({ kind: 'routes', routes: this.#routes } satisfies ToWriter);
    if (this.#plans.length > 0) worker.postMessage({ kind: 'plans', plans: this.#plans } satisfies ToWriter);
    if (this.#autoCheckpoint) worker.postMessage({ kind: 'autocheckpoint' } satisfies ToWriter);
    return worker;
  }

  #onExit(worker: Worker, code: number): void {
    if (worker !== this.#worker) return;
    this.#alive = false;
    const error = new Error(`the store writer stopped (exit code ${code}); the request was not stored`);
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    for (const waiting of this.#waitingResults.values()) waiting.reject(error);
    for (const resolve of this.#waitingBodies.values()) resolve(null);
    this.#waitingBodies.clear();
    this.#waiting.clear();
    this.#waitingResults.clear();
    if (this.#closed) {
      this.#whenClosed?.();
      return;
    }
    // Restart, but not in a tight loop when something is broken for good (e.g. an unreadable store).
    const now = Date.now();
    this.#restarts = [...this.#restarts.filter((t) => now - t < 60_000), now];
    const delay = Math.min(100 * 2 ** (this.#restarts.length - 1), 30_000);
    console.error(`sluice: the store writer stopped (exit code ${code}); restarting in ${delay} ms`);
    setTimeout(() => {
      if (this.#closed) return;
      this.#worker = this.#spawn();
      this.#onRestarted?.();
    }, delay).unref();
  }

  #receive(message: FromWriter): void {
    if (message.kind === 'committed' || message.kind === 'results-committed' || message.kind === 'written') this.#lastCommitAt = performance.now();
    switch (message.kind) {
      case 'ready':
        this.#ready = true;
        this.#onReady?.();
        return;
      case 'committed': {
        for (const result of message.results) this.#take(result.jobId)?.resolve(result);
        this.#onCommitted(message.results);
        return;
      }
      case 'refused':
        this.#take(message.jobId)?.reject(new JobRefused({ status: message.status, code: message.code, message: message.message, ...(message.preview !== undefined ? { preview: message.preview } : {}), ...(message.jsonError ? { jsonError: message.jsonError } : {}) }));
        return;
      case 'failed':
        for (const failure of message.failures) {
          if (failure.kind === 'job') {
            // A damaged store or a full disk is a StoreFailure saying what to do; anything else an Error
            // with SQLite's message (ingestion answers it 500 "Sluice could not store the request: <this>").
            this.#take(failure.id)?.reject(storeFailure(failure.message, this.#file));
            continue;
          }
          const what = failure.kind === 'results' ? 'delivery results' : OP_NAMES[failure.op];
          this.#waitingResults.get(failure.id)?.reject(new Error(`could not store ${what}: ${failure.message}`));
          this.#waitingResults.delete(failure.id);
        }
        return;
      case 'written':
        this.#waitingResults.get(message.id)?.resolve(message.outcome);
        this.#waitingResults.delete(message.id);
        return;
      case 'results-committed':
        for (const id of message.ids) {
          this.#waitingResults.get(id)?.resolve();
          this.#waitingResults.delete(id);
        }
        return;
      case 'bodies': {
        const { kind: _kind, id, ...prepared } = message;
        this.#waitingBodies.get(id)?.(prepared);
        this.#waitingBodies.delete(id);
        return;
      }
      case 'closed':
        for (const resolve of this.#waitingBodies.values()) resolve(null);
        this.#waitingBodies.clear();
        this.#whenClosed?.();
    }
  }

  #take(id: number): Waiting | undefined {
    const waiting = this.#waiting.get(id);
    this.#waiting.delete(id);
    return waiting;
  }
}

function writerThread(workerData: WriterSetup | { spare: true }): Worker {
  return new Worker(new URL('../writer-worker.ts', import.meta.url), { workerData, ...workerExecArgv() });
}

/**
 * A writer thread that has loaded its code and waits to be told which store to open (the process's
 * one spare; `spare` in StoreWriter's options keeps it). It does not keep the process alive, and one
 * that failed to load is dropped: the next writer starts a thread of its own.
 */
let spare: { worker: Worker; gone: boolean } | undefined;

function keepSpare(): void {
  if (spare) return;
  const kept = { worker: writerThread({ spare: true }), gone: false };
  kept.worker.unref();
  kept.worker.on('error', () => (kept.gone = true));
  kept.worker.on('exit', () => {
    kept.gone = true;
    if (spare === kept) spare = undefined;
  });
  spare = kept;
}

/** The spare thread, told to open `setup`'s store; undefined when there is none. */
function takeSpare(setup: WriterSetup): Worker | undefined {
  const taken = spare;
  spare = undefined;
  if (!taken || taken.gone) return undefined;
  taken.worker.removeAllListeners('error').removeAllListeners('exit');
  taken.worker.ref();
  taken.worker.postMessage({ kind: 'open', setup } satisfies ToWriter);
  return taken.worker;
}

/** What each write op stores, for its error sentence. */
const OP_NAMES: Record<WriteOp['op'], string> = {
  createDeliveries: 'the new deliveries',
  retryNow: 'the retry',
  cancel: 'the cancellation',
  deletionRequest: 'the deletion request',
  reset: 'the reset',
  recheck: 'the re-checked violations',
  prune: 'the pruning',
  removeMessages: 'the clearing',
  pin: 'the pin',
  vacuum: 'the vacuum',
  mergeIndexes: 'the merge of the search indexes',
  'audience.save': 'the audience',
  'audience.delete': 'the audience deletion',
  'audience.fold': 'the user profiles',
  'audience.preview': 'the audience preview',
  'audience.sync': 'the audience sync',
};

function unavailable(): WriterUnavailable {
  return new WriterUnavailable('restarting', "Sluice's store writer is restarting; retry shortly");
}
