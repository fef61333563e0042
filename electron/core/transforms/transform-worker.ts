// A transform worker: runs batches of calls of the users' transforms (sandbox.ts), and tells the main
// thread's watchdog (worker-pool.ts) through shared cells which call's code runs now and since when —
// at every entry into the user's code, including each resumption of an async handler (v8 promise
// hooks tag each promise with the call that made it). A batch's calls run concurrently (an async
// handler awaiting fetch holds no other); an async call still unsettled at its limit is answered
// `timeout` here, while a synchronous loop, which no timer here can interrupt, is the watchdog's.
import { promiseHooks } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { CallLogs } from './call-logs.ts';
import { encodeResult, fromReturn, fromThrow, timeoutMessage, type Outcome } from './call-outcome.ts';
import { watchCells, type BatchJob, type BatchReply, type WorkerInit } from './protocol.ts';
import { createSandbox, type Sandbox } from './sandbox.ts';
import { syntaxProblem } from './source-check.ts';

const port = parentPort!;
const { watch, epoch } = workerData as WorkerInit;
const cells = watchCells(watch);

/** The calls not yet answered, by seq (their logs take what their code prints). */
const live = new Map<number, CallLogs>();
/** The seq of the call whose code runs now; 0 for none. */
let current = 0;
const tags = new WeakMap<object, number>();

// Plain writes, not Atomics (a fence each, several times a call): see protocol.ts.
function enter(seq: number): void {
  current = seq;
  cells.since[0] = Date.now() - epoch;
  cells.running[0] = seq;
  cells.progress[0]!++;
}

function leave(): void {
  current = 0;
  cells.running[0] = 0;
  cells.progress[0]!++;
}

promiseHooks.createHook({
  init(promise) {
    if (current > 0) tags.set(promise, current);
  },
  before(promise) {
    const seq = tags.get(promise);
    if (seq !== undefined) enter(seq);
  },
  after(promise) {
    if (tags.has(promise)) leave();
  },
});

// The user's stray errors (a rejection nobody awaits, a throw in a timer) must not end the worker: they
// are logged to the call that made them, while it runs.
process.on('unhandledRejection', (reason, promise) => live.get(tags.get(promise) ?? current)?.add('error', ['unhandled rejection:', reason]));
process.on('uncaughtException', (error) => live.get(current)?.add('error', ['uncaught:', error]));

const timers = new Map<number, NodeJS.Timeout>();
let nextTimer = 1;

const host = {
  currentLogs: () => live.get(current) ?? null,
  setTimeout(callback: unknown, ms: unknown, args: unknown[]): number {
    if (typeof callback !== 'function') throw new TypeError('setTimeout: the callback must be a function');
    const seq = current;
    const id = nextTimer++;
    const timer = setTimeout(() => {
      timers.delete(id);
      if (seq > 0) enter(seq);
      try {
        (callback as (...a: unknown[]) => unknown)(...args);
      } catch (error) {
        live.get(seq)?.add('error', ['uncaught in a setTimeout callback:', error]);
      } finally {
        if (seq > 0) leave();
      }
    }, Math.max(0, Number(ms) || 0));
    timers.set(id, timer);
    return id;
  },
  clearTimeout(id: unknown): void {
    const timer = timers.get(id as number);
    if (timer) clearTimeout(timer);
    timers.delete(id as number);
  },
};

/** Compiled versions, by key, newest use last; a file's top level runs once per worker and version. */
const cache = new Map<string, Sandbox | { failure: Outcome }>();
const CACHE_SIZE = 32;

function sandboxFor(job: BatchJob): Sandbox | { failure: Outcome } {
  const { key, source, filename } = job.script;
  let entry = cache.get(key);
  if (entry) {
    cache.delete(key);
  } else {
    cells.since[0] = Date.now() - epoch;
    Atomics.store(cells.running, 0, -job.id);
    try {
      entry = createSandbox(source, filename, host);
    } catch (error) {
      const problem: string | Outcome = (error as Error)?.name === 'SyntaxError' ? syntaxProblem(error, filename).message : fromThrow(error, filename);
      entry = {
        failure:
          typeof problem === 'string'
            ? { kind: 'failed', code: 'load', message: `the transform ${filename} does not compile: ${problem}` }
            : { kind: 'failed', code: 'load', message: `the transform ${filename} could not be loaded: its top level threw ${problem.kind === 'failed' ? problem.message : problem.kind}`, ...(problem.kind === 'failed' && problem.stack ? { stack: problem.stack } : {}) },
      };
    } finally {
      Atomics.store(cells.running, 0, 0);
    }
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  cache.set(key, entry);
  return entry;
}

function runBatch(job: BatchJob): void {
  Atomics.add(cells.progress, 0, 1);
  const count = job.seqs.length;
  const results: string[] = new Array(count);
  let left = count;
  const sandbox = sandboxFor(job);
  if ('failure' in sandbox) {
    results.fill(encodeResult(sandbox.failure, 0, []));
    port.postMessage({ id: job.id, results: `[${results.join(',')}]` } satisfies BatchReply);
    return;
  }
  /**
   * Async calls still unsettled, with their deadlines (performance.now()); one timer for the batch. A
   * deadline is first the time left after the call's own synchronous part (`deadline` - `since`), counted
   * once the batch's synchronous parts are done: the calls after it ran meanwhile, on its time otherwise.
   */
  const waiting: { i: number; deadline: number; since: number }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const starts: number[] = new Array(count);

  const finish = (i: number, outcome: Outcome) => {
    if (results[i] !== undefined) return;
    const seq = job.seqs[i]!;
    const logs = live.get(seq);
    live.delete(seq);
    results[i] = encodeResult(outcome, performance.now() - starts[i]!, logs ? logs.done() : []);
    if (--left === 0) {
      clearTimeout(timer);
      port.postMessage({ id: job.id, results: `[${results.join(',')}]` } satisfies BatchReply);
    }
  };
  const expire = () => {
    const now = performance.now();
    let next = Infinity;
    for (const w of waiting) {
      if (results[w.i] !== undefined) continue;
      if (w.deadline <= now) finish(w.i, { kind: 'failed', code: 'timeout', message: timeoutMessage(job.timeoutMs[w.i]!, 'async') });
      else next = Math.min(next, w.deadline);
    }
    if (next !== Infinity) timer = setTimeout(expire, next - now);
  };

  for (let i = 0; i < count; i++) runCall(job, i, sandbox, starts, finish, waiting);
  if (waiting.length > 0 && left > 0) {
    const end = performance.now();
    for (const w of waiting) w.deadline = end + (w.deadline - w.since);
    // A macrotask: promises that already settled (their callbacks are microtasks) settle first. Before
    // 2026-12-01 this ran at once, and a batch's early async calls, done, failed "timeout" when the
    // later calls' synchronous parts had taken longer than their limit.
    timer = setTimeout(expire, 0);
  }
}

function runCall(
  job: BatchJob,
  i: number,
  sandbox: Sandbox,
  starts: number[],
  finish: (i: number, outcome: Outcome) => void,
  waiting: { i: number; deadline: number; since: number }[],
): void {
  const seq = job.seqs[i]!;
  const input = job.events[i]!;
  const filename = job.script.filename;
  starts[i] = performance.now();
  const logs = new CallLogs();
  live.set(seq, logs);
  let event: unknown;
  let second: unknown;
  try {
    event = sandbox.parse(input);
    second = sandbox.second(job.settings[job.settingsOf[i]!]!, logs);
  } catch (error) {
    return finish(i, { kind: 'failed', code: 'error', message: `the event or the settings are not JSON: ${(error as Error).message}` });
  }
  const handler = sandbox.handlerFor((event as { type?: unknown } | null)?.type);
  if (!handler) return finish(i, { kind: 'events', events: [input], changed: false });
  const settle = (returned: unknown) => {
    enter(seq);
    let outcome: Outcome;
    try {
      outcome = fromReturn(returned, handler.name, input);
    } catch (error) {
      outcome = fromThrow(error, filename);
    }
    leave();
    finish(i, outcome);
  };
  const reject = (error: unknown) => finish(i, fromThrow(error, filename));
  // Called detached (no `this`), so that its stack frames read "at onTrack (file:line:column)".
  const fn = handler.fn;
  enter(seq);
  let returned: unknown;
  try {
    returned = fn(event, second);
    if (returned !== null && (typeof returned === 'object' || typeof returned === 'function') && typeof (returned as PromiseLike<unknown>).then === 'function') {
      (returned as PromiseLike<unknown>).then(settle, reject);
      waiting.push({ i, deadline: starts[i]! + job.timeoutMs[i]!, since: performance.now() });
      leave();
      return;
    }
  } catch (error) {
    leave();
    return reject(error);
  }
  leave();
  settle(returned);
}

port.on('message', (job: BatchJob) => runBatch(job));
port.postMessage('ready');
