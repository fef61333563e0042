// Where a benchmark's CPU goes, read from Linux's /proc (null elsewhere): this process's time by thread
// kind — its main thread, its worker threads (the store's writer, the checkpointer, the counting
// thread, …), V8's helper threads (garbage collection, compiling) and the rest (libuv's pool) — and how
// busy the whole machine was (every process: the receiver and the load generator too). The latency
// benchmark reads both around each stream, so that a relay's latency under load can be read beside
// how near the machine was to saturation, and its CPU per event beside where in the relay it went.
import fs from 'node:fs';

/** Clock ticks of CPU time, per thread of this process and for the whole machine. */
export interface CpuSnapshot {
  threads: Map<string, { name: string; ticks: number }>;
  machine: { busy: number; total: number };
}

/** CPU time per event (µs) by thread kind, and the machine's busy share (0–1) between two snapshots. */
export interface CpuSplit {
  main: number;
  workers: number;
  v8Helpers: number;
  other: number;
  machineBusy: number;
}

/** Linux's clock tick (USER_HZ): 100 on every architecture Node runs on. */
const TICK_MICROS = 10_000;

function read(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null; // not Linux, or a thread that ended meanwhile
  }
}

export function cpuSnapshot(): CpuSnapshot | null {
  const stat = read('/proc/stat');
  if (stat === null) return null;
  // cpu  user nice system idle iowait irq softirq steal …: idle and iowait are not busy.
  const fields = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const machine = { busy: total - fields[3]! - fields[4]!, total };
  const threads = new Map<string, { name: string; ticks: number }>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    const text = read(`/proc/self/task/${tid}/stat`);
    if (text === null) continue;
    // "tid (comm) state …": the name is between the parentheses (it may hold some itself: up to the
    // last); after it, state is field 3, utime and stime fields 14 and 15.
    const close = text.lastIndexOf(')');
    const after = text.slice(close + 2).split(' ');
    threads.set(tid, { name: text.slice(text.indexOf('(') + 1, close), ticks: Number(after[11]) + Number(after[12]) });
  }
  return { threads, machine };
}

/** Node's own threads besides V8's: libuv's pool, the platform's delayed tasks, the signal watcher. */
const NODE_THREADS = ['libuv-worker', 'DelayedTaskSche', 'SignalInspector'];

/**
 * By exclusion: every thread that is not the main thread, V8's or Node's own is a worker thread (named
 * "WorkerThread", or what a Worker's `name` option said).
 */
function kind(name: string, tid: string): keyof Omit<CpuSplit, 'machineBusy'> {
  if (tid === String(process.pid)) return 'main';
  if (name.startsWith('V8Worker') || name.startsWith('v8:')) return 'v8Helpers';
  if (NODE_THREADS.includes(name)) return 'other';
  return 'workers';
}

/** Between two snapshots: a thread that ended between them is not counted (its time left with it). */
export function cpuSplit(before: CpuSnapshot | null, after: CpuSnapshot | null, events: number): CpuSplit | null {
  if (!before || !after || events <= 0) return null;
  const split = { main: 0, workers: 0, v8Helpers: 0, other: 0 };
  for (const [tid, { name, ticks }] of after.threads) {
    split[kind(name, tid)] += ticks - (before.threads.get(tid)?.ticks ?? 0);
  }
  const perEvent = (ticks: number) => Math.round((ticks * TICK_MICROS) / events);
  const total = after.machine.total - before.machine.total;
  return {
    main: perEvent(split.main),
    workers: perEvent(split.workers),
    v8Helpers: perEvent(split.v8Helpers),
    other: perEvent(split.other),
    machineBusy: total > 0 ? Math.round(((after.machine.busy - before.machine.busy) / total) * 100) / 100 : 0,
  };
}
