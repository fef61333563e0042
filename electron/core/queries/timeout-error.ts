/**
 * A test's wait ran out of time (test-queries.ts). Apart from the queries so that sluice/matchers can
 * tell it without loading the store's modules.
 */

/** A wait ran out of time; `message` says what was asked and what came closest. */
export class SluiceTimeoutError extends Error {
  readonly code = 'timeout';
  /** What had arrived that matched, fewer than asked. */
  readonly matched: readonly unknown[];
  constructor(message: string, matched: readonly unknown[]) {
    super(message);
    this.name = 'SluiceTimeoutError';
    this.matched = matched;
  }
}

/** The relay was closed while a wait was pending: nothing more could arrive. */
export class SluiceClosedError extends Error {
  readonly code = 'closed';
  constructor(message: string) {
    super(message);
    this.name = 'SluiceClosedError';
  }
}
