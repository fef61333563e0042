import { workerExecArgv } from '../worker-options.ts';
import { Worker } from 'node:worker_threads';
import { WAL_SIZE_LIMIT } from './connection.ts';

/** What the checkpointer thread is given (checkpointer-worker.ts). */
export interface CheckpointerSettings {
  file: string;
  /** How often a PASSIVE checkpoint runs. */
  intervalMs: number;
  /** No new WAL frames (and no change of the file's size) for this long counts as idle. */
  idleMs: number;
  /** An idle WAL bigger than this is truncated to 0 bytes (TRUNCATE). */
  truncateAboveBytes: number;
  /** A WAL holding more frames than this (in bytes) is started over even under load (RESTART). */
  restartAboveBytes: number;
  /** How long a RESTART or TRUNCATE waits for the writer and the readers before giving up until later. */
  heavyBusyMs: number;
  /**
   * A RESTART or TRUNCATE holds the store's write lock while it copies what the last PASSIVE left: it
   * runs only when that is at most this many bytes of frames (a reader's old snapshot keeps PASSIVE
   * behind; the copy would then keep the writer waiting, measured 0.8 s for 166 MB on an idle machine
   * and past the writer's 5 s busy timeout under load, failing its commits).
   */
  heavyCopyBytes: number;
  /** At most one RESTART or TRUNCATE attempt this often. */
  heavyEveryMs: number;
  /** The first retry after a failed checkpoint; each further failure doubles it, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
  /** The thread replaces one whose checkpoints were failing: it says when they succeed again. */
  failing?: boolean;
  /** Tests only: holds the thread while it loads (worker-options.ts LoadGate). */
  gate?: Int32Array;
  /** false: a store not kept, never synced to disk (connection.ts Durability). */
  durable?: boolean;
}

export const DEFAULT_CHECKPOINTER_SETTINGS: Omit<CheckpointerSettings, 'file'> = {
  intervalMs: 250,
  idleMs: 2_000,
  truncateAboveBytes: 4 * 1024 * 1024,
  restartAboveBytes: 2 * WAL_SIZE_LIMIT,
  heavyBusyMs: 100,
  heavyCopyBytes: 4 * 1024 * 1024,
  heavyEveryMs: 500,
  backoffMs: 1_000,
  maxBackoffMs: 30_000,
};

/** What the thread tells its owner: each failed checkpoint, the first that succeeds after them, that it closed. */
export type FromCheckpointer = { kind: 'ready' } | { kind: 'failed'; reason: string } | { kind: 'recovered' } | { kind: 'closed' };

export interface CheckpointerOptions extends Partial<Omit<CheckpointerSettings, 'file' | 'failing'>> {
  /** Restarts of a dead thread allowed within a minute; the next death hands checkpoints to SQLite (onFailure). */
  maxRestartsPerMinute?: number;
  /** The first restart's delay; each further restart within the minute doubles it. */
  restartDelayMs?: number;
  /** Where the log lines go (default: stderr). */
  log?: (line: string) => void;
}

/**
 * Keeps the WAL short and small by checkpointing in a worker thread; see database.ts for why and
 * checkpointer-worker.ts for how. A failing checkpoint (a full disk) is retried by the thread itself,
 * logged once when the failures start and once when they end. A thread that dies is restarted, at
 * most `maxRestartsPerMinute` times a minute; past that the writer's connections fall back to
 * SQLite's automatic checkpoints (onFailure), so the WAL cannot grow without bound.
 */
export class Checkpointer {
  readonly #settings: CheckpointerSettings;
  readonly #onFailure: (error: Error) => void;
  readonly #maxRestarts: number;
  readonly #restartDelayMs: number;
  readonly #log: (line: string) => void;
  /** Null while a dead thread waits for its replacement, and once given up or closed. */
  #worker: Worker | null;
  #lastError: Error | undefined;
  #restarts: number[] = [];
  #restartTimer: NodeJS.Timeout | undefined;
  /** Checkpoints are failing: since when, how many tries (the episode spans restarts of the thread). */
  #failing: { since: number; failures: number } | null = null;
  #closing = false;
  /** The thread has loaded (its ticks run); until then close() cancels it instead of waiting for it. */
  #ready = false;

  constructor(file: string, onFailure: (error: Error) => void, options: CheckpointerOptions = {}) {
    const { maxRestartsPerMinute = 5, restartDelayMs = 1_000, log = (line) => console.error(line), ...settings } = options;
    this.#settings = { ...DEFAULT_CHECKPOINTER_SETTINGS, ...settings, file };
    this.#onFailure = onFailure;
    this.#maxRestarts = maxRestartsPerMinute;
    this.#restartDelayMs = restartDelayMs;
    this.#log = log;
    this.#worker = this.#spawn();
  }

  /** How many times the thread was restarted in the last minute. */
  get restarts(): number {
    const now = Date.now();
    return this.#restarts.filter((t) => now - t < 60_000).length;
  }

  /**
   * Final checkpoint (TRUNCATE) and stop. Call after the writers are idle. A thread still loading is
   * cancelled instead: it has checkpointed nothing yet, and the store's last connection to close
   * checkpoints the WAL itself.
   */
  async close(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#restartTimer);
    const worker = this.#worker;
    if (!worker) return;
    if (!this.#ready) {
      this.#worker = null;
      await worker.terminate();
      return;
    }
    const done = new Promise<void>((resolve) => {
      worker.on('message', (message: FromCheckpointer) => message.kind === 'closed' && resolve());
      worker.once('exit', () => resolve());
    });
    worker.postMessage('close');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise((resolve) => (timer = setTimeout(resolve, 5_000).unref()));
    await Promise.race([done, timeout]);
    clearTimeout(timer);
    await worker.terminate();
    this.#worker = null;
  }

  #spawn(): Worker {
    this.#ready = false;
    const worker = new Worker(new URL('./checkpointer-worker.ts', import.meta.url), {
      workerData: { ...this.#settings, failing: this.#failing !== null } satisfies CheckpointerSettings,
      ...workerExecArgv(),
    });
    worker.unref();
    worker.on('message', (message: FromCheckpointer) => this.#receive(message));
    worker.on('error', (error) => (this.#lastError = error));
    worker.on('exit', (code) => this.#onExit(worker, code));
    return worker;
  }

  #receive(message: FromCheckpointer): void {
    if (message.kind === 'ready') this.#ready = true;
    else if (message.kind === 'failed') {
      if (!this.#failing) {
        this.#failing = { since: Date.now(), failures: 0 };
        this.#log(`sluice: WAL checkpoints failing (${message.reason}); retrying`);
      }
      this.#failing.failures++;
    } else if (message.kind === 'recovered' && this.#failing) {
      const { since, failures } = this.#failing;
      this.#failing = null;
      this.#log(`sluice: WAL checkpoints resumed (after ${failures} failed ${failures === 1 ? 'try' : 'tries'} over ${Math.round((Date.now() - since) / 1000)} s)`);
    }
  }

  #onExit(worker: Worker, code: number): void {
    if (worker !== this.#worker) return;
    this.#worker = null;
    if (this.#closing) return;
    const why = this.#lastError?.message ?? `exit code ${code}`;
    this.#lastError = undefined;
    const now = Date.now();
    this.#restarts = this.#restarts.filter((t) => now - t < 60_000);
    if (this.#restarts.length >= this.#maxRestarts) {
      this.#onFailure(new Error(`the checkpointer stopped ${this.#restarts.length + 1} times within a minute (last: ${why})`));
      return;
    }
    this.#restarts.push(now);
    const delay = Math.min(this.#restartDelayMs * 2 ** (this.#restarts.length - 1), 30_000);
    this.#log(`sluice: the checkpointer stopped (${why}); restarting in ${delay} ms`);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (!this.#closing) this.#worker = this.#spawn();
    }, delay).unref();
  }
}
