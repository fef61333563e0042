import type { DeliveryResult } from '../store/delivery-types.ts';

/** A group of results is committed after this long, or at this size. */
const COMMIT_GROUP_MS = 5;
const COMMIT_GROUP_MAX = 256;

/**
 * Commits the rounds' results in groups: every few milliseconds, or sooner when many are waiting.
 * Each hand-over to the store's writer thread has a fixed cost (and, on two cores, a context switch),
 * so one per round would be a visible share of the engine's time; the requests' slots are already free.
 */
export class ResultBatcher {
  readonly #commit: (results: DeliveryResult[]) => Promise<void>;
  #results: DeliveryResult[] = [];
  #committing: Promise<void> | undefined;
  #flush: (() => void) | undefined;

  /** `commit`: hands a group to the writer; resolves once it is durable. */
  constructor(commit: (results: DeliveryResult[]) => Promise<void>) {
    this.#commit = commit;
  }

  /** Resolves once this result, with its group, is durable; rejects when the group could not be stored. */
  add(result: DeliveryResult): Promise<void> {
    return this.addAll([result]);
  }

  /** A round's results, in one group (as add: resolves once they are durable, rejects when they could not be stored). */
  addAll(results: readonly DeliveryResult[]): Promise<void> {
    if (results.length === 0) return Promise.resolve();
    for (const result of results) this.#results.push(result);
    if (this.#results.length >= COMMIT_GROUP_MAX) this.#flush?.();
    this.#committing ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#flush?.(), COMMIT_GROUP_MS);
      this.#flush = () => {
        clearTimeout(timer);
        this.#flush = undefined;
        resolve();
      };
    }).then(() => {
      const results = this.#results;
      this.#results = [];
      this.#committing = undefined;
      return this.#commit(results);
    });
    return this.#committing;
  }
}
