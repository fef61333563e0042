// The query language (shared/message-query.ts) as SQL over `messages m`.
//
// Every clause has an exact test on a row (`where`): LIKE on a column, json_extract on the raw
// message for a path, sluice_words() (store/sql-functions.ts) for words. Two indexes narrow the rows
// to test (store/message-search.ts reads through one of them, where it covers the messages):
// - the word index (messages_text, FTS5 `ascii` over the raw message, migration 12) answers words
//   clauses exactly — their tests are then left out — and gives a necessary condition for a path
//   clause whose value is plain words;
// - else the trigram index (messages_search, migration 11) gives a necessary condition for a column
//   clause with 3 literal characters in a row.
import {
  deliveryClauseValue,
  likePattern,
  parseQuery,
  PREFIX_MIN,
  SKIP_REASON_STARTS,
  stepStates,
  wordsOf,
  type Clause,
  type DeliveryStep,
} from '../../../shared/message-query.ts';
import { shownDeliveryIs, shownDeliverySql } from './shown-delivery.ts';

type Param = string | number;

export interface CompiledQuery {
  /** Every clause's test on `messages m`. */
  where: string[];
  params: Param[];
  /** Through an index: `words` (exact for the words clauses, whose tests `indexedWhere` leaves out) or `trigram`. */
  index: { table: 'messages_text' | 'messages_search'; match: string; where: string[]; params: Param[] } | null;
}

const EMPTY: CompiledQuery = { where: [], params: [], index: null };

/** A search index whose matches hold every row some SQL terms pick: they narrow, the terms stay the test. */
export interface IndexHint {
  table: 'messages_search' | 'messages_text';
  match: string;
}

/** The query, read through `hint` when the query has no index of its own (its tests unchanged). */
export function withIndex(query: CompiledQuery, hint: IndexHint | undefined): CompiledQuery {
  if (query.index !== null || !hint) return query;
  return { ...query, index: { table: hint.table, match: hint.match, where: query.where, params: query.params } };
}

/** The query's SQL; a QueryError (shared/message-query.ts) when it does not parse. */
export function compileQuery(query: string | undefined): CompiledQuery {
  if (!query?.trim()) return EMPTY;
  const clauses = parseQuery(query);
  const where: string[] = [];
  const params: Param[] = [];
  // The same tests without those the word index answers exactly.
  const rest: string[] = [];
  const restParams: Param[] = [];
  const positive: string[] = [];
  const negative: string[] = [];
  const trigram: string[] = [];
  for (const clause of clauses) {
    const test = clauseSql(clause);
    const sql = clause.negated ? `NOT coalesce(${test.sql}, 0)` : test.sql;
    where.push(sql);
    params.push(...test.params);
    if (clause.kind === 'words') {
      (clause.negated ? negative : positive).push(phrase(clause.words, clause.prefix));
      continue;
    }
    rest.push(sql);
    restParams.push(...test.params);
    if (clause.negated) continue;
    if (clause.kind === 'path') {
      const words = pathWords(clause);
      if (words) positive.push(words);
    } else if (TRIGRAM_COLUMNS[clause.field]) {
      trigram.push(...trigramTerms(TRIGRAM_COLUMNS[clause.field]!, clause.value));
    }
  }
  if (positive.length > 0) {
    // NOT (a OR b …): FTS5 nests a chain of NOTs one level each (256 at most), an OR list it keeps flat.
    const match = negative.length ? `(${positive.join(' AND ')}) NOT (${negative.join(' OR ')})` : positive.join(' AND ');
    return { where, params, index: { table: 'messages_text', match, where: rest, params: restParams } };
  }
  if (trigram.length > 0) return { where, params, index: { table: 'messages_search', match: trigram.join(' AND '), where, params } };
  return { where, params, index: null };
}

/** The stored column a field compares with, and whether the trigram index holds it (by its name there). */
const COLUMNS = { event: 'm.event', userId: 'm.user_id', anonymousId: 'm.anonymous_id', messageId: 'm.message_id', type: 'm.type', origin: 'm.origin' } as const;
const TRIGRAM_COLUMNS: Partial<Record<string, string>> = { event: 'event', userId: 'user_id', anonymousId: 'anonymous_id', messageId: 'message_id' };

/**
 * Rejected messages may be any text: json_extract() would fail on one that is not JSON. (In CASE:
 * SQLite may evaluate both sides of an AND.)
 */
export const ifJson = (sql: string) => `(CASE WHEN m.status <> 'rejected' OR json_valid(m.raw) THEN ${sql} END)`;

function clauseSql(clause: Clause): { sql: string; params: Param[] } {
  if (clause.kind === 'words') return { sql: 'sluice_words(m.raw, ?)', params: [wordsSpec(clause.words, clause.prefix)] };
  if (clause.kind === 'path') {
    const path = jsonPath(clause.path);
    if (clause.compare) {
      return {
        sql: ifJson(`CASE WHEN json_type(m.raw, ?) IN ('integer', 'real') THEN json_extract(m.raw, ?) ${clause.compare.op} ? END`),
        params: [path, path, clause.compare.number],
      };
    }
    // A string compares by its text, anything else by its JSON (12, true, null, {"a":1}).
    return {
      sql: ifJson(`CASE json_type(m.raw, ?) WHEN 'text' THEN json_extract(m.raw, ?) ELSE m.raw -> ? END LIKE ? ESCAPE '\\'`),
      params: [path, path, path, likePattern(clause.value)],
    };
  }
  const pattern = likePattern(clause.value);
  switch (clause.field) {
    case 'source':
      return { sql: "m.source_id IN (SELECT id FROM sources WHERE name LIKE ? ESCAPE '\\')", params: [pattern] };
    case 'status':
      if (clause.value.toLowerCase() === 'accepted') return { sql: "m.status = 'accepted'", params: [] };
      if (!clause.value.includes('*') && clause.value.toLowerCase() !== 'rejected' && clause.value.toLowerCase() !== 'duplicate') {
        const shown = shownDeliveryIs(clause.value.toLowerCase());
        return { sql: `(m.status = 'accepted' AND ${shown.sql})`, params: shown.params };
      }
      // The row's outcome, as the inspector shows it (renderer/src/store/outcome.ts).
      return { sql: `(CASE WHEN m.status <> 'accepted' THEN m.status ELSE ${shownDeliverySql('m')} END) LIKE ? ESCAPE '\\'`, params: [pattern] };
    case 'violations':
      return { sql: clause.value.toLowerCase() === 'no' ? 'm.violations IS NULL' : 'm.violations IS NOT NULL', params: [] };
    case 'delivery':
      return deliveryStepSql(clause.value);
    case 'pinned':
      // pinned = 1 as a term of its own: the partial index messages_pinned (migration 23) reads only those rows.
      return { sql: clause.value.toLowerCase() === 'true' ? 'm.pinned = 1' : 'm.pinned IS NULL', params: [] };
    case 'issue':
      // The group's open deliveries (migration 24: issue_deliveries holds a delivery while it is failed or retrying), by its index.
      return { sql: 'm.id IN (SELECT x.message_id FROM issue_deliveries i JOIN deliveries x ON x.id = i.delivery_id WHERE i.issue_id = ?)', params: [Number(clause.value)] };
    case 'plan':
      return { sql: "EXISTS (SELECT 1 FROM json_each(m.violations) WHERE json_extract(value, '$.plan') LIKE ? ESCAPE '\\')", params: [pattern] };
    default:
      return { sql: `${COLUMNS[clause.field]} LIKE ? ESCAPE '\\'`, params: [pattern] };
  }
}

/** Steps that most deliveries may be at: tested per message through deliveries_message, not listed first. */
const COMMON_STEPS: ReadonlySet<DeliveryStep> = new Set(['received', 'attempted', 'delivered']);

/**
 * `delivery:DESTINATION:STEP` (shared/message-query.ts): the message has an automatic delivery to a
 * destination of that name at that step. A rare step lists its deliveries first, through
 * deliveries_funnel (migrations 22 and 26: trigger, destination, status, created_at, skip_reason; the deliveries
 * not delivered), then tests the message's id against them; a common one is tested per message through
 * deliveries_message.
 */
function deliveryStepSql(value: string): { sql: string; params: Param[] } {
  const { destination, step } = deliveryClauseValue(value);
  const { states, skip } = stepStates(step);
  const terms = ["d.destination_id IN (SELECT id FROM destinations WHERE name LIKE ? ESCAPE '\\')", "d.trigger = 'automatic'"];
  const params: Param[] = [likePattern(destination)];
  if (states) {
    terms.push(`d.status IN (${states.map(() => '?').join(', ')})`);
    params.push(...states);
    // deliveries_funnel holds no delivered delivery (migration 26): the planner reads it only when told so.
    if (!states.includes('delivered')) terms.push("d.status <> 'delivered'");
  }
  if (skip) {
    const kinds = skip === 'other' ? Object.values(SKIP_REASON_STARTS).flat() : SKIP_REASON_STARTS[skip];
    const starts = kinds.map(() => "coalesce(d.skip_reason, '') LIKE ? ESCAPE '\\'").join(' OR ');
    terms.push(skip === 'other' ? `NOT (${starts})` : `(${starts})`);
    params.push(...kinds.map((start) => `${likePattern(start)}%`));
  }
  const where = terms.join(' AND ');
  if (COMMON_STEPS.has(step)) return { sql: `EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id AND ${where})`, params };
  return { sql: `m.id IN (SELECT d.message_id FROM deliveries d WHERE ${where})`, params };
}

/** sluice_words()'s second argument: the words, the first element saying whether the last is a prefix. */
export function wordsSpec(words: readonly string[], prefix: boolean): string {
  return JSON.stringify([prefix ? 1 : 0, ...words]);
}

/** An FTS5 phrase: the words one after the other, the last as a prefix when asked. */
function phrase(words: readonly string[], prefix: boolean): string {
  return `"${words.join(' ')}"${prefix ? ' *' : ''}`;
}

/** A JSON path for json_extract: each key quoted, a segment of digits an array index. */
export function jsonPath(segments: readonly string[]): string {
  return `$${segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `."${s.replace(/["\\]/g, (c) => `\\${c}`)}"`)).join('')}`;
}

/**
 * Words a path clause's value must have in the message, as an FTS5 expression — only for a value with
 * a letter: the index holds the JSON with its string escapes read (wordText), so a string has the words
 * the client meant however its encoder wrote it (`&` as `\u0026` in Go, Gson and .NET), but a number's
 * JSON may be written otherwise (1e2 for 100). Between wildcards: the words whole, except one a wildcard
 * cuts (before: dropped; after: a prefix from PREFIX_MIN characters, else dropped).
 */
function pathWords(clause: Extract<Clause, { kind: 'path' }>): string | null {
  if (clause.compare || !/[A-Za-z]/.test(clause.value)) return null;
  const phrases: string[] = [];
  const segments = clause.value.split('*');
  segments.forEach((segment, i) => {
    let words = wordsOf(segment);
    if (i > 0 && /^[A-Za-z0-9]/.test(segment)) words = words.slice(1);
    let prefix = false;
    if (i < segments.length - 1 && /[A-Za-z0-9]$/.test(segment) && words.length > 0) {
      if (words.at(-1)!.length >= PREFIX_MIN) prefix = true;
      else words = words.slice(0, -1);
    }
    if (words.length > 0) phrases.push(phrase(words, prefix));
  });
  return phrases.length ? phrases.join(' AND ') : null;
}

/** The trigram index's terms for a column: each literal run of 3 characters or more, ASCII-lowercased as indexed. */
function trigramTerms(column: string, value: string): string[] {
  return value
    .split('*')
    .filter((run) => [...run].length >= 3 && !run.includes('\0')) // a NUL ends an FTS5 phrase: no hint from that run
    .map((run) => `{${column}} : "${run.replace(/[A-Z]/g, (c) => c.toLowerCase()).replaceAll('"', '""')}"`);
}
