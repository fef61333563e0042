import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { IncomingMessage as SegmentMessage, MessageStatus } from '../../../shared/messages.ts';
import type { MessageFilter } from '../../../shared/message-filter.ts';
import type { Violation } from '../../../shared/tracking-plan.ts';
import type { MessageNames } from '../../../shared/contract.ts';
import { normalizeMessage, type BatchEnvelope } from './normalize.ts';
import { compileQuery, withIndex, type IndexHint } from './message-query-sql.ts';
import { idRange } from './message-heads.ts';
import { partQuery, queryPart, searchRows, type SearchPart } from './message-search.ts';
import { shownDeliveryIs } from './shown-delivery.ts';
import { composedStatements, partialIndexTerm } from './prepared.ts';

/** `plan`: a `Violation Generated` event a tracking plan forwards (plans/violation-event.ts). */
export type MessageOrigin = 'ingest' | 'audience' | 'plan';

/** A committed message as lists and the event bus carry it (the columns, not the payload). */
export interface StoredMessage {
  id: number;
  requestId: number | null;
  sourceId: number;
  messageId: string | null;
  type: string | null;
  status: MessageStatus;
  rejectCode: string | null;
  rejectReason: string | null;
  origin: MessageOrigin;
  userId: string | null;
  anonymousId: string | null;
  event: string | null;
  receivedAt: number;
  timestamp: number | null;
  /** How many ways it breaks its source's tracking plans (0: none, or not checked). */
  violations: number;
  /** Set when a plan blocked it (its deliveries were skipped with this reason). */
  blocked?: string;
  /** Set when Segment's Tracking API would refuse it (shared/limits.ts segmentWarning): accepted here, said. */
  warning?: string;
  /** Set when the user pinned it: retention and clears keep it (migration 23). */
  pinned?: true;
}

/** One message with its payload: exactly as received, and as Sluice forwards it. */
export interface MessageRecord extends StoredMessage {
  /** The message's JSON text exactly as the client sent it. */
  raw: string;
  /** The normalized message (null for rejected messages, which are never forwarded). */
  message: Record<string, unknown> | null;
  /** The Sluices its request passed through before this one, as a Sluice-Loop header's start; null when none. */
  via: string | null;
  /** Each way it breaks a tracking plan. */
  violationList: Violation[];
}

export const COLUMNS = `m.id, m.request_id, m.source_id, m.message_id, m.type, m.status, m.reject_code, m.reject_reason,
  m.origin, m.user_id, m.anonymous_id, m.event, m.received_at, m.timestamp,
  CASE WHEN m.violations IS NULL THEN 0 ELSE json_array_length(m.violations) END AS violation_count, m.blocked, m.warning, m.pinned`;

export interface MessageRow {
  id: number;
  request_id: number | null;
  source_id: number;
  message_id: string | null;
  type: string | null;
  status: MessageStatus;
  reject_code: string | null;
  reject_reason: string | null;
  origin: MessageOrigin;
  user_id: string | null;
  anonymous_id: string | null;
  event: string | null;
  received_at: number;
  timestamp: number | null;
  violation_count: number;
  blocked: string | null;
  warning: string | null;
  pinned: number | null;
}

interface RecordRow extends MessageRow {
  raw: string;
  violations: string | null;
  sent_at: number | null;
  ip: string | null;
  envelope: string | null;
}

export function fromRow(row: MessageRow): StoredMessage {
  return {
    id: row.id,
    requestId: row.request_id,
    sourceId: row.source_id,
    messageId: row.message_id,
    type: row.type,
    status: row.status,
    rejectCode: row.reject_code,
    rejectReason: row.reject_reason,
    origin: row.origin,
    userId: row.user_id,
    anonymousId: row.anonymous_id,
    event: row.event,
    receivedAt: row.received_at,
    timestamp: row.timestamp,
    violations: row.violation_count,
    ...(row.blocked !== null ? { blocked: row.blocked } : {}),
    ...(row.warning !== null ? { warning: row.warning } : {}),
    ...(row.pinned === 1 ? { pinned: true as const } : {}),
  };
}

/** What deriving the normalized message takes: the message's row and its request's. */
export type MessagePayload = Pick<RecordRow, 'raw' | 'status' | 'message_id' | 'type' | 'received_at' | 'sent_at' | 'ip' | 'envelope'>;

/** A payload as delivery reads it: with what a destination's filters test besides the message (its source, origin, violations). */
export type DeliveredPayload = MessagePayload & Pick<RecordRow, 'source_id' | 'origin' | 'violations'>;

/** The message as Sluice forwards it (null for a rejected one, which is never forwarded). */
export function normalizedMessage(row: MessagePayload): Record<string, unknown> | null {
  if (row.status === 'rejected') return null;
  return normalizeMessage(
      JSON.parse(row.raw) as SegmentMessage,
      {
        envelope: row.envelope ? (JSON.parse(row.envelope) as BatchEnvelope) : {},
        receivedAt: row.received_at,
        sentAt: row.sent_at,
        ip: row.ip,
      },
    { messageId: row.message_id!, type: row.type! },
  );
}

/** The Sluices the message's request passed through (shared/loop-guard.ts), joined as in the header. */
export function viaOf(row: Pick<MessagePayload, 'envelope'>): string | null {
  if (!row.envelope || !row.envelope.includes('"via"')) return null;
  const via = (JSON.parse(row.envelope) as BatchEnvelope).via;
  return via?.length ? via.join(', ') : null;
}

/** A row with its payload: the raw text, and the normalized message derived from it. */
function toRecord(row: RecordRow): MessageRecord {
  const violationList = row.violations ? (JSON.parse(row.violations) as Violation[]) : [];
  return { ...fromRow(row), raw: row.raw, message: normalizedMessage(row), via: viaOf(row), violationList };
}

export interface ListMessagesQuery {
  /** Rows with an id below this (paging newest first). */
  beforeId?: number;
  /** Rows with an id above this: the page just newer (still returned newest first). */
  afterId?: number;
  limit?: number;
  sourceId?: number;
  status?: MessageStatus;
  type?: string;
  /** A query (shared/message-query.ts): words anywhere in the message, field:value clauses. */
  search?: string;
  /** receivedAt bounds, ms since epoch, inclusive. */
  from?: number;
  to?: number;
  /** true: only messages with tracking plan violations; false: only those without. */
  violations?: boolean;
  /** Only this track event, page or screen name, exactly. */
  event?: string;
  /** Only messages that break this tracking plan (by name). */
  plan?: string;
  /** Only messages whose row shows this delivery state (`none`: no delivery); the list itself takes it in chunks (operations.ts). */
  delivery?: string;
  /** Only messages with an id from this one up (counting those above a jumped-to page). */
  idFrom?: number;
  /** Only this user's messages: userId or anonymousId, exactly (bulk actions, exports). */
  userId?: string;
}

/**
 * A time range holding fewer rows than this is read through the received_at index and sorted; a
 * bigger one is read newest first by id, where its rows are dense enough to fill a page quickly.
 */
const INDEXED_RANGE_MAX = 10_000;

/** Read side of the messages table. Writes go through the store writer's group commit. */
export class MessagesRepo {
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  #payloads: StatementSync | undefined;
  #ofDelivery: StatementSync | undefined;
  readonly #range: StatementSync;
  #some: StatementSync | undefined;
  #names: StatementSync | undefined;
  /** Composed reads (a filter's, a search's, a wait's), prepared once per text. */
  readonly #composed: (sql: string) => StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#composed = composedStatements(db);
    this.#get = db.prepare(
      `SELECT ${COLUMNS}, m.raw, m.violations, r.sent_at, r.ip, r.envelope
       FROM messages m LEFT JOIN requests r ON r.id = m.request_id WHERE m.id = ?`,
    );
    this.#range = db.prepare(`SELECT ${COLUMNS} FROM messages m WHERE m.id BETWEEN ? AND ? ORDER BY m.id`);
  }

  get(id: number): MessageRecord | undefined {
    const row = this.#get.get(id) as RecordRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** The message a delivery is of now, through the delivery's link (NULL once the message was purged). */
  ofDelivery(deliveryId: number): MessageRecord | undefined {
    this.#ofDelivery ??= this.#db.prepare(
      `SELECT ${COLUMNS}, m.raw, m.violations, r.sent_at, r.ip, r.envelope
       FROM deliveries d JOIN messages m ON m.id = d.message_id LEFT JOIN requests r ON r.id = m.request_id WHERE d.id = ?`,
    );
    const row = this.#ofDelivery.get(deliveryId) as RecordRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  /**
   * Several messages' payloads in one query: the delivery engine reads those of a batch of due
   * deliveries at once, and normalizes each only when it is sent (normalizedMessage).
   */
  payloads(ids: number[]): Map<number, DeliveredPayload> {
    const payloads = new Map<number, DeliveredPayload>();
    if (ids.length === 0) return payloads;
    this.#payloads ??= this.#db.prepare(
      `SELECT m.id, m.raw, m.status, m.message_id, m.type, m.received_at, r.sent_at, r.ip, r.envelope, m.source_id, m.origin, m.violations
       FROM messages m LEFT JOIN requests r ON r.id = m.request_id WHERE m.id IN (SELECT value FROM json_each(?))`,
    );
    for (const row of this.#payloads.all(JSON.stringify(ids)) as unknown as (DeliveredPayload & { id: number })[]) payloads.set(row.id, row);
    return payloads;
  }

  /** Which of these messages match `search` (a query), each clause tested on the row: the inspector's live rows under a search. */
  matchingIds(ids: readonly number[], search: string): Set<number> {
    const query = compileQuery(search);
    if (ids.length === 0 || query.where.length === 0) return new Set(ids);
    const sql = `SELECT m.id FROM messages m WHERE m.id IN (SELECT value FROM json_each(?)) AND ${query.where.join(' AND ')}`;
    return new Set((this.#composed(sql).all(JSON.stringify(ids), ...query.params) as { id: number }[]).map((row) => row.id));
  }

  /** The listed messages (without payloads), in id order; ids from one commit are near each other. */
  byIds(ids: ArrayLike<number>): StoredMessage[] {
    if (ids.length === 0) return [];
    const { min, max, wanted } = idRange(ids);
    // Far apart (an old row's update beside new ones): look each up, rather than read every row between.
    if (max - min + 1 > wanted.size * 4 + 64) {
      this.#some ??= this.#db.prepare(`SELECT ${COLUMNS} FROM messages m WHERE m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id`);
      return (this.#some.all(JSON.stringify([...wanted])) as unknown as MessageRow[]).map(fromRow);
    }
    const rows = this.#range.all(min, max) as unknown as MessageRow[];
    return rows.filter((row) => wanted.has(row.id)).map(fromRow);
  }

  list(query: ListMessagesQuery = {}): StoredMessage[] {
    const { where, params } = filterTerms(query);
    const ascending = query.afterId !== undefined;
    if (query.beforeId !== undefined) (where.push('m.id < ?'), params.push(query.beforeId));
    if (ascending) (where.push('m.id > ?'), params.push(query.afterId!));
    const smallRange = (query.from !== undefined || query.to !== undefined) && this.#rangeIsSmall(query);
    const limit = Math.min(Math.max(query.limit ?? 100, 1), 10_000);
    const from = smallRange ? 'messages m INDEXED BY messages_received' : 'messages m';
    const read = (part: SearchPart | null, wanted: number): MessageRow[] => {
      const { sql, values } = partQuery(part, COLUMNS, { where, params }, ascending ? 'ASC' : 'DESC', wanted, from);
      return this.#composed(sql).all(...values) as unknown as MessageRow[];
    };
    // A search in a short time range reads that range (the time index), not every match through the
    // search index from the newest down.
    const search = compileQuery(query.search);
    const bounds = ascending ? { above: query.afterId } : { below: query.beforeId };
    const rows = smallRange ? read(queryPart(search), limit) : searchRows(this.#db, search, ascending ? 'asc' : 'desc', bounds, limit, read);
    // Newest first, whichever end the page was read from.
    return (ascending ? rows.reverse() : rows).map(fromRow);
  }

  /** Whether the time range (below `beforeId`) holds fewer than INDEXED_RANGE_MAX rows; counted on the index, capped. */
  #rangeIsSmall(query: ListMessagesQuery): boolean {
    const where: string[] = [];
    const params: number[] = [];
    timeClause(query, where, params);
    if (query.beforeId !== undefined) (where.push('m.id < ?'), params.push(query.beforeId));
    const { n } = this.#db
      .prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM messages m INDEXED BY messages_received WHERE ${where.join(' AND ')} LIMIT ?)`)
      .get(...params, INDEXED_RANGE_MAX) as { n: number };
    return n < INDEXED_RANGE_MAX;
  }

  /** Ids of the messages matching `filter` after `afterId`, oldest first. */
  findIds(filter: MessageFilter, limit = 10_000, afterId = 0): number[] {
    const { search, ...rest } = bulkFilter(filter);
    return this.idsAfter(filterTerms(rest), search, afterId, limit);
  }

  /**
   * Ids of the messages after `afterId` that meet `terms` (SQL on `messages m`) and match `search` (a
   * query, through the search indexes where they cover the messages), at most `limit`: oldest first,
   * or with `order` 'desc' newest first, "after" then meaning below `afterId` (0: from the newest). Both
   * read the ids' B-tree (or the search index's rowids) in that order: no sort, whatever is stored.
   * A QueryError when the search does not parse.
   */
  idsAfter(terms: { where: string[]; params: (string | number)[]; index?: IndexHint }, search: string | undefined, afterId: number, limit: number, order: 'asc' | 'desc' = 'asc'): number[] {
    const desc = order === 'desc';
    const bound = desc && afterId === 0 ? [] : [afterId];
    const where = [...(bound.length ? [desc ? 'm.id < ?' : 'm.id > ?'] : []), ...terms.where];
    const params = [...bound, ...terms.params];
    const read = (part: SearchPart | null, wanted: number): { id: number }[] => {
      const { sql, values } = partQuery(part, 'm.id', { where, params }, desc ? 'DESC' : 'ASC', wanted);
      return this.#composed(sql).all(...values) as { id: number }[];
    };
    const bounds = desc ? { below: bound[0] } : { above: afterId };
    const rows = searchRows(this.#db, withIndex(compileQuery(search), terms.index), order, bounds, limit, read);
    return rows.map((row) => row.id);
  }

  /**
   * What names these identify, group and alias messages beyond their userId (MessageNames), read from
   * their payloads for a page of rows at once; the other messages are left out.
   */
  names(ids: readonly number[]): Map<number, MessageNames> {
    const out = new Map<number, MessageNames>();
    if (ids.length === 0) return out;
    this.#names ??= this.#db.prepare(
      `SELECT m.id, json_object('email', ${textAt('$.traits.email')}, 'name', ${textAt('$.traits.name')},
         'groupId', ${textAt('$.groupId', true)}, 'previousId', ${textAt('$.previousId', true)}) AS names
       FROM messages m WHERE m.id IN (SELECT value FROM json_each(?)) AND m.type IN ('identify', 'group', 'alias') AND m.status <> 'rejected'`,
    );
    for (const row of this.#names.all(JSON.stringify(ids)) as { id: number; names: string }[]) {
      const names: MessageNames = {};
      for (const [key, value] of Object.entries(JSON.parse(row.names) as Record<keyof MessageNames, string | null>)) {
        if (value) names[key as keyof MessageNames] = value.length > NAME_MAX ? `${value.slice(0, NAME_MAX - 1)}…` : value;
      }
      if (Object.keys(names).length > 0) out.set(row.id, names);
    }
    return out;
  }

  countByStatus(): Record<MessageStatus, number> {
    const counts: Record<MessageStatus, number> = { accepted: 0, rejected: 0, duplicate: 0 };
    const rows = this.#db.prepare('SELECT status, count(*) AS n FROM messages GROUP BY status').all() as unknown as {
      status: MessageStatus;
      n: number;
    }[];
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }
}

/** A title's part is cut to this many characters. */
const NAME_MAX = 200;

/** The text at `path` of the message's payload (or an integer id, as text); NULL for anything else. */
function textAt(path: string, integer = false): string {
  const at = `json_extract(m.raw, '${path}')`;
  return `CASE json_type(m.raw, '${path}') WHEN 'text' THEN ${at}${integer ? ` WHEN 'integer' THEN CAST(${at} AS TEXT)` : ''} END`;
}

/**
 * The list's filters but the search and the page, as SQL terms on `messages m`: shared by the list,
 * its counts (store/message-counts.ts), the bulk actions (findIds) and exports (transfer/export-lines.ts).
 */
/** A bulk action's filter (a replay's, a clear's) as the list reads one: an empty event or userId is no filter (as it always was). */
export function bulkFilter<F extends Pick<MessageFilter, 'event' | 'userId'>>(filter: F): F {
  const { event, userId, ...rest } = filter;
  return { ...rest, ...(event ? { event } : {}), ...(userId ? { userId } : {}) } as F;
}

export function filterTerms(query: Omit<ListMessagesQuery, 'search' | 'beforeId' | 'afterId' | 'limit'>): { where: string[]; params: (string | number)[] } {
  const where: string[] = [];
  const params: (number | string)[] = [];
  if (query.sourceId !== undefined) (where.push('m.source_id = ?'), params.push(query.sourceId));
  if (query.status !== undefined) {
    const term = partialIndexTerm('m.status', query.status);
    (where.push(term.sql), params.push(...term.params));
  }
  if (query.type !== undefined) (where.push('m.type = ?'), params.push(query.type));
  if (query.violations !== undefined) where.push(violationsClause(query.violations));
  if (query.event !== undefined) (where.push('m.event = ?'), params.push(query.event));
  if (query.plan !== undefined) (where.push(PLAN_CLAUSE), params.push(query.plan));
  if (query.delivery !== undefined) {
    const shown = shownDeliveryIs(query.delivery);
    where.push(shown.sql);
    params.push(...shown.params);
  }
  if (query.idFrom !== undefined) (where.push('m.id >= ?'), params.push(query.idFrom));
  if (query.userId !== undefined) (where.push('(m.user_id = ? OR m.anonymous_id = ?)'), params.push(query.userId, query.userId));
  timeClause(query, where, params);
  return { where, params };
}

/** A violation of the plan named by the parameter (its name as the stored JSON writes it; instr: case matters, unlike LIKE). */
const PLAN_CLAUSE = `m.violations IS NOT NULL AND instr(m.violations, '"plan":' || json_quote(?)) > 0`;

function violationsClause(wanted: boolean): string {
  return wanted ? 'm.violations IS NOT NULL' : 'm.violations IS NULL';
}

/** receivedAt bounds; true when there is one. */
function timeClause(range: { from?: number | undefined; to?: number | undefined }, where: string[], params: (string | number)[]): boolean {
  if (range.from !== undefined) (where.push('m.received_at >= ?'), params.push(range.from));
  if (range.to !== undefined) (where.push('m.received_at <= ?'), params.push(range.to));
  return range.from !== undefined || range.to !== undefined;
}
