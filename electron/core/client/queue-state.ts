import type { ClientErrorCode } from './errors.ts';
import type { RejectedMessage } from './batch-sender.ts';

/** A batch the endpoint accepted (given to `onSuccess`). */
export interface BatchResult {
  /** Messages in the batch. */
  count: number;
  /** Ids of the batch's messages, in order. */
  messageIds: readonly string[];
  /** The endpoint's status (2xx). */
  status: number;
  /** Requests made: 1 unless retried. */
  attempts: number;
  /** From the first attempt to the answer, in ms (retry delays included). */
  durationMs: number;
  /** Size of the request body, in bytes. */
  bytes: number;
  /** Messages the endpoint refused within the batch (also reported to `onError` as `rejected`). */
  rejected: readonly (RejectedMessage & { messageId: string })[];
}

/** How the most recent batch ended. */
export interface LastResult {
  ok: boolean;
  /** When it ended (clock time, ms since the epoch). */
  at: number;
  messages: number;
  status: number | null;
  attempts: number;
  durationMs: number;
  error: { code: ClientErrorCode; message: string } | null;
}

/** A snapshot of the client's queue, for display (see `Client.subscribe`). */
export interface ClientState {
  /** Messages waiting to be sent. */
  queued: number;
  /** Their size, serialized, in bytes. */
  queuedBytes: number;
  /** When the timed flush (`flushAfter`) fires (clock time), or null when no timer is running. */
  nextFlushAt: number | null;
  /** Milliseconds until then, or null. */
  nextFlushInMs: number | null;
  /** Batch requests in progress, including those waiting to retry. */
  inFlightBatches: number;
  /** Messages in those batches. */
  inFlightMessages: number;
  /** Messages the endpoint accepted, since the client was created. */
  sent: number;
  /** Messages that finally failed or were rejected. */
  failed: number;
  /** Messages dropped because the queue was full. */
  dropped: number;
  lastResult: LastResult | null;
  /** True once `close()` was called. */
  closed: boolean;
}

export type StateListener = (state: ClientState) => void;

/**
 * Tells listeners about state changes, at most once per turn of the event loop: a burst of
 * `track()` calls produces one notification, not one per call. Costs nothing without listeners.
 */
export class StateNotifier {
  readonly #listeners = new Set<StateListener>();
  readonly #snapshot: () => ClientState;
  readonly #onListenerError: (error: unknown) => void;
  #scheduled = false;

  constructor(snapshot: () => ClientState, onListenerError: (error: unknown) => void) {
    this.#snapshot = snapshot;
    this.#onListenerError = onListenerError;
  }

  subscribe(listener: StateListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('subscribe() takes a function');
    // Wrapped so the same function subscribed twice gets two independent subscriptions.
    const entry: StateListener = (state) => listener(state);
    this.#listeners.add(entry);
    this.#call(entry, this.#snapshot());
    return () => {
      this.#listeners.delete(entry);
    };
  }

  changed(): void {
    if (this.#scheduled || this.#listeners.size === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#listeners.size === 0) return;
      const state = this.#snapshot();
      for (const listener of this.#listeners) this.#call(listener, state);
    });
  }

  #call(listener: StateListener, state: ClientState): void {
    try {
      listener(state);
    } catch (error) {
      this.#onListenerError(error);
    }
  }
}
