/**
 * What the main thread and a transform worker (transform-worker.ts) say to each other, and the shared
 * cells through which the main thread's watchdog (worker-pool.ts) sees what a worker is running. Events
 * and settings cross as JSON text: the main thread writes it once, the worker parses it inside the
 * sandbox's own realm (which also makes the input a copy), and a result's events come back as the JSON
 * text the worker checked.
 */
import type { TransformFailure, TransformLogLine } from './transformer.ts';

/** The code a batch runs: `key` names a compiled version in a worker's cache (file name and version). */
export interface ScriptRef {
  key: string;
  filename: string;
  version: string;
  source: string;
}

export interface CallJob {
  /** The call's number in its pool (1 … 2³¹−2, reused once it wraps): what the watchdog reads. */
  seq: number;
  event: string;
  settings: string;
  timeoutMs: number;
}

/**
 * A batch as it crosses (columns, not an object per call: cloning is paid per object): call i is
 * `seqs[i]`, with event `events[i]`, settings `settings[settingsOf[i]]` (each distinct text once) and
 * limit `timeoutMs[i]`.
 */
export interface BatchJob {
  id: number;
  script: ScriptRef;
  seqs: number[];
  events: string[];
  settings: string[];
  settingsOf: number[];
  timeoutMs: number[];
}

/** An outcome as the worker sends it (no version: the main thread knows it). */
export type CallResult = { ms: number; logs: TransformLogLine[] } & (
  | { kind: 'events'; events: Record<string, unknown>[]; changed: boolean }
  | { kind: 'dropped'; reason: string }
  | { kind: 'retry'; message: string }
  | { kind: 'failed'; code: TransformFailure; message: string; stack?: string }
);

/** `results`: the JSON text of the batch's CallResult[], in the calls' order — one parse on the main thread. */
export interface BatchReply {
  id: number;
  results: string;
}

/**
 * The watchdog's cells (a SharedArrayBuffer of WATCH_BYTES, three Int32s): `running` is the seq of the
 * call whose code runs now, 0 when none, −id while batch `id` runs its script's top level; `since` is when
 * that stretch began, in ms after the worker's `epoch` (WorkerInit); `progress` counts the worker's steps
 * (each entry into and exit from the user's code, each batch begun), so that a worker stuck outside any
 * call is seen too. The worker writes them at every entry into the user's code, including each
 * resumption of an async handler — plain writes (the watchdog can wait a few ms to see them; an Int32
 * is never seen half-written).
 */
export const WATCH_BYTES = 12;

export interface WatchCells {
  running: Int32Array;
  progress: Int32Array;
  since: Int32Array;
}

export function watchCells(buffer: SharedArrayBuffer): WatchCells {
  return { running: new Int32Array(buffer, 0, 1), progress: new Int32Array(buffer, 4, 1), since: new Int32Array(buffer, 8, 1) };
}

export interface WorkerInit {
  watch: SharedArrayBuffer;
  /** Date.now() when the worker was made: `since` counts from it. */
  epoch: number;
}
