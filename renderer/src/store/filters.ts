/**
 * The stream's filters and its time range: what the user narrows the list to, the `messages.list`
 * request they make, and the same test the core applies, for rows that arrive live. Plain
 * TypeScript, no React, no DOM.
 */
import type { MessageSummary, RequestOf } from '../../../shared/contract.ts';
import { columnClause } from '../../../shared/message-match.ts';
import { MAX_QUERY_LENGTH, parseQuery, type Clause } from '../../../shared/message-query.ts';
import type { MessageType } from '../../../shared/messages.ts';
import { outcomeOf, type OutcomeKind } from './outcome.ts';

/**
 * The message types, as in shared/messages.ts (which imports zod: the renderer keeps it out of its
 * bundle and imports only types from there; the type below keeps the two lists equal).
 */
export const MESSAGE_TYPES = ['identify', 'track', 'page', 'screen', 'group', 'alias'] as const satisfies readonly MessageType[];
type _SameTypes = MessageType extends (typeof MESSAGE_TYPES)[number] ? true : never;
export const SAME_TYPES: _SameTypes = true;

/**
 * The stream's time range on receivedAt: everything, a window sliding with the clock (the rows that
 * fall out of it leave the list), or fixed inclusive bounds, either of which may be open.
 */
export type TimeRange = { kind: 'all' } | { kind: 'last'; ms: number } | { kind: 'between'; from: number | null; to: number | null };

export const ALL_TIME: TimeRange = Object.freeze({ kind: 'all' });

/** The sliding windows offered as presets. */
export const TIME_PRESETS: readonly { ms: number; label: string }[] = [
  { ms: 5 * 60_000, label: 'Last 5 min' },
  { ms: 60 * 60_000, label: 'Last 1 h' },
  { ms: 24 * 60 * 60_000, label: 'Last 24 h' },
];

/** The receivedAt bounds of a range at `now` (ms since epoch, inclusive); none for "all". */
export function timeBounds(range: TimeRange, now: number): { from?: number; to?: number } {
  if (range.kind === 'last') return { from: Math.max(0, now - range.ms) };
  if (range.kind === 'between') {
    return { ...(range.from !== null ? { from: range.from } : {}), ...(range.to !== null ? { to: range.to } : {}) };
  }
  return {};
}

export function hasTimeRange(range: TimeRange): boolean {
  return range.kind === 'last' || (range.kind === 'between' && (range.from !== null || range.to !== null));
}

export interface Filters {
  type: MessageType | null;
  /** Filter on the row's outcome (delivery state, rejected, duplicate or no delivery). */
  status: OutcomeKind | null;
  sourceId: number | null;
  /** The search box's query (shared/message-query.ts): words anywhere in the message, field:value clauses. */
  search: string;
  /** When the messages were received. */
  time: TimeRange;
  /** true: only messages that break a tracking plan (absent or false: any). */
  violations?: boolean;
  /** Only this track event, page or screen name, exactly (absent or empty: any). */
  event?: string;
  /** Only messages that break this tracking plan, by name (absent or empty: any). */
  plan?: string;
}

export const NO_FILTERS: Filters = Object.freeze({ type: null, status: null, sourceId: null, search: '', time: ALL_TIME });

export function hasFilters(filters: Filters): boolean {
  return (
    filters.type !== null ||
    filters.status !== null ||
    filters.sourceId !== null ||
    filters.search.trim() !== '' ||
    hasTimeRange(filters.time) ||
    filters.violations === true ||
    !!filters.event ||
    !!filters.plan
  );
}

/** The `messages.list` request for these filters at `now` (without paging). */
export function listQuery(filters: Filters, now: number = Date.now()): Omit<RequestOf<'messages.list'>, 'limit' | 'beforeId'> {
  const query: Omit<RequestOf<'messages.list'>, 'limit' | 'beforeId'> = { ...timeBounds(filters.time, now) };
  if (filters.type) query.type = filters.type;
  if (filters.sourceId !== null) query.sourceId = filters.sourceId;
  const search = filters.search.trim();
  if (search) query.search = search.slice(0, MAX_QUERY_LENGTH);
  if (filters.status === 'rejected' || filters.status === 'duplicate') query.status = filters.status;
  else if (filters.status !== null) {
    query.status = 'accepted';
    query.delivery = filters.status;
  }
  if (filters.violations === true) query.violations = true;
  if (filters.event) query.event = filters.event;
  if (filters.plan) query.plan = filters.plan;
  return query;
}

/** The same test the core's `messages.list` applies, for rows that arrive live (at `now`, for a sliding time range). */
export function matchesFilters(m: MessageSummary, filters: Filters, now: number = Date.now()): boolean {
  if (filters.type !== null && m.type !== filters.type) return false;
  if (!withinTime(m, filters.time, now)) return false;
  if (filters.sourceId !== null && m.sourceId !== filters.sourceId) return false;
  if (filters.status !== null && outcomeOf(m) !== filters.status) return false;
  if (!matchesViolationFilters(m, filters)) return false;
  if (filters.event && m.event !== filters.event) return false;
  const search = filters.search.trim();
  // The core tested the payload when it sent the row (messages.byIds); the clauses on what the row
  // shows are tested here again, as the row changes (a delivery that fails under status:failed).
  if (search && (m.matchesSearch === false || !matchesShownClauses(m, search))) return false;
  return true;
}

let parsed: { query: string; clauses: Clause[] } | null = null;

/** The search's clauses (the last query's kept: rows are tested against one query many times). */
function clausesOf(query: string): Clause[] {
  if (parsed?.query !== query) {
    try {
      parsed = { query, clauses: parseQuery(query) };
    } catch {
      parsed = { query, clauses: [] }; // the search box applies only queries that parse
    }
  }
  return parsed.clauses;
}

/** The query's clauses on what a summary holds (its columns and outcome), each as the core tests it; the rest hold. */
function matchesShownClauses(m: MessageSummary, query: string): boolean {
  for (const clause of clausesOf(query)) {
    if (clause.kind !== 'column') continue;
    // source and plan are not in a summary (null): the core's answer stands.
    const holds = columnClause(clause.field, clause.value, {
      type: m.type,
      event: m.event,
      userId: m.userId,
      anonymousId: m.anonymousId,
      messageId: m.messageId,
      origin: m.origin,
      violations: m.violations,
      outcome: outcomeOf(m),
      pinned: m.pinned === true,
    });
    if (holds !== null && holds === clause.negated) return false;
  }
  return true;
}

/**
 * The violations and plan filters' test. A summary counts its violations but does not name their
 * plans: for the plan filter, a row with any violation matches here (a live row, a row re-read after
 * a re-check); the list the core loads for the filter is exact.
 */
export function matchesViolationFilters(m: Pick<MessageSummary, 'violations'>, filters: Pick<Filters, 'violations' | 'plan'>): boolean {
  if (!filtersOnViolations(filters)) return true;
  return (m.violations ?? 0) > 0;
}

/** Search fields whose answer a delivery's change can change: the outcome, the delivery overview's step, an Issues group. */
const DELIVERY_FIELDS: ReadonlySet<string> = new Set(['status', 'delivery', 'issue']);

/**
 * Whether the filters narrow the list on delivery state (Status set to a delivery's, a `status:`,
 * `delivery:` or `issue:` clause): a delivery's change can make a row match or not, and the count of matches move.
 */
export function filtersOnDeliveries(filters: Pick<Filters, 'status' | 'search'>): boolean {
  if (filters.status !== null && filters.status !== 'rejected' && filters.status !== 'duplicate') return true;
  const search = filters.search.trim();
  return search !== '' && clausesOf(search).some((clause) => clause.kind === 'column' && DELIVERY_FIELDS.has(clause.field));
}

/** Whether the filters narrow the list on violations (a re-check can change which rows match). */
export function filtersOnViolations(filters: Pick<Filters, 'violations' | 'plan'>): boolean {
  return filters.violations === true || !!filters.plan;
}

export function withinTime(m: MessageSummary, range: TimeRange, now: number): boolean {
  const { from, to } = timeBounds(range, now);
  return (from === undefined || m.receivedAt >= from) && (to === undefined || m.receivedAt <= to);
}
