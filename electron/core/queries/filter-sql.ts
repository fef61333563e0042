/**
 * A test's filter (filters.ts) as SQL terms on `messages m`, matching exactly the messages `matches`
 * picks, so that a page of the HTTP API is read by id with SQL rather than by converting every stored
 * message in JavaScript. Each field is read where the test's message takes it from (test-message.ts):
 * the row's columns for what Sluice recorded (type and messageId, then the message's own when the row
 * has none; status, origin, source, violations), the message as received for the rest — through the
 * column that holds the same value where there is one (a track's event, the ids), so that most rows
 * are not parsed — except `context`, whose keys the message may take from its batch (its request's
 * envelope). A field matches by its text, as `matches` compares (a userId of 42 matches "42").
 */
import { asciiLower, wordsOf } from '../../../shared/message-query.ts';
import { ID_COLUMN_MAX } from '../../../shared/limits.ts';
import { NO_SOURCE_ID } from '../../../shared/refused-request.ts';
import { messageIdCondition } from '../store/message-ids.ts';
import { ifJson, type IndexHint } from '../store/message-query-sql.ts';
import { partialIndexTerm } from '../store/prepared.ts';
import type { MessageFilter } from './filters.ts';

export interface SqlTerms {
  where: string[];
  params: (string | number)[];
  /**
   * A search index whose matches hold every row the terms pick (a necessary condition, the terms
   * stay the exact test): read through it where it covers the messages (store/message-search.ts),
   * so that a filter naming an id, an event or a payload string does not test every stored row.
   */
  index?: IndexHint;
  /** The terms name a messageId, read by id through B-trees: a few rows, read on the core's thread (store-reader.ts). */
  byId?: boolean;
}
/**
 * The text of the received message's field at `path` as `String(value)` reads it (a string, a
 * number, true or false); NULL when it is missing, null, an object, or the text is not JSON (a
 * rejected message may be any text: json_type() would fail on it; CASE, since SQLite may evaluate
 * both sides of an AND).
 */
function receivedText(path: string): string {
  const at = `json_extract(m.raw, '${path}')`;
  return ifJson(`CASE json_type(m.raw, '${path}')
    WHEN 'text' THEN ${at} WHEN 'integer' THEN CAST(${at} AS TEXT) WHEN 'real' THEN CAST(${at} AS TEXT)
    WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END`);
}

/**
 * The filter's terms (`everyOrigin`: Violation Generated events too, as a lookup by messageId finds
 * them), and the search index that narrows them where one can (`index`): the trigram index of the
 * ids (3 characters or more: its terms are trigrams), else the word index for the event and for the
 * strings the filter names in part in properties and traits (matched in part by `matches` in
 * JavaScript, on the rows these terms give). Not for those in context: the word index holds the
 * message's own text, not its batch's context, which the message may take them from.
 */
export function filterSql(filter: MessageFilter, options: { everyOrigin?: boolean } = {}): SqlTerms {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (sql: string, ...values: (string | number)[]) => (where.push(sql), params.push(...values));
  const addTerm = (term: { sql: string; params: (string | number)[] }) => add(term.sql, ...term.params);
  const text = (value: string | number) => String(value);
  // A rejected message's fields are read from its text (ingestion recorded no columns it could not
  // trust); the others' from the columns, which the trigram index holds.
  const notRejected = filter.status !== undefined && filter.status !== 'rejected';
  const trigrams: string[] = [];
  // A NUL ends an FTS5 phrase ("unterminated string", a 500): such a value gets no hint, its exact test stays.
  const trigram = (column: string, value: string | number) => {
    if ([...text(value)].length >= 3 && !text(value).includes('\0')) trigrams.push(`{${column}} : "${asciiLower(text(value)).replaceAll('"', '""')}"`);
  };
  // The row's type, or the message's own when ingestion knew no such type (a rejected message).
  if (filter.type !== undefined) add(`(m.type = ? OR (m.type IS NULL AND ${receivedText('$.type')} = ?))`, filter.type, filter.type);
  // An accepted (or duplicate) track's event column is its event; any other message's is its name, or nothing.
  if (filter.event !== undefined) {
    add(`(CASE WHEN m.type = 'track' AND m.status <> 'rejected' THEN m.event ELSE ${receivedText('$.event')} END) = ?`, filter.event);
  }
  // The id columns hold the message's userId and anonymousId as text (a number as String() writes it),
  // except an empty one (NULL) and the end of one past ID_COLUMN_MAX (cut): those are read from the text.
  for (const [key, column, path] of [['userId', 'user_id', '$.userId'], ['anonymousId', 'anonymous_id', '$.anonymousId']] as const) {
    const value = filter[key];
    if (value === undefined) continue;
    if (idInColumn(value)) (add(`m.${column} = ?`, text(value)), trigram(column, value));
    else add(`${receivedText(path)} = ?`, text(value));
  }
  // A source by its name, or by the label a message of a deleted source (or of none) shows.
  if (filter.source !== undefined) {
    const label = /^source ([1-9]\d{0,15})$/.exec(filter.source);
    const unnamed = filter.source === 'no source' ? NO_SOURCE_ID : label ? Number(label[1]) : -1;
    add('(m.source_id IN (SELECT id FROM sources WHERE name = ?) OR (m.source_id = ? AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.id = m.source_id)))', filter.source, unnamed);
  }
  // A messageId is read by id through B-trees (store/message-ids.ts): a few rows, however many are stored.
  let byId = false;
  if (filter.messageId !== undefined) {
    const lookup = messageIdCondition(filter.messageId, filter.status);
    if (filter.messageId === '') add(`(m.message_id = ? OR (m.message_id IS NULL AND ${receivedText('$.messageId')} = ?))`, filter.messageId, filter.messageId);
    else if (notRejected || !/^(-?\d|true$|false$)/.test(filter.messageId)) add(lookup.sql, ...lookup.params);
    else {
      // The text branch can match only a refused message's messageId that is not a string (a number, true,
      // false; its column is empty): those are read among the messages not accepted, through their index.
      const refused = `m.id IN (SELECT m.id FROM messages m INDEXED BY messages_unaccepted WHERE m.status <> 'accepted' AND m.message_id IS NULL AND ${receivedText('$.messageId')} = ?)`;
      add(`(${lookup.sql} OR ${refused})`, ...lookup.params, filter.messageId);
    }
    byId = filter.messageId !== '';
  }
  if (filter.status !== undefined) addTerm(partialIndexTerm('m.status', filter.status));
  // A tracking plan's Violation Generated events are left out unless the filter names their origin.
  if (filter.origin !== undefined) addTerm(partialIndexTerm('m.origin', filter.origin));
  else if (!options.everyOrigin) add("m.origin <> 'plan'");
  if (filter.violations !== undefined) add(`coalesce(json_array_length(m.violations), 0) ${filter.violations ? '>' : '='} 0`);
  // What a filter names in part, its plain values (a string, a number, true, false, null) tested in SQL
  // — exactly as `matches` compares them — so that the rows read and parsed are the matches, not every
  // row the other terms allow; arrays (compared whole) are left to `matches`.
  for (const key of ['properties', 'traits'] as const) {
    const wanted = filter[key];
    if (wanted !== undefined) for (const leaf of plainLeaves(wanted, [key])) addTerm(ownTest(leaf));
  }
  if (filter.context !== undefined) for (const leaf of plainLeaves(filter.context, ['context'])) addTerm(contextTest(leaf));
  if (byId) return { where, params, byId };
  if (trigrams.length > 0) return { where, params, index: { table: 'messages_search', match: trigrams.join(' AND ') } };
  // The event, and the strings named in part in properties and traits, are strings in the message's
  // own text: their words are there (a context string may be its batch's: not in the word index).
  const phrases = [filter.event, filter.properties, filter.traits].flatMap((value) => (value === undefined ? [] : stringLeaves(value)));
  if (phrases.length > 0) return { where, params, index: { table: 'messages_text', match: phrases.join(' AND ') } };
  return { where, params };
}

/** Whether an id the filter names is in its column as the message has it (not empty, not cut). */
export function idInColumn(value: string | number): boolean {
  const text = String(value);
  return text !== '' && text.length <= ID_COLUMN_MAX;
}

/** A JSON path of object keys, each quoted (a key of digits is a key, not an array index). */
function keyPath(keys: readonly string[]): string {
  return `$${keys.map((k) => `."${k.replace(/["\\]/g, (c) => `\\${c}`)}"`).join('')}`;
}

/** A plain value a partial filter names: its path in the message, and its test there. */
interface Leaf {
  keys: string[];
  /** The test on the JSON text `doc` (m.raw, or r.envelope: the path is the same in both); on m.raw, wrap it in ifJson. */
  test: (doc: string) => { sql: string; params: (string | number)[] };
}

/**
 * The plain values a partial filter names, at most 16, each tested as `matches` compares it (deep
 * strict equality: a string only equals a string, a number a number — an integer only when it is
 * safe, past 2^53 JavaScript's and SQLite's readings part — true, false, null their own JSON type).
 */
function plainLeaves(value: unknown, keys: string[], out: Leaf[] = []): Leaf[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [key, leaf] of Object.entries(value)) {
    if (out.length >= 16) break;
    const at = [...keys, key];
    const path = keyPath(at);
    if (typeof leaf === 'string') out.push({ keys: at, test: (doc) => ({ sql: `json_type(${doc}, ?) = 'text' AND json_extract(${doc}, ?) = ?`, params: [path, path, leaf] }) });
    else if (typeof leaf === 'number' && Number.isFinite(leaf) && (Number.isSafeInteger(leaf) || !Number.isInteger(leaf))) {
      out.push({ keys: at, test: (doc) => ({ sql: `json_type(${doc}, ?) IN ('integer', 'real') AND json_extract(${doc}, ?) = ?`, params: [path, path, leaf] }) });
    } else if (typeof leaf === 'boolean' || leaf === null) out.push({ keys: at, test: (doc) => ({ sql: `json_type(${doc}, ?) = ?`, params: [path, leaf === null ? 'null' : String(leaf)] }) });
    else if (typeof leaf === 'object' && !Array.isArray(leaf)) plainLeaves(leaf, at, out);
  }
  return out;
}

/** A leaf's test on the message's own text. */
function ownTest(leaf: Leaf): { sql: string; params: (string | number)[] } {
  const { sql, params } = leaf.test('m.raw');
  return { sql: ifJson(sql), params };
}

/**
 * A context leaf's test on the context the message shows (test-message.ts): its batch's merged one
 * level down, its own keys winning. The key under `context` decides where the value is read: the
 * message's own context when it has that key (or has a context that is not an object, which it keeps),
 * else its request's envelope — looked up by the request's primary key only for such a message. Never
 * the envelope for a message nothing is merged into: a text that is not a JSON object, a rejected
 * message's stand-in (`{"_sluice": …}`, export-lines.ts notKeptWhole).
 */
function contextTest(leaf: Leaf): { sql: string; params: (string | number)[] } {
  const own = ownTest(leaf);
  const batch = leaf.test('r.envelope');
  const fromBatch = `json_type(m.raw) = 'object' AND NOT (m.status = 'rejected' AND substr(m.raw, 1, 11) = '{"_sluice":')
    AND (json_type(m.raw, '$.context') IS NULL OR (json_type(m.raw, '$.context') = 'object' AND json_type(m.raw, ?) IS NULL))`;
  return {
    sql: `(CASE WHEN ${ifJson(fromBatch)} THEN EXISTS (SELECT 1 FROM requests r WHERE r.id = m.request_id AND ${batch.sql}) ELSE ${own.sql} END)`,
    params: [keyPath(leaf.keys.slice(0, 2)), ...batch.params, ...own.params],
  };
}

/**
 * The word index's phrase for each string a partial filter names: a string value is a JSON string in
 * the message (matched deeply and strictly), so its words are there one after the other. Values
 * without a word, numbers and the rest narrow nothing; at most 8 phrases.
 */
function stringLeaves(value: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (out.length >= 8) return;
    if (typeof v === 'string') {
      const words = wordsOf(v);
      if (words.length > 0) out.push(`"${words.join(' ')}"`);
    } else if (typeof v === 'object' && v !== null) for (const item of Array.isArray(v) ? v : Object.values(v)) walk(item);
  };
  walk(value);
  return out;
}

/** What a delivery filter asks: its message's fields, the destination's name, the delivery's status. */
export interface DeliveryWanted {
  message: MessageFilter;
  destination?: string;
  status?: string;
}

/** A delivery filter's SQL terms on `dv` and its message `m`: the message's, the destination's name, the delivery's status. */
export function deliveryTerms(wanted: DeliveryWanted): SqlTerms {
  const terms = filterSql(wanted.message);
  if (wanted.destination !== undefined) (terms.where.push('dv.destination_id IN (SELECT id FROM destinations WHERE name = ?)'), terms.params.push(wanted.destination));
  if (wanted.status !== undefined) {
    const term = partialIndexTerm('dv.status', wanted.status);
    (terms.where.push(term.sql), terms.params.push(...term.params));
  }
  return terms;
}
