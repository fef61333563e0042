/**
 * The query language (shared/message-query.ts) evaluated on one message in JavaScript, meaning what the
 * store's SQL means for the same query (electron/core/store/message-query-sql.ts): a destination's
 * filters test each message before delivery (electron/core/transforms/filters.ts), and the inspector
 * tests live rows on what their summaries show (renderer/src/store/filters.ts, through columnClause).
 * tests/integration/store/message-match-differential.test.ts holds the two to the same answers.
 *
 * How each clause is read, as the SQL reads it:
 * - words: the message's JSON with its string escapes read (wordText), the words one after the other
 *   (hasWords: FTS5's `ascii` tokenizer, the last word a prefix when the parser says so);
 * - a column (event, type, userId, …): the stored column's text LIKE the value (ASCII case-insensitive,
 *   `*` any characters: matchesPattern); a column without a value (an identify's event) matches nothing;
 * - a payload path: a string by its text, anything else by its JSON (12, true, null, {"a":1}); a segment
 *   of digits indexes an array only, a name an object only; `>`, `>=`, `<`, `<=` compare numbers only;
 * - a leading minus: the clause does not hold (a missing field or column counts as not holding, so
 *   `-properties.coupon:*` is every message without a coupon).
 *
 * Where a message object cannot say what the stored text said, the answers may differ: the store reads
 * the message as the client wrote it (`1.50`, `1e2`, `caf\u00e9` inside an object, a key given twice),
 * this reads the parsed object as JavaScript writes it again (`1.5`, `100`, `café`, the last key).
 * Plain TypeScript (shared/message-query.ts, shared/limits.ts): the inspector bundles it.
 */
import { ID_COLUMN_MAX } from './limits.ts';
import {
  deliveryClauseValue,
  hasWords,
  matchesPattern,
  parseQuery,
  patternTest,
  skipKindOf,
  stepStates,
  wordText,
  type Clause,
  type ColumnField,
  type Comparison,
} from './message-query.ts';

/**
 * What a stored row holds beside its message, as a clause on it reads it. Left out (undefined): not
 * known here — the clause on it does not hold (columnClause answers null, for callers that skip it).
 */
export interface RowFacts {
  /** The name of the source that received the message (null: none). */
  source?: string | null;
  /** ingest, client, audience or plan. */
  origin?: string;
  /** How many tracking-plan violations the message has (0: none). */
  violations?: number;
  /** The names of the tracking plans it breaks. */
  plans?: readonly string[];
  /** The row's outcome as the stream shows it: rejected, duplicate, a delivery state, or none (renderer/src/store/outcome.ts). */
  outcome?: string;
  /** Its automatic deliveries (one per destination its source routed it to): the destination's name, the state, the skip reason. */
  deliveries?: readonly { destination: string; status: string; skipReason: string | null }[];
  /** Whether the user pinned the message (messages.pin). */
  pinned?: boolean;
  /** The Issues groups its failed or retrying deliveries are in (the store's: not known in a filter or a live row). */
  issues?: readonly number[];
}

/** The stored columns of a message, as ingestion fills them (electron/core/ingest/prepare-request.ts). */
export interface MessageColumns {
  type: string | null;
  /** The track event, or the page or screen name. */
  event: string | null;
  userId: string | null;
  anonymousId: string | null;
  messageId: string | null;
}

/** An id as its column holds it: a string (empty: none), or a finite number's text (ingestion fills the columns with it). */
export function idText(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value.slice(0, ID_COLUMN_MAX);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const MESSAGE_COLUMNS: ReadonlySet<ColumnField> = new Set(['type', 'event', 'userId', 'anonymousId', 'messageId']);

/** One column of an accepted message's row. */
export function messageColumn(message: Readonly<Record<string, unknown>>, field: keyof MessageColumns): string | null {
  switch (field) {
    case 'type':
      return text(message.type);
    case 'event':
      return message.type === 'track' ? text(message.event) : message.type === 'page' || message.type === 'screen' ? text(message.name) : null;
    case 'messageId':
      return text(message.messageId);
    default:
      return idText(message[field]);
  }
}

/** The columns an accepted message's row has. */
export function columnsOf(message: Readonly<Record<string, unknown>>): MessageColumns {
  return {
    type: messageColumn(message, 'type'),
    event: messageColumn(message, 'event'),
    userId: messageColumn(message, 'userId'),
    anonymousId: messageColumn(message, 'anonymousId'),
    messageId: messageColumn(message, 'messageId'),
  };
}

/**
 * Whether a column clause (without its minus) holds for a row, as the SQL answers it; null when the row's
 * value is not known here (the fact was left out). A value the row does not have is false (SQL's NULL).
 */
export function columnClause(field: ColumnField, value: string, row: Partial<MessageColumns> & RowFacts): boolean | null {
  const like = (v: string | null | undefined) => (v === undefined ? null : v !== null && matchesPattern(v, value));
  switch (field) {
    case 'source':
      return like(row.source);
    case 'origin':
      return like(row.origin);
    case 'violations':
      return row.violations === undefined ? null : value.toLowerCase() === 'no' ? row.violations === 0 : row.violations > 0;
    case 'pinned':
      return row.pinned === undefined ? null : (value.toLowerCase() === 'true') === row.pinned;
    case 'issue':
      return row.issues === undefined ? null : row.issues.includes(Number(value));
    case 'plan':
      return row.plans === undefined ? null : row.plans.some((plan) => matchesPattern(plan, value));
    case 'status': {
      if (row.outcome === undefined) return null;
      const lower = value.toLowerCase();
      const accepted = row.outcome !== 'rejected' && row.outcome !== 'duplicate';
      if (lower === 'accepted') return accepted;
      if (!value.includes('*') && lower !== 'rejected' && lower !== 'duplicate') return accepted && row.outcome === lower;
      return matchesPattern(row.outcome, value);
    }
    case 'delivery': {
      if (row.deliveries === undefined) return null;
      const { destination, step } = deliveryClauseValue(value);
      const { states, skip } = stepStates(step);
      return row.deliveries.some(
        (d) => matchesPattern(d.destination, destination) && (states === null || states.includes(d.status)) && (skip === undefined || skipKindOf(d.skipReason) === skip),
      );
    }
    default:
      return like(row[field]);
  }
}

/** The value at a path (segments from the message's root), or undefined: digits index arrays only, names objects only. */
export function valueAtPath(message: unknown, path: readonly string[]): unknown {
  let value = message;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    if (Array.isArray(value)) {
      if (!/^\d+$/.test(segment)) return undefined;
      value = value[Number(segment)];
    } else {
      if (/^\d+$/.test(segment) || !Object.hasOwn(value, segment)) return undefined;
      value = (value as Record<string, unknown>)[segment];
    }
  }
  return value;
}

function compare(value: unknown, op: Comparison, number: number): boolean {
  if (typeof value !== 'number') return false;
  return op === '>' ? value > number : op === '>=' ? value >= number : op === '<' ? value < number : value <= number;
}

/** One clause as a test of a message (without its minus); `words` is the message's word text when a clause needs it. */
type ClauseTest = (message: Readonly<Record<string, unknown>>, facts: RowFacts, words: string) => boolean;

function clauseTest(clause: Clause): ClauseTest {
  if (clause.kind === 'words') {
    const { words, prefix } = clause;
    // A necessary condition the regular expression engine checks fast: the longest ASCII word appears,
    // in either case (without the u flag, /i folds no character beyond ASCII onto one within it).
    const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
    const quick = /^[a-z0-9]+$/.test(longest) ? new RegExp(longest, 'i') : null;
    return (_message, _facts, text) => (quick === null || quick.test(text)) && hasWords(text, words, prefix);
  }
  if (clause.kind === 'path') {
    const { path } = clause;
    if (clause.compare) {
      const { op, number } = clause.compare;
      return (message) => compare(valueAtPath(message, path), op, number);
    }
    const test = patternTest(clause.value);
    // A string by its text, anything else by its JSON (12, true, null, {"a":1}).
    return (message) => {
      const value = valueAtPath(message, path);
      return value !== undefined && test(typeof value === 'string' ? value : JSON.stringify(value));
    };
  }
  const { field, value } = clause;
  if (MESSAGE_COLUMNS.has(field)) {
    const test = patternTest(value);
    return (message) => {
      const column = messageColumn(message, field as keyof MessageColumns);
      return column !== null && test(column);
    };
  }
  if (field === 'source' || field === 'origin') {
    const test = patternTest(value);
    return (_message, facts) => {
      const fact = facts[field];
      return typeof fact === 'string' && test(fact);
    };
  }
  return (_message, facts) => columnClause(field, value, facts) === true;
}

/** A query made ready to test messages (parsed once). */
export interface MessageMatcher {
  readonly clauses: readonly Clause[];
  /** Whether every clause holds for this message and its row's facts (unknown facts do not hold). */
  matches(message: Readonly<Record<string, unknown>>, facts: RowFacts): boolean;
}

/** The matcher of a query (parsed with parseQuery: a QueryError when it does not parse); an empty query matches every message. */
export function messageMatcher(query: string | readonly Clause[]): MessageMatcher {
  const clauses = typeof query === 'string' ? parseQuery(query) : query;
  const tests = clauses.map((clause) => ({ negated: clause.negated, test: clauseTest(clause) }));
  const needsWords = clauses.some((c) => c.kind === 'words');
  return {
    clauses,
    matches(message, facts) {
      // The message's words, read once per message and only when a clause needs them.
      const words = needsWords ? wordText(JSON.stringify(message)) : '';
      for (const { negated, test } of tests) if (test(message, facts, words) === negated) return false;
      return true;
    },
  };
}

/** Whether `message` matches `query`, once (a loop should keep a messageMatcher). */
export function matchesMessage(query: string, message: Readonly<Record<string, unknown>>, facts: RowFacts = {}): boolean {
  return messageMatcher(query).matches(message, facts);
}
