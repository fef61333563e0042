/**
 * What a test asks of stored messages and deliveries (sluice/testing): the filter, how a message
 * matches it, and — when a wait times out — which messages came closest, in words.
 */
import { fieldDifferences, showValue } from '../../../shared/field-differences.ts';
import type { Violation } from '../../../shared/tracking-plan.ts';
import type { DeliveryStatus, DeliveryTrigger } from '../store/delivery-types.ts';
import type { TransformRunView } from '../../../shared/channels/deliveries.ts';

export const MESSAGE_STATUSES = ['accepted', 'rejected', 'duplicate'] as const;

/** Fields compared exactly (a userId of 42 matches 42 and "42": clients send either). */
const EXACT = ['type', 'event', 'userId', 'anonymousId', 'source', 'messageId', 'status', 'origin'] as const;
/** The origins a stored message has (a client's, an audience sync's identify, a plan's Violation Generated). */
const MESSAGE_ORIGINS = ['ingest', 'audience', 'plan'] as const;
/** Objects matched in part: every key given must be there, deeply, with the same value. */
const PARTIAL = ['properties', 'traits', 'context'] as const;

/** Which messages a test means. Every field given must match; none given matches every message. */
export interface MessageFilter {
  type?: string;
  event?: string;
  userId?: string | number;
  anonymousId?: string | number;
  /** The source's name. */
  source?: string;
  messageId?: string;
  status?: (typeof MESSAGE_STATUSES)[number];
  /**
   * Where it came from: `ingest` (a client), `audience` (an audience sync's identify) or `plan` (a
   * tracking plan's Violation Generated event). Those of `plan` match only a filter that names it.
   */
  origin?: string;
  properties?: Record<string, unknown>;
  traits?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /** true: only messages that break a tracking plan of their source; false: only those that do not. */
  violations?: boolean;
}

/** A message as a test sees it: the message as received, plus what Sluice made of it. */
export interface TestMessage {
  [field: string]: unknown;
  type?: string;
  event?: string;
  userId?: string | number | null;
  anonymousId?: string | number | null;
  messageId?: string;
  properties?: Record<string, unknown>;
  traits?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /** When Sluice stored it (ISO 8601). */
  receivedAt: string;
  /**
   * Its place in the stored order: a larger sequence was stored later (the store's row id, as an
   * export line's `id`; not contiguous: other messages lie between; counted from 1 again after a reset).
   */
  sequence: number;
  /** The name of the source whose write key sent it. */
  source: string;
  /** ingest (a client sent it), audience (an audience sync) or plan (a Violation Generated event). */
  origin: string;
  status: (typeof MESSAGE_STATUSES)[number];
  /** Why it was refused (status rejected); null otherwise. */
  rejection: { code: string; reason: string } | null;
  /** Each way it breaks its source's tracking plans (empty: none, or no plan). */
  violations: Violation[];
  /** Why a plan blocked it (its deliveries were skipped); null: not blocked. */
  blocked: string | null;
  /** Why Segment's Tracking API would refuse it ("Segment would refuse this: over 500 KB …"); null when it would not. */
  warning: string | null;
  /** Whether it is pinned in the inspector (messages.pin): retention and clears keep it. */
  pinned: boolean;
}

/**
 * The fields Sluice adds beside a message's own in a TestMessage — what the HTTP API, `sluice/testing` and
 * `sluice tail --json` show of a message besides the message — by name: what an import of their answers
 * leaves out (transfer/import-parse.ts). test-queries.ts builds them as an object of exactly these keys, so a
 * field added there and not here does not compile.
 */
export const SLUICE_FIELDS = ['receivedAt', 'sequence', 'source', 'origin', 'status', 'rejection', 'violations', 'blocked', 'warning', 'pinned'] as const;
export type SluiceFields = { [K in (typeof SLUICE_FIELDS)[number]]: TestMessage[K] };

/** A delivery as a test sees it: where it went, how it ended, each attempt, and its message. */
export interface TestDelivery {
  id: number;
  /** The destination's name. */
  destination: string;
  status: DeliveryStatus;
  trigger: DeliveryTrigger;
  attemptCount: number;
  lastError: string | null;
  /** Why a `skipped` delivery was not sent (a tracking plan's block, integrations that turn it off…); null otherwise. */
  skipReason: string | null;
  /**
   * What the destination's filters and transform made of it: "transformed (version …)", "dropped by
   * filter 2 (if: …)", "dropped by transform: …", …; null when the destination has neither.
   */
  shaping: string | null;
  /** The body sent (the last attempt's); null until one is. A transform's fan-out: a JSON array of the bodies sent, in order. */
  body: string | null;
  message: TestMessage | null;
  attempts: {
    url: string;
    startedAt: string;
    durationMs: number;
    status: number | null;
    error: string | null;
    outcome: string;
    /** The transform's run whose output it sent: version, time, log lines, output (absent: no transform). */
    transform?: TransformRunView;
  }[];
}

/** A stored message with its row id (the HTTP API's paging cursor). */
export interface Row {
  id: number;
  message: TestMessage;
}

/** A message filter's fields (what checkFilter takes): given as an option instead, they are said to belong in the filter. */
export const MESSAGE_FILTER_FIELDS: readonly string[] = [...EXACT, ...PARTIAL, 'violations'];

/**
 * Options checked as filters are: one the call does not take (misspelt, or a filter's field given as an
 * option) is a TypeError naming it and what the call takes, never silently dropped — a dropped
 * `destination` or `status` would let a wait pass on the wrong delivery.
 */
export function checkOptions(options: unknown, allowed: readonly string[], where: string, filterFields: readonly string[] = MESSAGE_FILTER_FIELDS): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError(`${where}: options are an object, e.g. { timeoutMs: 5000 }`);
  for (const key of Object.keys(options)) {
    if (allowed.includes(key)) continue;
    const hint = /^timeout/i.test(key) && allowed.includes('timeoutMs') ? ' (did you mean timeoutMs?)' : filterFields.includes(key) ? ' (a field of the filter: give it there)' : '';
    throw new TypeError(`${where}: unknown option ${JSON.stringify(key)}${hint}; it takes ${allowed.join(', ')}`);
  }
}

/** A filter checked before it is used: unknown fields and wrong types are a typed error, not "no match". */
export function checkFilter(filter: unknown, where: string): MessageFilter {
  if (filter === undefined || filter === null) return {};
  if (typeof filter !== 'object' || Array.isArray(filter)) throw new TypeError(`${where}: a filter is an object, e.g. { event: 'Order Completed' }`);
  for (const [key, value] of Object.entries(filter)) {
    if ((EXACT as readonly string[]).includes(key)) {
      if (value !== undefined && typeof value !== 'string' && !(typeof value === 'number' && (key === 'userId' || key === 'anonymousId'))) {
        throw new TypeError(`${where}: filter.${key} must be a string`);
      }
      if (key === 'status' && value !== undefined && !(MESSAGE_STATUSES as readonly unknown[]).includes(value)) {
        throw new TypeError(`${where}: filter.status must be one of ${MESSAGE_STATUSES.join(', ')}`);
      }
      // Before 2026-12-01 any string was taken: "plans" or "Plan" matched nothing, a list came back empty
      // and a wait timed out, for a word the error could have named.
      if (key === 'origin' && value !== undefined && !(MESSAGE_ORIGINS as readonly unknown[]).includes(value)) {
        throw new TypeError(`${where}: filter.origin must be one of ${MESSAGE_ORIGINS.join(', ')} (ingest: a client sent it; audience: an audience sync; plan: a Violation Generated event)`);
      }
    } else if (key === 'violations') {
      if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`${where}: filter.violations must be true (only messages that break a plan) or false`);
    } else if ((PARTIAL as readonly string[]).includes(key)) {
      if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) throw new TypeError(`${where}: filter.${key} must be an object (matched in part)`);
    } else {
      throw new TypeError(`${where}: unknown filter field "${key}"; filter by ${MESSAGE_FILTER_FIELDS.join(', ')}`);
    }
  }
  return filter as MessageFilter;
}

/** Whether `message` is one the filter means. */
export function matches(message: TestMessage, filter: MessageFilter): boolean {
  return misses(message, filter).length === 0;
}

/** The filter's fields this message does not match, each as "field: wanted ≠ got". */
function misses(message: TestMessage, filter: MessageFilter): string[] {
  const out: string[] = [];
  for (const key of EXACT) {
    const wanted = filter[key];
    if (wanted === undefined) continue;
    const got = message[key];
    if (got === undefined || got === null || String(got) !== String(wanted)) out.push(`${key}: wanted ${showValue(wanted)}, got ${showValue(got)}`);
  }
  for (const key of PARTIAL) {
    const wanted = filter[key];
    if (wanted === undefined) continue;
    const path = firstDifference(wanted, message[key], key);
    if (path) out.push(path);
  }
  // A tracking plan's Violation Generated events are Sluice's, not the app's: a test counting its
  // app's messages must not count them.
  if (filter.origin === undefined && message.origin === 'plan') out.push('origin: a Violation Generated event (filter by origin "plan" to see these)');
  if (filter.violations !== undefined && filter.violations !== message.violations.length > 0) {
    out.push(filter.violations ? 'violations: wanted some, got none' : `violations: wanted none, got ${message.violations.map((v) => v.message).join('; ')}`);
  }
  return out;
}

/** Where `actual` first fails to hold `expected` (objects in part, anything else whole); null when it holds. */
function firstDifference(expected: unknown, actual: unknown, path: string): string | null {
  return fieldDifferences(expected, actual, path, { partial: true, limit: 1 })[0] ?? null;
}

/**
 * Why a wait found too few: what was asked, how many matched, and the messages that came closest —
 * the same event with other properties, the same user with other events — each with what differs;
 * when none shares anything asked, the latest that arrived. `all`: the messages to look among (the
 * latest few hundred: a wait never reads the whole store), `stored` how many there are in all.
 */
export function explainShortfall(
  filter: MessageFilter,
  count: number,
  matched: number,
  all: readonly TestMessage[],
  timeoutMs: number,
  shown: MessageFilter = filter,
  stored = all.length,
): string {
  const asked = Object.keys(shown).length === 0 ? 'any message' : JSON.stringify(shown);
  const kind = shown.status === undefined && filter.status === 'accepted' ? 'accepted ' : '';
  const head = `waited ${timeoutMs} ms for ${count} ${kind}message${count === 1 ? '' : 's'} matching ${asked}; ${matched} arrived (${stored} stored in all)`;
  // Close: sharing some of what the test asked (an implied status alone does not make a message close).
  const criteria = Object.values(shown).filter((v) => v !== undefined).length;
  const near = all
    .map((message) => ({ message, missed: misses(message, filter), missedAsked: misses(message, shown).length }))
    .filter(({ missed, missedAsked }) => missed.length > 0 && missedAsked < criteria)
    .sort((a, b) => a.missed.length - b.missed.length)
    .slice(0, 5);
  if (near.length === 0) {
    if (all.length === 0) return `${head}. Nothing was stored: is the client pointed at this Sluice, with its write key, and flushed?`;
    // Nothing shares any of what was asked: what did arrive, the latest first.
    const latest = all.slice(-5).reverse().map((message) => `  - ${label(message)}`);
    return `${head}. None comes close; the latest stored:\n${latest.join('\n')}`;
  }
  const lines = near.map(({ message, missed }) => `  - ${label(message)}: ${missed.join('; ')}`);
  return `${head}. Closest:\n${lines.join('\n')}`;
}

export function label(message: TestMessage): string {
  const what = message.event !== undefined ? `${message.type} "${message.event}"` : String(message.type);
  const who = message.userId ?? message.anonymousId;
  return `${what}${who !== undefined && who !== null ? ` of ${showValue(who)}` : ''} (${message.status}, ${message.messageId ?? 'no messageId'})`;
}
