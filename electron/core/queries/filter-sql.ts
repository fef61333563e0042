/**
 * A test's filter (filters.ts) as SQL terms on `messages m`, matching exactly the messages `matches`
 * picks, so that a page of the HTTP API is read by id with SQL rather than by converting every stored
 * message in JavaScript. Each field is read where the test's message takes it from (test-queries.ts
 * testMessage): the row's columns for what Sluice recorded (type and messageId, then the message's own
 * when the row has none; status, origin, source, violations), the message as received for the rest —
 * through the column that holds the same value where there is one (a track's event, the ids), so that
 * most rows are not parsed. A field matches by its text, as `matches` compares (a userId of 42 matches "42").
 */
import type { MessageFilter } from './filters.ts';

export interface SqlTerms {
  where: string[];
  params: (string | number)[];
}

/**
 * The text of the received message's field at `path` as `String(value)` reads it (a string, a
 * number, true or false); NULL when it is missing, null, an object, or the text is not JSON (a
 * rejected message may be any text: json_type() would fail on it; CASE, since SQLite may evaluate
 * both sides of an AND).
 */
function receivedText(path: string): string {
  const at = `json_extract(m.raw, '${path}')`;
  return `(CASE WHEN m.status <> 'rejected' OR json_valid(m.raw) THEN CASE json_type(m.raw, '${path}')
    WHEN 'text' THEN ${at} WHEN 'integer' THEN CAST(${at} AS TEXT) WHEN 'real' THEN CAST(${at} AS TEXT)
    WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END END)`;
}

/**
 * The filter's terms. Only the fields compared exactly and `violations`: a filter on properties,
 * traits or context (matched in part, deeply) is not read by SQL yet, and is refused here rather than
 * ignored.
 */
export function filterSql(filter: MessageFilter): SqlTerms {
  const where: string[] = [];
  const params: (string | number)[] = [];
  const add = (sql: string, ...values: (string | number)[]) => (where.push(sql), params.push(...values));
  for (const key of ['properties', 'traits', 'context'] as const) {
    if (filter[key] !== undefined) throw new TypeError(`filter.${key} is not read by this query (only waits match properties, traits and context)`);
  }
  const text = (value: string | number) => String(value);
  // The row's type, or the message's own when ingestion knew no such type (a rejected message).
  if (filter.type !== undefined) add(`(m.type = ? OR (m.type IS NULL AND ${receivedText('$.type')} = ?))`, filter.type, filter.type);
  // An accepted (or duplicate) track's event column is its event; any other message's is its name, or nothing.
  if (filter.event !== undefined) {
    add(`(CASE WHEN m.type = 'track' AND m.status <> 'rejected' THEN m.event ELSE ${receivedText('$.event')} END) = ?`, filter.event);
  }
  // The id columns hold the message's userId and anonymousId as text (a number as String() writes it).
  if (filter.userId !== undefined) add('m.user_id = ?', text(filter.userId));
  if (filter.anonymousId !== undefined) add('m.anonymous_id = ?', text(filter.anonymousId));
  if (filter.source !== undefined) add('m.source_id IN (SELECT id FROM sources WHERE name = ?)', filter.source);
  if (filter.messageId !== undefined) add(`(m.message_id = ? OR (m.message_id IS NULL AND ${receivedText('$.messageId')} = ?))`, filter.messageId, filter.messageId);
  if (filter.status !== undefined) add('m.status = ?', filter.status);
  // A tracking plan's Violation Generated events are left out unless the filter names their origin.
  if (filter.origin !== undefined) add('m.origin = ?', filter.origin);
  else add("m.origin <> 'plan'");
  if (filter.violations !== undefined) add(`coalesce(json_array_length(m.violations), 0) ${filter.violations ? '>' : '='} 0`);
  return { where, params };
}
