/**
 * The mechanism that runs transform calls off the main thread: worker threads (transform-worker.ts),
 * started on first use, each with a heap limit, given calls in batches (one message out, one back) and
 * watched. A watchdog reads each busy worker's shared cells (protocol.ts): a call whose code has run
 * longer than its limit without yielding (a synchronous loop) gets its worker terminated, and that call
 * fails `timeout`; a worker that dies of its heap limit fails the call it was running with `memory`. The
 * other calls the worker held run again on a fresh worker (as often as a culprit is found; at most
 * MAX_RERUNS times for stops with none, such as a crash). Workers that
 * keep dying on their own are respawned at a bounded rate; when none can be started at all, the waiting
 * calls fail saying so, and the next calls try again.
 */
import { Worker } from 'node:worker_threads';
import { workerExecArgv } from '../worker-options.ts';
import { timeoutMessage } from './call-outcome.ts';
import { WATCH_BYTES, watchCells, type BatchJob, type BatchReply, type CallJob, type CallResult, type ScriptRef, type WatchCells, type WorkerInit } from './protocol.ts';
import type { TransformFailure } from './transformer.ts';
import { TRANSFORM_MEMORY_MB } from '../../../shared/destination-filters.ts';

export interface PoolOptions {
  /** Most workers at once (default 1). */
  size?: number;
  /** Each worker's heap limit, in MB (held to TRANSFORM_MEMORY_MB's range: below it a worker cannot even start). */
  memoryMb: number;
  /** The worker's module (tests give one that cannot start). */
  workerUrl?: URL;
}

/** A call as the pool holds it until answered. */
interface Pending {
  job: CallJob;
  /** Times it was sent again because its worker was stopped beside it. */
  reruns: number;
  answer(result: CallResult): void;
}

interface Batch {
  id: number;
  script: ScriptRef;
  calls: Pending[];
  /** The longest and the shortest limit of its calls. */
  longest: number;
  shortest: number;
}

interface Thread {
  worker: Worker;
  cells: WatchCells;
  batches: Map<number, Batch>;
  /** In-flight calls by seq (what the watchdog blames). */
  calls: Map<number, Pending>;
  /** Its module has loaded (it said so): a worker that dies before did not start. */
  ready: boolean;
  /** Date.now() its `since` cell counts from. */
  epoch: number;
  gone: boolean;
  timer: NodeJS.Timeout | undefined;
  /** The progress cell as the watchdog last read it, and when it last changed. */
  progress: number;
  progressAt: number;
}

const MAX_BATCH = 256;
export const MAX_RERUNS = 3;
/** How long code of a call already answered may hold a worker. */
const STRAY_MS = 1_000;
/** A file's top level (made a context, compiled, run) gets its batch's longest limit, and at least this. */
const TOP_LEVEL_MIN_MS = 1_000;
/** How soon a stretch seen past its limit is looked at again before its worker is stopped. */
const CONFIRM_MS = 5;
/** A worker making no progress at all for its longest limit plus this is stopped (stuck outside any call). */
const STUCK_GRACE_MS = 5_000;
/** Respawn delays after workers died on their own: 100 ms doubling to 10 s; reset by any answer. */
const BACKOFF_MS = { first: 100, max: 10_000 };
/** Workers failing to start this many times in a row fail the calls waiting for one. */
const START_FAILURES = 3;

export class WorkerPool {
  readonly #size: number;
  readonly #memoryMb: number;
  readonly #workerUrl: URL | undefined;
  readonly #threads: Thread[] = [];
  readonly #waiting: { script: ScriptRef; calls: Pending[] }[] = [];
  #seq = 0;
  #batchId = 0;
  #deaths = 0;
  #startFailures = 0;
  #spawnAt = 0;
  #spawnTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: PoolOptions) {
    this.#size = Math.max(1, options.size ?? 1);
    this.#memoryMb = Math.min(TRANSFORM_MEMORY_MB.max, Math.max(TRANSFORM_MEMORY_MB.min, Math.round(options.memoryMb)));
    this.#workerUrl = options.workerUrl;
  }

  /** The live workers (tests check that close() ends them). */
  get workers(): Worker[] {
    return this.#threads.map((t) => t.worker);
  }

  /** Runs each call of `script`; resolves with their results in order, never rejects. */
  run(script: ScriptRef, calls: readonly Omit<CallJob, 'seq'>[]): Promise<CallResult[]> {
    return new Promise((resolve) => {
      const results: CallResult[] = new Array(calls.length);
      let left = calls.length;
      if (left === 0) return resolve(results);
      const pending = calls.map((call, i): Pending => ({
        job: { ...call, seq: this.#nextSeq() },
        reruns: 0,
        answer(result) {
          results[i] = result;
          if (--left === 0) resolve(results);
        },
      }));
      if (this.#closed) return this.#fail(pending, 'error', 'the transform runtime is closed', 0, true);
      for (let i = 0; i < pending.length; i += MAX_BATCH) this.#dispatch(script, pending.slice(i, i + MAX_BATCH));
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#spawnTimer);
    const threads = this.#threads.splice(0);
    const exits = threads.map((t) => this.#end(t));
    for (const t of threads) for (const batch of t.batches.values()) this.#fail(batch.calls, 'error', 'the transform runtime closed before this call was answered', 0, true);
    for (const w of this.#waiting.splice(0)) this.#fail(w.calls, 'error', 'the transform runtime closed before this call was answered', 0, true);
    await Promise.all(exits);
  }

  #nextSeq(): number {
    this.#seq = (this.#seq % 0x7fff_fffe) + 1;
    return this.#seq;
  }

  #dispatch(script: ScriptRef, calls: Pending[]): void {
    const thread = this.#pick();
    if (!thread) {
      this.#waiting.push({ script, calls });
      this.#scheduleSpawn();
      return;
    }
    let longest = 0;
    let shortest = Infinity;
    for (const call of calls) {
      longest = Math.max(longest, call.job.timeoutMs);
      shortest = Math.min(shortest, call.job.timeoutMs);
    }
    const batch: Batch = { id: (this.#batchId = (this.#batchId % 0x7fff_fffe) + 1), script, calls, longest, shortest };
    thread.batches.set(batch.id, batch);
    for (const call of calls) thread.calls.set(call.job.seq, call);
    if (thread.batches.size === 1) {
      thread.worker.ref();
      thread.progress = Atomics.load(thread.cells.progress, 0);
      thread.progressAt = Date.now();
    }
    thread.worker.postMessage(batchJob(batch));
    this.#watch(thread);
  }

  /** The least busy worker, starting one if there is room and every worker is busy; null while respawns wait. */
  #pick(): Thread | null {
    let best: Thread | null = null;
    for (const t of this.#threads) if (!best || t.calls.size < best.calls.size) best = t;
    if ((best === null || best.calls.size > 0) && this.#threads.length < this.#size && Date.now() >= this.#spawnAt) {
      const spawned = this.#spawn();
      if (spawned) return spawned;
    }
    return best;
  }

  #spawn(): Thread | null {
    const watch = new SharedArrayBuffer(WATCH_BYTES);
    const epoch = Date.now();
    let worker: Worker;
    try {
      worker = new Worker(this.#workerUrl ?? new URL('./transform-worker.ts', import.meta.url), {
        workerData: { watch, epoch } satisfies WorkerInit,
        resourceLimits: { maxOldGenerationSizeMb: this.#memoryMb, maxYoungGenerationSizeMb: Math.max(4, Math.min(16, this.#memoryMb / 8)) },
        ...workerExecArgv(),
      });
    } catch (error) {
      this.#startFailed(error as Error);
      return null;
    }
    const thread: Thread = { worker, cells: watchCells(watch), batches: new Map(), calls: new Map(), ready: false, epoch, gone: false, timer: undefined, progress: 0, progressAt: Date.now() };
    this.#threads.push(thread);
    worker.unref();
    worker.on('message', (reply: BatchReply | 'ready') => {
      if (reply === 'ready') thread.ready = true;
      else this.#answered(thread, reply);
    });
    worker.on('error', (error: Error & { code?: string }) => this.#died(thread, error));
    worker.on('exit', (code) => this.#died(thread, new Error(`the transform worker stopped (exit code ${code})`)));
    return thread;
  }

  #answered(thread: Thread, reply: BatchReply): void {
    const batch = thread.batches.get(reply.id);
    if (!batch || thread.gone) return;
    thread.batches.delete(reply.id);
    this.#deaths = 0;
    this.#startFailures = 0;
    const results = JSON.parse(reply.results) as CallResult[];
    batch.calls.forEach((call, i) => {
      thread.calls.delete(call.job.seq);
      call.answer(results[i]!);
    });
    if (thread.batches.size === 0) {
      thread.worker.unref();
      clearTimeout(thread.timer);
    }
  }

  /** The watchdog: checks the worker when its running stretch would pass its limit. */
  #watch(thread: Thread): void {
    clearTimeout(thread.timer);
    if (thread.gone || thread.batches.size === 0) return;
    const now = Date.now();
    const running = Atomics.load(thread.cells.running, 0);
    const since = now - elapsedSince(thread.epoch, Atomics.load(thread.cells.since, 0), now);
    const progress = Atomics.load(thread.cells.progress, 0);
    // A stretch past its limit is acted on once seen twice, the worker having made no step between (the
    // cells are written without fences: a first look may pair a new `running` with an old `since`).
    const still = progress === thread.progress;
    if (!still) Object.assign(thread, { progress, progressAt: now });
    let limit: number;
    let next: number;
    if (running > 0) {
      const call = thread.calls.get(running);
      limit = call ? call.job.timeoutMs : STRAY_MS;
      if (now - since >= limit && still) return this.#stop(thread, { kind: 'call', seq: running, ms: now - since });
      next = Math.max(since + limit, now + CONFIRM_MS);
    } else if (running < 0) {
      const batch = thread.batches.get(-running);
      limit = batch ? topLevelLimit(batch) : STRAY_MS;
      if (now - since >= limit && still) return this.#stop(thread, { kind: 'top', batchId: -running, ms: now - since });
      next = Math.max(since + limit, now + CONFIRM_MS);
    } else {
      let longest = 0;
      let shortest = Infinity;
      for (const batch of thread.batches.values()) {
        longest = Math.max(longest, batch.longest);
        shortest = Math.min(shortest, batch.shortest);
      }
      limit = longest + STUCK_GRACE_MS;
      if (now - thread.progressAt >= limit) return this.#stop(thread, { kind: 'stuck' });
      next = Math.min(thread.progressAt + limit, now + shortest);
    }
    thread.timer = setTimeout(() => this.#watch(thread), Math.max(1, next - now + 1));
    thread.timer.unref();
  }

  /** Terminates a worker the watchdog caught: the call it blames fails `timeout`, the others run again. */
  #stop(thread: Thread, why: { kind: 'call'; seq: number; ms: number } | { kind: 'top'; batchId: number; ms: number } | { kind: 'stuck' }): void {
    const held = this.#retire(thread);
    void thread.worker.terminate();
    if (why.kind === 'call') {
      const call = held.find((c) => c.job.seq === why.seq);
      if (call) this.#fail([call], 'timeout', timeoutMessage(call.job.timeoutMs, 'sync'), why.ms);
      // The calls of the script that looped go again last: its next ones may loop too, and each costs a limit.
      const suspect = call ? [...thread.batches.values()].find((batch) => batch.calls.includes(call))?.script : undefined;
      this.#rerun(thread, held.filter((c) => c !== call), call ? null : { why: 'code of a call already answered ran past its time limit' }, suspect);
    } else if (why.kind === 'top') {
      const batch = thread.batches.get(why.batchId);
      const calls = batch?.calls ?? [];
      if (batch) this.#fail(calls, 'timeout', `the transform's top level ran past ${topLevelLimit(batch).toLocaleString('en-US')} ms while loading and was stopped`, why.ms);
      this.#rerun(thread, held.filter((c) => !calls.includes(c)), batch ? null : { why: "a transform's top level ran past its time limit" });
    } else {
      this.#rerun(thread, held, { why: 'the worker stopped making progress' });
    }
  }

  /** A worker that ended without the watchdog: of its heap limit (the running call fails `memory`), a crash, or at start. */
  #died(thread: Thread, error: Error & { code?: string }): void {
    if (thread.gone) return;
    const held = this.#retire(thread);
    if (this.#closed) return;
    if (!thread.ready) {
      const gaveUp = this.#startFailed(error);
      if (gaveUp) this.#fail(held, 'error', gaveUp, 0, true);
      else this.#rerun(thread, held, { why: `its worker did not start: ${error.message}` });
      return;
    }
    this.#deaths++;
    this.#spawnAt = Date.now() + Math.min(BACKOFF_MS.max, BACKOFF_MS.first * 2 ** (this.#deaths - 1));
    if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
      const running = Atomics.load(thread.cells.running, 0);
      const ms = elapsedSince(thread.epoch, Atomics.load(thread.cells.since, 0), Date.now());
      const message = `the transform ran out of its ${this.#memoryMb} MB memory limit and was stopped`;
      const blamed = running > 0 ? held.filter((c) => c.job.seq === running) : running < 0 ? (thread.batches.get(-running)?.calls ?? []) : [];
      this.#fail(blamed, 'memory', message, ms);
      this.#rerun(thread, held.filter((c) => !blamed.includes(c)), blamed.length > 0 ? null : { why: 'its worker ran out of memory', code: 'memory', message });
    } else {
      this.#rerun(thread, held, { why: `its worker stopped (${error.message})` });
    }
  }

  /** Counts a worker that did not start; at START_FAILURES in a row, fails the waiting calls and returns why. */
  #startFailed(error: Error): string | null {
    this.#deaths++;
    this.#startFailures++;
    this.#spawnAt = Date.now() + Math.min(BACKOFF_MS.max, BACKOFF_MS.first * 2 ** (this.#deaths - 1));
    if (this.#startFailures < START_FAILURES) return null;
    this.#startFailures = 0;
    const message = `the transform runtime could not start a worker thread (${error.message}); the next calls try again`;
    for (const w of this.#waiting.splice(0)) this.#fail(w.calls, 'error', message, 0, true);
    return message;
  }

  /** Takes a worker out of use; returns the calls it held. */
  #retire(thread: Thread): Pending[] {
    thread.gone = true;
    clearTimeout(thread.timer);
    const i = this.#threads.indexOf(thread);
    if (i >= 0) this.#threads.splice(i, 1);
    return [...thread.calls.values()];
  }

  /**
   * Sends calls again (grouped by script), on a fresh worker. When the stop had a culprit (the call that
   * ran past its limit or out of memory, failed already), the others are not at fault and go again as
   * often as that happens — each such stop removes a call, so it ends. When it had none (a crash, a worker
   * stuck outside any call, one that did not start), it counts (`cost`): a call that has gone again
   * MAX_RERUNS times fails instead, with the cost's code and message.
   */
  #rerun(thread: Thread, calls: Pending[], cost: { why: string; code?: TransformFailure; message?: string } | null, suspect?: ScriptRef): void {
    const again = new Set(calls);
    const byScript = new Map<ScriptRef, Pending[]>();
    for (const batch of thread.batches.values()) {
      for (const call of batch.calls) {
        if (!again.has(call)) continue;
        if (cost && ++call.reruns > MAX_RERUNS) {
          this.#fail([call], cost.code ?? 'error', cost.message ?? `this call's worker was stopped ${MAX_RERUNS + 1} times while it waited, the last time because ${cost.why}; it was not run again`, 0, true);
          continue;
        }
        byScript.set(batch.script, [...(byScript.get(batch.script) ?? []), call]);
      }
    }
    // The other scripts' calls first (before 2026-12-01 a looping transform's calls went again ahead of
    // them, and another destination's transform waited a limit for each of its calls).
    // By its key: each run() makes its own ScriptRef, and a delivery's round runs one call per run().
    const suspected = (script: ScriptRef) => suspect !== undefined && script.key === suspect.key;
    const order = [...byScript].sort(([a], [b]) => Number(suspected(a)) - Number(suspected(b)));
    for (const [script, calls] of order) this.#dispatch(script, calls);
    if (this.#threads.length === 0 && this.#waiting.length > 0) this.#scheduleSpawn();
  }

  #scheduleSpawn(): void {
    if (this.#spawnTimer || this.#closed) return;
    this.#spawnTimer = setTimeout(() => {
      this.#spawnTimer = undefined;
      for (const w of this.#waiting.splice(0)) this.#dispatch(w.script, w.calls);
    }, Math.max(0, this.#spawnAt - Date.now()));
  }

  /** `runtime`: the runtime failed the calls, not their code (a worker that cannot start, a crash beside them, a close). */
  #fail(calls: readonly Pending[], code: TransformFailure, message: string, ms = 0, runtime = false): void {
    for (const call of calls) call.answer({ kind: 'failed', code, message, ms, logs: [], ...(runtime ? { runtime: true as const } : {}) });
  }

  async #end(thread: Thread): Promise<void> {
    thread.gone = true;
    clearTimeout(thread.timer);
    await thread.worker.terminate();
  }
}

/** The batch as it crosses: in columns, each distinct settings text once. */
function batchJob(batch: Batch): BatchJob {
  const n = batch.calls.length;
  const job: BatchJob = { id: batch.id, script: batch.script, seqs: new Array(n), events: new Array(n), settings: [], settingsOf: new Array(n), timeoutMs: new Array(n) };
  let last = '';
  for (let i = 0; i < n; i++) {
    const call = batch.calls[i]!.job;
    job.seqs[i] = call.seq;
    job.events[i] = call.event;
    job.timeoutMs[i] = call.timeoutMs;
    if (call.settings !== last || job.settings.length === 0) {
      const known = job.settings.indexOf(call.settings);
      if (known < 0) job.settings.push(call.settings);
      last = call.settings;
    }
    job.settingsOf[i] = job.settings.length === 1 ? 0 : job.settings.indexOf(call.settings);
  }
  return job;
}

function topLevelLimit(batch: Batch): number {
  return Math.max(batch.longest, TOP_LEVEL_MIN_MS);
}

/**
 * How long ago a `since` cell says a stretch began: the cell holds ms from the worker's epoch in an Int32,
 * which wraps after 24.8 days of one worker's life — so the difference is taken modulo 2^32 (right for any
 * stretch under 49 days; a call's limit is 30 s at most). Before 2026-12-01 a worker that old read a wrapped
 * cell as a stretch of weeks and stopped the call it was running.
 */
export function elapsedSince(epoch: number, cell: number, now: number): number {
  const TWO_32 = 2 ** 32;
  return (((now - epoch - cell) % TWO_32) + TWO_32) % TWO_32;
}
