/**
 * Where the client gets its time: message timestamps, the `flushAfter` timer, retry delays and
 * request timeouts all go through it. Tests inject a manual clock to run timers without waiting.
 */
export interface ClientClock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock: `Date.now` and Node's timers. */
export const systemClock: ClientClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
