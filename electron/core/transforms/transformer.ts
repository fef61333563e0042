/**
 * What delivery, replays and the preview ask of a destination's transform (issue 28), and what the
 * runtime (this folder: a worker pool running the user's code, a registry loading and watching each
 * destination's file) answers. The one interface between them: delivery never sees a worker, the
 * runtime never sees the store.
 */

/** One line a call logged (console.log/info/warn/error or `log(...)`), as text, with its level. */
export interface TransformLogLine {
  level: 'log' | 'info' | 'warn' | 'error';
  text: string;
}

/** What every outcome carries: which version ran, how long, and what it logged (both bounded). */
export interface CallRecord {
  /** The transform's version: the first 12 hex digits of its source's SHA-256. */
  version: string;
  /** Wall time of the call, in ms. */
  ms: number;
  /** At most 100 lines, each at most 2,000 characters (the rest is cut, saying so). */
  logs: TransformLogLine[];
}

/**
 * What one call came to:
 * - `events`: the event(s) to send — one when the handler returned an object (changed or not), several
 *   when it returned an array (fan-out; an empty array is `dropped`). `changed` says whether any differs
 *   from the input. No handler for the type and no onEvent: the input, unchanged.
 * - `dropped`: it returned null/undefined or threw DropEvent; `reason` says which (DropEvent's message).
 * - `retry`: it threw RetryError — the delivery retries on its schedule.
 * - `failed`: it threw anything else, or returned what JSON cannot carry, or ran past its time or memory
 *   limit, or the transform could not be loaded; `code` names which, `message` (and `stack`) say more.
 */
export type TransformOutcome = CallRecord &
  (
    | { kind: 'events'; events: Record<string, unknown>[]; changed: boolean }
    | { kind: 'dropped'; reason: string }
    | { kind: 'retry'; message: string }
    | {
        kind: 'failed';
        code: TransformFailure;
        message: string;
        stack?: string;
        /** The runtime failed it, not the call's code (no worker could start, a crash beside it, a close): a delivery retries it. */
        runtime?: true;
      }
  );

export type TransformFailure = 'error' | 'timeout' | 'memory' | 'not-json' | 'load';

/** One call: the (normalized, filtered) message and the transform's settings. */
export interface TransformCall {
  event: Record<string, unknown>;
  settings: Record<string, unknown>;
}

/**
 * A loaded transform as the registry holds it: its version, where it came from, and — when the file's
 * latest text could not be used (a syntax error on reload) — why, the previous version staying in use.
 */
export interface LoadedTransform {
  file: string;
  version: string;
  /** Handler names it defines (onTrack, …, onEvent). */
  handlers: string[];
  /** Why the file's current text is not the version in use (null when it is). */
  error: string | null;
}

/**
 * The runtime as delivery sees it. `run` never rejects for the user's code: every failure is an
 * outcome, in the calls' order. Calls are batched to the workers; each has its own time limit.
 */
export interface Transformer {
  /** Runs the transform of this file (as the registry holds it now) on each call. */
  run(file: string, calls: readonly TransformCall[], options?: { timeoutMs?: number }): Promise<TransformOutcome[]>;
  /** Runs a source given as text (the inspector's unsaved editor), not the file's. */
  runSource(source: string, calls: readonly TransformCall[], options?: { timeoutMs?: number }): Promise<TransformOutcome[]>;
  /** The loaded version of this file (loading it on first ask). */
  loaded(file: string): LoadedTransform;
  close(): Promise<void>;
}

/**
 * How the core makes its runtime (index.ts: `createTransformer(options): Transformer`): `workers`
 * threads (default 1), each with a heap of `memoryMb` (shared/destination-filters.ts TRANSFORM_MEMORY_MB);
 * `onChange` hears a file reloaded (or refused on reload: `error` set), for the inspector's notice.
 */
export interface TransformerOptions {
  workers?: number;
  memoryMb?: number;
  onChange?: (loaded: LoadedTransform) => void;
}
