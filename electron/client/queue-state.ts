import type { ClientState, StateListener } from '../../shared/client-state.ts';

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
