/**
 * The way out of a store: one stored message per NDJSON line, `{"message": {...}, ...metadata}`, where
 * `message` is what the client sent — so that `sluice import` (or any Segment-compatible endpoint) can
 * send it again and get the same message — and the metadata is what Sluice made of it.
 *
 * Read with SQL in id order, a bounded window of ids at a time: never the whole store in memory, and
 * never one long query, so that the relay's own process can stream an export (http-api.ts) between
 * ingestion's requests. Works on a read-only connection.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { MessageStatus } from '../../../shared/message-rules.ts';
import { compileQuery } from '../store/message-query-sql.ts';
import type { BatchEnvelope } from '../store/normalize.ts';
import { filterTerms } from '../store/messages-repo.ts';
import { lineSafe } from './json-lines.ts';
import { memberValue, mergedUnder, mergedValue, objectMembers, withMembers, type Member } from './json-text.ts';

/** Which messages an export holds; every field given must match. */
export interface ExportFilter {
  sourceId?: number;
  /** receivedAt bounds in ms, inclusive. */
  since?: number;
  until?: number;
  /** The track event's name, or the page's or screen's (exactly). */
  event?: string;
  status?: MessageStatus;
  type?: string;
  /** userId or anonymousId (exactly). */
  userId?: string;
  /** true: only messages that break a tracking plan; false: only those that do not. */
  violations?: boolean;
  /** The inspector's search (a query, shared/message-query.ts). */
  search?: string;
  /** Only messages that break this tracking plan (by name). */
  plan?: string;
  /** The delivery state the inspector's row shows (store/shown-delivery.ts), or `none`. */
  delivery?: string;
}

/** One line of an export (written by exportLineText). */
export interface ExportLine {
  /** The message as the client sent it, as JSON text (see asSent); null when its text was not kept as JSON. */
  message: string | null;
  /** The stored text, only when `message` is null: a rejected message that was not JSON or not kept whole. */
  raw?: string;
  /** The row's id in the exporting store (arrival order). */
  id: number;
  messageId: string | null;
  source: string;
  type: string | null;
  event: string | null;
  status: MessageStatus;
  origin: string;
  receivedAt: string;
  /** Corrected for the client's clock skew (normalize.ts); null for a rejected message. */
  timestamp: string | null;
  rejection: { code: string; reason: string } | null;
  violations: unknown[];
  blocked: string | null;
}

/** Rows read per query at most, and ids looked at per query at most: each query stays short. */
const PAGE_ROWS = 500;
const WINDOW_IDS = 5_000;

interface Row {
  id: number;
  source_id: number;
  message_id: string | null;
  type: string | null;
  status: MessageStatus;
  reject_code: string | null;
  reject_reason: string | null;
  origin: string;
  event: string | null;
  received_at: number;
  timestamp: number | null;
  raw: string;
  violations: string | null;
  blocked: string | null;
  envelope: string | null;
  source: string | null;
}

/** The SQL conditions on `messages m` for a filter (time bounds included): the list's own (messages-repo.ts), so a download holds the rows shown. */
export function filterClauses(filter: ExportFilter): { where: string[]; params: (string | number)[] } {
  const { since, until, search, ...rest } = filter;
  const { where, params } = filterTerms({ ...rest, ...(since !== undefined ? { from: since } : {}), ...(until !== undefined ? { to: until } : {}) });
  // Each clause's test on the rows here: each page reads a window of ids, not the search indexes.
  const query = compileQuery(search);
  return { where: [...where, ...query.where], params: [...params, ...query.params] };
}

/**
 * The ids an export goes through: (after, last]. It ends at the newest message when it starts, so that
 * an export of a busy relay ends. With time bounds, the range comes from the received_at index (an
 * index-only scan of the bounds), so "the last hour" of a big store does not read the whole table.
 */
export function idRange(db: DatabaseSync, filter: Pick<ExportFilter, 'since' | 'until'>): { after: number; last: number } {
  if (filter.since === undefined && filter.until === undefined) {
    const { last } = db.prepare('SELECT coalesce(max(id), 0) AS last FROM messages').get() as { last: number };
    return { after: 0, last };
  }
  const { where, params } = filterClauses({ since: filter.since, until: filter.until });
  const row = db.prepare(`SELECT min(m.id) AS first, max(m.id) AS last FROM messages m INDEXED BY messages_received WHERE ${where.join(' AND ')}`).get(...params) as {
    first: number | null;
    last: number | null;
  };
  return row.first === null ? { after: 0, last: 0 } : { after: row.first - 1, last: row.last! };
}

/**
 * The export's lines, a page at a time (an empty page is a stretch of ids with no match: the caller may
 * yield to others there too). Each page is one query over at most WINDOW_IDS ids (NOT INDEXED: by rowid,
 * whatever the filter) returning at most PAGE_ROWS rows.
 */
export function* exportPages(db: DatabaseSync, filter: ExportFilter): Generator<ExportLine[]> {
  const { where, params } = filterClauses(filter);
  const statement: StatementSync = db.prepare(
    `SELECT m.id, m.source_id, m.message_id, m.type, m.status, m.reject_code, m.reject_reason, m.origin, m.event,
       m.received_at, m.timestamp, m.raw, m.violations, m.blocked, r.envelope, s.name AS source
     FROM messages m NOT INDEXED LEFT JOIN requests r ON r.id = m.request_id LEFT JOIN sources s ON s.id = m.source_id
     WHERE m.id > ? AND m.id <= ? ${where.map((w) => `AND ${w}`).join(' ')}
     ORDER BY m.id LIMIT ${PAGE_ROWS}`,
  );
  let { after, last } = idRange(db, filter);
  while (after < last) {
    const end = Math.min(after + WINDOW_IDS, last);
    const rows = statement.all(after, end, ...params) as unknown as Row[];
    // A full page may have stopped inside the window: go on from its last row.
    after = rows.length === PAGE_ROWS ? rows.at(-1)!.id : end;
    yield rows.map(exportLine);
  }
}

/**
 * The line's NDJSON text (without its `\n`): the message's text spliced in as it is, not parsed and
 * written again (which would round an integer past 2^53 and rewrite escapes and key order), and, as on
 * every NDJSON line Sluice writes, U+2028 and U+2029 escaped (json-lines.ts).
 */
export function exportLineText(line: ExportLine): string {
  const { message, ...rest } = line;
  return lineSafe(`{"message":${message ?? 'null'},${JSON.stringify(rest).slice(1)}`);
}

function exportLine(row: Row): ExportLine {
  const sent = asSent(row);
  return {
    message: sent.message,
    ...(sent.raw !== undefined ? { raw: sent.raw } : {}),
    id: row.id,
    messageId: row.message_id,
    source: row.source ?? `#${row.source_id}`,
    type: row.type,
    event: row.event,
    status: row.status,
    origin: row.origin,
    receivedAt: new Date(row.received_at).toISOString(),
    timestamp: row.timestamp === null ? null : new Date(row.timestamp).toISOString(),
    rejection: row.status === 'rejected' ? { code: row.reject_code ?? 'rejected', reason: row.reject_reason ?? '' } : null,
    violations: row.violations ? (JSON.parse(row.violations) as unknown[]) : [],
    blocked: row.blocked,
  };
}

/**
 * The message as the client sent it, as JSON text: its stored text as it is, with only these changes,
 * each made to its members as written (json-text.ts) so that everything else stays byte for byte:
 * - its request's batch-level `context` and `integrations` merged under its own and the batch's
 *   `sentAt` when it has none (envelopeChanges): what the client sent for it, now carried by the message
 *   alone, so that it can go in any batch, as Sluice's normalize.ts reads it;
 * - its `type` as stored: a message posted to /v1/track carries none of its own, the endpoint gave it;
 * - its `messageId` as stored: the client's, or the one Sluice generated (`sluice-…`) when the client
 *   sent none. That one is Sluice's, but kept on purpose: an import must keep ids, so that importing
 *   the same export twice, or into the store it came from, stores duplicates instead of new messages;
 * - never `writeKey` (a credential), nor what Sluice adds when it forwards a message (`receivedAt`, the
 *   corrected `timestamp`, `originalTimestamp`, `context.ip`): those are the line's metadata, or made again.
 * A rejected message whose text is not JSON, or was not kept whole (too large, too deep: ingestion
 * stores `{"_sluice": …, "preview"}` instead), has message null and its stored text as `raw`.
 */
export function asSent(row: Pick<Row, 'raw' | 'status' | 'type' | 'message_id' | 'envelope'>): { message: string | null; raw?: string } {
  if (notKeptWhole(row)) return { message: null, raw: row.raw };
  let parsed: unknown;
  try {
    parsed = JSON.parse(row.raw);
  } catch {
    return { message: null, raw: row.raw };
  }
  // A batch element that is not an object (a number, a string) was rejected as it was: exported as it was.
  if (!isObject(parsed)) return { message: row.raw };
  // What changes, member by member (undefined: left out); read on the parsed message, written on the text.
  const changes = new Map<string, string | undefined>();
  const members = lazy(() => objectMembers(row.raw));
  if (Object.hasOwn(parsed, 'writeKey')) changes.set('writeKey', undefined);
  if (row.type !== null && parsed.type !== row.type) changes.set('type', JSON.stringify(row.type));
  if (row.envelope) envelopeChanges(parsed, members, JSON.parse(row.envelope) as BatchEnvelope, changes);
  if (row.message_id !== null && parsed.messageId === undefined) changes.set('messageId', JSON.stringify(row.message_id));
  return { message: withMembers(row.raw, parsed, changes, members) };
}

/**
 * Whether the stored text is a rejected message's stand-in (`{"_sluice": …, "preview"}`), not the
 * message: one too large or too deep to keep whole. The marker is what prepare-request.ts writes for
 * such a message, always with this start.
 */
export function notKeptWhole(row: { status: string; raw: string }): boolean {
  return row.status === 'rejected' && row.raw.startsWith('{"_sluice":');
}

/**
 * What a message takes from its request's envelope, as ingestion reads a batch (normalize.ts): the
 * batch's `context` and `integrations`, each to go under the message's own (`own` undefined: it has
 * none), and the batch's `sentAt` when the message has none. A message whose own context or
 * integrations is not an object keeps it, for ingestion's rules to refuse as before: left out here.
 * One rule for the two readings of a stored message: the export's text (envelopeChanges) and the
 * test's view (withEnvelope), which must agree.
 */
function envelopeTakes(
  parsed: Record<string, unknown>,
  envelope: Pick<BatchEnvelope, 'context' | 'integrations' | 'sentAt'>,
): { merges: { field: 'context' | 'integrations'; outer: Record<string, unknown>; own: Record<string, unknown> | undefined }[]; sentAt: string | undefined } {
  const merges = [];
  for (const field of ['context', 'integrations'] as const) {
    const outer = envelope[field];
    if (!isObject(outer)) continue;
    const own = parsed[field];
    if (own === undefined || isObject(own)) merges.push({ field, outer, own });
  }
  return { merges, sentAt: parsed.sentAt === undefined && envelope.sentAt !== undefined ? envelope.sentAt : undefined };
}

/**
 * A batch's `context` and `integrations` under the message's own (the message's fields win), and its
 * `sentAt` when the message has none (envelopeTakes). Adds to `changes` (for withMembers) what that
 * changes in the message `parsed`, whose `members` are as written: its own stay so.
 */
export function envelopeChanges(
  parsed: Record<string, unknown>,
  members: () => readonly Member[],
  envelope: Pick<BatchEnvelope, 'context' | 'integrations' | 'sentAt'>,
  changes: Map<string, string | undefined>,
): void {
  const { merges, sentAt } = envelopeTakes(parsed, envelope);
  for (const { field, outer, own } of merges) {
    if (own === undefined) changes.set(field, JSON.stringify(outer));
    else {
      const ownText = memberValue(members(), field)!;
      const merged = mergedUnder(outer, ownText, own);
      if (merged !== ownText) changes.set(field, merged);
    }
  }
  if (sentAt !== undefined) changes.set('sentAt', JSON.stringify(sentAt));
}

/**
 * The parsed message `parsed` (changed in place, and returned) with what envelopeChanges writes on
 * its text: the same members, in the same order, so that JSON.parse of an export line's message and
 * this agree (mergedValue is mergedUnder's value).
 */
export function withEnvelope(parsed: Record<string, unknown>, envelope: Pick<BatchEnvelope, 'context' | 'integrations' | 'sentAt'>): Record<string, unknown> {
  const { merges, sentAt } = envelopeTakes(parsed, envelope);
  for (const { field, outer, own } of merges) parsed[field] = own === undefined ? outer : mergedValue(outer, own);
  if (sentAt !== undefined) parsed.sentAt = sentAt;
  return parsed;
}

/** `make()`'s value, made the first time it is asked for. */
export function lazy<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** The id of the source called `name`, or the names there are (for the sentence that says it is not one). */
export function sourceByName(db: DatabaseSync, name: string): { id: number } | { known: string[] } {
  const sources = db.prepare('SELECT id, name FROM sources ORDER BY name').all() as { id: number; name: string }[];
  const found = sources.find((s) => s.name === name);
  return found ? { id: found.id } : { known: sources.map((s) => s.name) };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
