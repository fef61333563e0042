/**
 * What sluice/matchers asks of the relay it is given (matchers/relay.ts): the Sluice of startSluice()
 * carries its core's test queries under this symbol (not enumerable: a runner printing the Sluice
 * does not print the core). A Symbol.for, so that the two entries (dist/testing.js, dist/matchers.js)
 * agree on it whatever chunk each has it from.
 */
import type { TestQueries } from '../core/queries/test-queries.ts';

export const TEST_QUERIES = Symbol.for('sluice.testing.queries');

/** `sluice` with its core's queries attached under TEST_QUERIES. */
export function withQueries<T extends object>(sluice: T, queries: TestQueries): T {
  Object.defineProperty(sluice, TEST_QUERIES, { value: queries, enumerable: false });
  return sluice;
}

/** The queries of a Sluice started in this process; undefined for anything else. */
export function queriesOf(value: unknown): TestQueries | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (value as { [TEST_QUERIES]?: TestQueries })[TEST_QUERIES];
}
