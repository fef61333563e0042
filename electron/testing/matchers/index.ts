/**
 * `sluice/matchers` (issue 27): assertions on what a Sluice received, for `expect.extend` of Vitest,
 * Jest and Playwright Test alike — one object of matchers, each `(this: { isNot }, received, ...args)`
 * returning `Promise<{ pass, message }>`, which the three runners all take. Nothing of a runner is
 * imported here: the runner is the user's. Their typings (declaration merging into the runner's
 * matcher interfaces) ship as `sluice/matchers/vitest` and `sluice/matchers/jest`; Playwright's
 * `expect.extend` types its result from these functions themselves.
 *
 *   import { sluiceMatchers } from 'sluice/matchers';
 *   expect.extend(sluiceMatchers);
 *   await expect(sluice).toHaveReceived({ event: 'Order Completed', properties: { total: 42 } });
 *
 * Each wait is the relay's own (pushed by each commit, core/queries/waits.ts), and a failure says what
 * came closest in the words of the relay's SluiceTimeoutError (core/queries/filters.ts).
 */
import { checkOptions, label, type MessageFilter, type TestMessage } from '../../core/queries/filters.ts';
import type { DeliveryFilter, TestDelivery } from '../../core/queries/test-queries.ts';
import { atTestLine, testSite } from './test-line.ts';
import { relayOf, VIOLATIONS_READ, type MatcherRelay, type Waited } from './relay.ts';
import { toCoverPlan, type CoverPlanOptions } from './coverage.ts';

export { SluiceMatcherError, type RemoteSluice } from './relay.ts';
export type { CoverPlanOptions } from './coverage.ts';
export type { CoverageEvent, CoverageReport, PlanCoverage } from '../../../shared/plan-coverage.ts';
export type { MessageFilter, TestMessage } from '../../core/queries/filters.ts';
export type { DeliveryFilter, TestDelivery } from '../../core/queries/test-queries.ts';

export interface MatcherDefaults {
  /** How long toHaveReceived, toHaveReceivedInOrder and toHaveDelivered wait; default 3,000 ms (under the runners' own 5 s test timeout). */
  timeoutMs: number;
  /** How long `.not.toHaveReceived` / `.not.toHaveDelivered` watch when no `within` is given; default 500 ms. */
  withinMs: number;
}

const defaults: MatcherDefaults = { timeoutMs: 3_000, withinMs: 500 };

/** Changes the matchers' default waits (for every test after the call); returns the defaults now in force. */
export function configureSluiceMatchers(options: Partial<MatcherDefaults> = {}): MatcherDefaults {
  checkOptions(options, ['timeoutMs', 'withinMs'], 'configureSluiceMatchers()');
  for (const key of ['timeoutMs', 'withinMs'] as const) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 2 ** 31 - 1) throw new TypeError(`configureSluiceMatchers(): ${key} must be a number of ms ≥ 0`);
    defaults[key] = value;
  }
  return { ...defaults };
}

export interface ReceivedOptions {
  /** Matches to wait for (at least; default 1). */
  count?: number;
  /** How long to wait (default 3,000 ms: configureSluiceMatchers). */
  timeoutMs?: number;
  /** With `.not`: how long to watch for a match, failing at the first (default 500 ms). */
  within?: number;
}

export interface DeliveredOptions extends ReceivedOptions {
  /** The destination's name. */
  destination?: string;
  /** The delivery's status; default 'delivered'. */
  status?: TestDelivery['status'];
}

/** What a runner gives a matcher as `this` (the part used here: Vitest's, Jest's and Playwright's all have it). */
export interface SluiceMatcherState {
  isNot?: boolean;
}

export interface SluiceMatcherResult {
  pass: boolean;
  message: () => string;
}

/** The matchers as a test calls them (`R`: what each returns; all are asynchronous: await them). */
export interface SluiceMatchers<R = Promise<void>> {
  /** Waits until `count` stored messages (accepted ones unless the filter names a status) match; with `.not`, fails at the first within `within` ms. */
  toHaveReceived(filter?: MessageFilter, options?: ReceivedOptions): R;
  /** Waits until each filter has a match, then checks that matches of them were stored in this order. */
  toHaveReceivedInOrder(filters: readonly MessageFilter[], options?: Pick<ReceivedOptions, 'timeoutMs'>): R;
  /** Waits until `count` deliveries of matching messages have the status (default 'delivered'), to `destination` when named. */
  toHaveDelivered(filter?: Omit<MessageFilter, 'status'>, options?: DeliveredOptions): R;
  /** No stored message (matching `filter`, when given) breaks a tracking plan. */
  toHaveNoViolations(filter?: MessageFilter): R;
  /** Every event the tracking plans in use list (or `plan`'s) was seen; with `violations: false`, none breaking its plan either. */
  toCoverPlan(options?: CoverPlanOptions): R;
}

async function toHaveReceived(this: SluiceMatcherState, received: unknown, filter?: MessageFilter, options: ReceivedOptions = {}): Promise<SluiceMatcherResult> {
  const site = testSite(toHaveReceived);
  return atTestLine(site, async () => {
    const relay = relayOf(received, 'toHaveReceived');
    checkOptions(options, ['count', 'timeoutMs', 'within'], 'toHaveReceived()');
    const { count, timeoutMs } = waitOf(options, this.isNot === true, 'toHaveReceived');
    const started = Date.now();
    const result = await relay.waitForMessages(filter, count, timeoutMs);
    return outcome(result, () => `expected no ${count === 1 ? 'message' : `${count} messages`} matching ${shown(filter)} within ${timeoutMs} ms; ${listed(result, started, (m) => label(m))}`);
  });
}

async function toHaveDelivered(this: SluiceMatcherState, received: unknown, filter?: Omit<MessageFilter, 'status'>, options: DeliveredOptions = {}): Promise<SluiceMatcherResult> {
  const site = testSite(toHaveDelivered);
  return atTestLine(site, async () => {
    const relay = relayOf(received, 'toHaveDelivered');
    checkOptions(options, ['count', 'timeoutMs', 'within', 'destination', 'status'], 'toHaveDelivered()');
    // The status is the options' (default 'delivered'): one in the filter too would be overwritten unseen.
    if (typeof filter === 'object' && filter !== null && Object.hasOwn(filter, 'status')) {
      throw new TypeError(`toHaveDelivered(): a delivery's status goes in the options, e.g. toHaveDelivered({ event: 'Order Completed' }, { status: 'failed' }); the filter is the message's`);
    }
    const { count, timeoutMs } = waitOf(options, this.isNot === true, 'toHaveDelivered');
    const { destination, status = 'delivered' } = options;
    const deliveryFilter: DeliveryFilter = { ...(filter ?? {}), ...(destination !== undefined ? { destination } : {}) };
    const started = Date.now();
    const result = await relay.waitForDeliveries(deliveryFilter, status, count, timeoutMs);
    return outcome(result, () => `expected no ${status} deliver${count === 1 ? 'y' : 'ies'} of messages matching ${shown(filter)}${destination ? ` to ${destination}` : ''} within ${timeoutMs} ms; ${listed(result, started, (d) => `${d.destination}: ${d.message ? label(d.message) : 'a message no longer stored'}`)}`);
  });
}

async function toHaveReceivedInOrder(this: SluiceMatcherState, received: unknown, filters: readonly MessageFilter[], options: Pick<ReceivedOptions, 'timeoutMs'> = {}): Promise<SluiceMatcherResult> {
  const site = testSite(toHaveReceivedInOrder);
  return atTestLine(site, async () => {
    const relay = relayOf(received, 'toHaveReceivedInOrder');
    if (!Array.isArray(filters) || filters.length === 0) throw new TypeError('toHaveReceivedInOrder(): give the filters in the order expected, e.g. [{ event: "Cart Viewed" }, { event: "Order Completed" }]');
    // It has no window of its own: with .not as without, it waits timeoutMs for the filters' matches.
    checkOptions(options, ['timeoutMs'], `${this.isNot === true ? '.not.' : ''}toHaveReceivedInOrder()`);
    const { timeoutMs } = waitOf(options, false, 'toHaveReceivedInOrder');
    const deadline = performance.now() + timeoutMs;
    // Each filter's first match first (pushed waits, side by side): one that never comes is the failure.
    const waits = await Promise.all(filters.map((filter) => relay.waitForMessages(filter, 1, timeoutMs)));
    const missing = waits.findIndex((wait) => !wait.ok);
    if (missing >= 0) {
      const explanation = (waits[missing] as { explanation: string }).explanation;
      return { pass: false, message: () => `expected ${filters.length} messages in order; filter ${missing + 1} of ${filters.length} never matched: ${explanation}` };
    }
    // The earliest match of each filter after the previous filter's: the order holds when each has one.
    // Each is one bounded read (the first match after a row id), never every message a filter matches.
    // One not stored yet is waited for (after the previous match) until the deadline: an earlier match
    // of a later filter (from before the call) must not fail the order while the right one is on its way.
    // With .not the order is read once, when each filter has a match (else .not would hold every
    // passing test for the whole timeout).
    const waitsForOrder = this.isNot !== true;
    const chosen: { id: number; message: TestMessage }[] = [];
    for (const [index, filter] of filters.entries()) {
      const after = chosen.at(-1)?.id ?? 0;
      let [next] = await relay.firstAfter(filter, after, 1, 'toHaveReceivedInOrder()');
      const left = deadline - performance.now();
      if (!next && waitsForOrder && left > 0 && (await relay.waitForMessages(filter, 1, left, after)).ok) [next] = await relay.firstAfter(filter, after, 1, 'toHaveReceivedInOrder()');
      if (!next) {
        const firsts = await Promise.all(filters.map((each) => relay.firstAfter(each, 0, 3, 'toHaveReceivedInOrder()')));
        const order = firsts
          .flatMap((matched, i) => matched.map((row) => ({ ...row, filter: i + 1 })))
          .sort((a, b) => a.id - b.id)
          .map((row) => `  - ${label(row.message)} at sequence ${row.id}: filter ${row.filter}`);
        return {
          pass: false,
          message: () => `expected messages matching these ${filters.length} filters in this order; no match of filter ${index + 1} (${shown(filter)}) comes after ${index === 0 ? 'the start' : `the match of filter ${index}`}${waitsForOrder ? ` within ${timeoutMs} ms` : ''}. Stored order:\n${order.join('\n')}`,
        };
      }
      chosen.push(next);
    }
    return { pass: true, message: () => `expected messages matching these ${filters.length} filters not to be stored in this order; they were:\n${chosen.map((row) => `  - ${label(row.message)} at sequence ${row.id}`).join('\n')}` };
  });
}

async function toHaveNoViolations(this: SluiceMatcherState, received: unknown, filter?: MessageFilter): Promise<SluiceMatcherResult> {
  const site = testSite(toHaveNoViolations);
  return atTestLine(site, async () => {
    const relay: MatcherRelay = relayOf(received, 'toHaveNoViolations');
    const violating = await relay.violating(filter, 'toHaveNoViolations()');
    const among = filter === undefined ? 'stored messages' : `messages matching ${shown(filter)}`;
    if (violating.length === 0) return { pass: true, message: () => `expected some of the ${among} to break a tracking plan; none does` };
    const lines = violating.slice(0, 10).map((m) => `  - ${label(m)}: ${m.violations.map((v) => v.message).join('; ')}`);
    // Only the first VIOLATIONS_READ are read: past them, "at least".
    const atLeast = violating.length >= VIOLATIONS_READ ? 'at least ' : '';
    const more = violating.length > 10 ? `\n  …and ${atLeast}${violating.length - 10} more` : '';
    return { pass: false, message: () => `expected no tracking-plan violations among the ${among}; ${atLeast}${violating.length} ${violating.length === 1 ? 'breaks' : 'break'} a plan:\n${lines.join('\n')}${more}` };
  });
}

/** The matchers for `expect.extend(sluiceMatchers)` (Vitest, Jest, Playwright Test). */
export const sluiceMatchers = { toHaveReceived, toHaveReceivedInOrder, toHaveDelivered, toHaveNoViolations, toCoverPlan };

/** The wait's count and time: with `.not`, the window (`within`) rather than the timeout. */
function waitOf(options: ReceivedOptions, isNot: boolean, matcher: string): { count: number; timeoutMs: number } {
  if (typeof options !== 'object' || options === null) throw new TypeError(`${matcher}(): options are an object, e.g. { timeoutMs: 5000 }`);
  // Each form reads one of the two: the other, given alone, would be ignored without a word.
  if (isNot && options.timeoutMs !== undefined && options.within === undefined) {
    throw new TypeError(`.not.${matcher}(): the window to watch is { within: ms } (default ${defaults.withinMs}); timeoutMs is how long ${matcher}() without .not waits`);
  }
  if (!isNot && options.within !== undefined) throw new TypeError(`${matcher}(): within is the window of .not.${matcher}(); without .not, give timeoutMs`);
  const count = options.count ?? 1;
  const timeoutMs = isNot ? (options.within ?? defaults.withinMs) : (options.timeoutMs ?? defaults.timeoutMs);
  if (!Number.isInteger(count) || count < 1) throw new TypeError(`${matcher}(): count must be a whole number ≥ 1`);
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 2 ** 31 - 1) {
    throw new TypeError(`${matcher}(): ${isNot ? 'within' : 'timeoutMs'} must be a number of ms ≥ 0`);
  }
  return { count, timeoutMs };
}

/** A wait's result as a matcher's: pass when the matches came; the failure is the relay's own explanation. */
function outcome<T>(result: Waited<T>, whenPassed: () => string): SluiceMatcherResult {
  return result.ok ? { pass: true, message: whenPassed } : { pass: false, message: () => result.explanation };
}

function listed<T>(result: Waited<T>, started: number, show: (item: T) => string): string {
  if (!result.ok) return 'none came';
  const items = result.items.slice(0, 5).map((item) => `  - ${show(item)}`);
  return `${result.items.length === 1 ? 'one' : result.items.length} came (after ${Date.now() - started} ms):\n${items.join('\n')}`;
}

function shown(filter: MessageFilter | undefined): string {
  return filter === undefined || Object.keys(filter).length === 0 ? 'anything' : JSON.stringify(filter);
}
