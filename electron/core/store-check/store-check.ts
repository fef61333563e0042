// The check of the whole store in the background, after start. The start check reads all of a small
// store, but only the ends of one over 32 MiB (store/integrity.ts: start-up stays fast), so damage in
// the middle of a big store — pages overwritten while Sluice was stopped — would otherwise go unseen
// until a request ran into it. This reads every table and index (store/store-walk.ts) in a worker
// thread with its own read-only connection (store-check-worker.ts), a slice at a time: off the thread
// that serves requests and off the writer, and it never takes the write lock. The policy is here:
//   - it begins a few seconds after start, and yields to the writer as the writer's own background
//     work does (writer/index-scheduler.ts restAfter): while the writer commits, a slice of t ms is
//     followed by a rest of 9t (the check takes at most a tenth of the time); idle, it goes on at once;
//   - the round's progress is kept beside the store (check-progress.ts): a restart resumes it;
//   - damage found is reported (`onFound`: the core notes it beside the store, which every outlet
//     follows) and the round ends; so does a round that read everything.
import { Worker } from 'node:worker_threads';
import type { StoreCheckView } from '../../../shared/storage.ts';
import type { Clock } from '../clock.ts';
import type { WalkPosition, WalkSlice } from '../store/store-walk.ts';
import { workerExecArgv } from '../worker-options.ts';
import { restAfter } from '../writer/index-scheduler.ts';
import { readProgress, removeProgress, saveProgress, type CheckProgress } from './check-progress.ts';

/** What the owner asks of the thread. */
export type ToStoreCheck = { kind: 'slice'; position: WalkPosition | null } | { kind: 'close' };
/** What the thread answers: a slice read (what it found, where the next starts), or a failure that is not damage. */
export type FromStoreCheck =
  | { kind: 'ready' }
  | ({ kind: 'slice'; tables: number } & WalkSlice & { ms: number })
  | { kind: 'failed'; message: string; ms: number };

export interface StoreCheckTiming {
  /** The first slice, this long after start (start-up is not slowed down). */
  startAfterMs: number;
  /** The work a slice aims at; its rows follow. */
  sliceMs: number;
  /** Progress is saved at most this often (and when Sluice stops). */
  saveEveryMs: number;
  /** After a failure that is not damage (busy, I/O), the next try waits this long. */
  retryMs: number;
  /** Failures in a row after which the check stops for this run (saying so). */
  maxFailures: number;
}

export const DEFAULT_STORE_CHECK: StoreCheckTiming = { startAfterMs: 3_000, sliceMs: 10, saveEveryMs: 2_000, retryMs: 10_000, maxFailures: 6 };

export interface StoreCheckOptions {
  file: string;
  clock: Clock;
  /** The writer's activity: when it last committed (performance.now()). */
  writer: { readonly lastCommitAt: number };
  /** The start read the whole store already (a small store, or one noted damaged): nothing to do. */
  checkedAtStart: boolean;
  /** Damage found: SQLite's finding, naming the table or index and where. */
  onFound: (finding: string) => void;
  /** The check began, ended or stopped. */
  onState: (view: StoreCheckView) => void;
  timing?: Partial<StoreCheckTiming>;
  log?: (line: string) => void;
  /** Tests only: holds the thread while it loads (worker-options.ts LoadGate). */
  gate?: Int32Array;
}

export class StoreCheck {
  readonly #o: StoreCheckOptions;
  readonly #timing: StoreCheckTiming;
  readonly #log: (line: string) => void;
  #view: StoreCheckView;
  #position: WalkPosition | null = null;
  #worker: Worker | null = null;
  /** The thread has loaded: a slice sent to it is being read (before, close() cancels the thread). */
  #ready = false;
  #timer: NodeJS.Timeout | undefined;
  /** Set while a slice is out in the thread: it resolves when the answer is in. */
  #inFlight: { done: () => void; promise: Promise<void> } | null = null;
  #savedAt = 0;
  #failures = 0;
  #closed = false;

  constructor(options: StoreCheckOptions) {
    this.#o = options;
    this.#timing = { ...DEFAULT_STORE_CHECK, ...options.timing };
    this.#log = options.log ?? ((line) => console.error(line));
    const now = options.clock.now();
    if (options.checkedAtStart) {
      removeProgress(options.file); // all of it was read: a round under way has nothing left to do
      this.#view = { state: 'sound', by: 'start', startedAt: now, finishedAt: now, rows: 0, tables: { checked: 0, total: null }, resumed: false };
      return;
    }
    const kept = readProgress(options.file);
    this.#position = kept?.position ?? null;
    this.#view = {
      state: 'waiting',
      by: 'background',
      startedAt: kept?.startedAt ?? null,
      finishedAt: null,
      rows: kept?.rows ?? 0,
      tables: { checked: kept?.tablesChecked ?? 0, total: null },
      resumed: kept !== null,
    };
  }

  view(): StoreCheckView {
    return structuredClone(this.#view);
  }

  /** Begins (after `startAfterMs`), unless the start checked everything already. */
  start(): void {
    if (this.#view.state !== 'waiting' || this.#closed) return;
    this.#later(this.#timing.startAfterMs);
  }

  /** Begins a new round now, unless one is under way (one that ended, or stopped, reads everything again). */
  checkAgain(): void {
    if (this.#closed || this.#view.state === 'checking') return;
    clearTimeout(this.#timer);
    this.#position = null;
    this.#failures = 0;
    this.#view = { state: 'waiting', by: 'background', startedAt: null, finishedAt: null, rows: 0, tables: { checked: 0, total: this.#view.tables.total }, resumed: false };
    this.#next();
  }

  /**
   * Stops: a slice under way is let finish (its progress counts), the round's progress is saved. A
   * thread still loading is not waited for: its slice has not begun.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    if (this.#inFlight && this.#ready) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#inFlight.promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, 2_000).unref()))]);
      clearTimeout(timer);
    }
    if (this.#view.state === 'checking') this.#save();
    await this.#stopWorker();
  }

  #later(ms: number): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#next(), ms);
    this.#timer.unref();
  }

  #next(): void {
    if (this.#closed) return;
    if (this.#view.state === 'waiting') {
      this.#view.state = 'checking';
      this.#view.startedAt ??= this.#o.clock.now();
      this.#save();
      this.#o.onState(this.view());
    }
    this.#worker ??= this.#spawn();
    let done!: () => void;
    const promise = new Promise<void>((resolve) => (done = resolve));
    this.#inFlight = { done, promise };
    this.#worker.postMessage({ kind: 'slice', position: this.#position } satisfies ToStoreCheck);
  }

  #spawn(): Worker {
    const worker = new Worker(new URL('./store-check-worker.ts', import.meta.url), {
      workerData: { file: this.#o.file, sliceMs: this.#timing.sliceMs, gate: this.#o.gate },
      ...workerExecArgv(),
    });
    worker.unref();
    this.#ready = false;
    worker.on('message', (message: FromStoreCheck) => {
      if (message.kind !== 'ready') this.#receive(message);
      else if (worker === this.#worker) this.#ready = true;
    });
    worker.on('error', (error) => this.#failed(error.message, worker));
    worker.on('exit', (code) => {
      if (worker === this.#worker && !this.#closed) this.#failed(`the check's thread stopped (exit code ${code})`, worker);
    });
    return worker;
  }

  #receive(message: Exclude<FromStoreCheck, { kind: 'ready' }>): void {
    const inFlight = this.#inFlight;
    this.#inFlight = null;
    if (message.kind === 'failed') {
      this.#failed(message.message, null);
      inFlight?.done();
      return;
    }
    this.#failures = 0;
    this.#view.rows += message.rows;
    this.#view.tables.total = message.tables;
    if (message.tableDone) this.#view.tables.checked++;
    if (message.finding !== null) {
      this.#o.onFound(message.finding); // noted beside the store first: the outlets follow the note
      this.#end('damaged');
    } else if (message.next === null) {
      this.#end('sound');
    } else {
      this.#position = message.next;
      if (performance.now() - this.#savedAt >= this.#timing.saveEveryMs) this.#save();
      const now = performance.now();
      if (!this.#closed) this.#later(restAfter(now - message.ms, now, this.#o.writer.lastCommitAt));
    }
    inFlight?.done();
  }

  /** The round ended: nothing to resume; the thread goes. */
  #end(state: 'sound' | 'damaged'): void {
    this.#view.state = state;
    this.#view.finishedAt = this.#o.clock.now();
    removeProgress(this.#o.file);
    void this.#stopWorker();
    this.#o.onState(this.view());
  }

  /** A failure that is not damage: logged when an episode begins, tried again later; too many in a row stop the check. */
  #failed(reason: string, worker: Worker | null): void {
    if (this.#closed) return;
    if (worker !== null && worker === this.#worker) {
      this.#worker = null;
      this.#inFlight?.done();
      this.#inFlight = null;
    }
    this.#failures++;
    if (this.#failures === 1) this.#log(`sluice: the background check of the store failed (${reason}); trying again in ${this.#timing.retryMs / 1000} s`);
    if (this.#failures >= this.#timing.maxFailures) {
      this.#log(`sluice: the background check of the store stopped after ${this.#failures} failures (last: ${reason}); it resumes at the next start, and "sluice doctor" checks the store in full`);
      this.#view.state = 'stopped';
      this.#save();
      void this.#stopWorker();
      this.#o.onState(this.view());
      return;
    }
    this.#later(this.#timing.retryMs);
  }

  #save(): void {
    this.#savedAt = performance.now();
    const progress: CheckProgress = { startedAt: this.#view.startedAt ?? this.#o.clock.now(), position: this.#position, rows: this.#view.rows, tablesChecked: this.#view.tables.checked };
    saveProgress(this.#o.file, progress);
  }

  async #stopWorker(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    if (!worker) return;
    worker.postMessage({ kind: 'close' } satisfies ToStoreCheck);
    await worker.terminate();
  }
}
