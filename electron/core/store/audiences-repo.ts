// Read side of audiences, their snapshots and syncs (the store's writer writes them).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { preparedOnUse } from './prepared.ts';
import type {
  AudienceKind,
  AudienceMemberView,
  AudienceMessageTag,
  AudienceRule,
  AudienceSyncMessageView,
  AudienceSyncView,
  Computation,
  SyncMode,
} from '../../../shared/audiences.ts';
import { STATUS_WEIGHT } from './shown-delivery.ts';

export interface Audience {
  id: number;
  name: string;
  kind: AudienceKind;
  sourceId: number;
  property: string;
  definition: AudienceRule | Computation;
  mode: SyncMode;
  intervalSeconds: number;
  /** The destinations its syncs go to; null: the enabled destinations connected to its source. */
  destinationIds: number[] | null;
  createdAt: number;
  updatedAt: number;
  nextSyncAt: number | null;
  lastSyncAt: number | null;
  members: number;
}

const COLUMNS = `a.id, a.name, a.kind, a.source_id AS sourceId, a.property, a.definition, a.mode, a.interval_seconds AS intervalSeconds,
  a.destination_ids AS destinationIds, a.created_at AS createdAt, a.updated_at AS updatedAt, a.next_sync_at AS nextSyncAt, a.last_sync_at AS lastSyncAt,
  (SELECT count(*) FROM audience_members m WHERE m.audience_id = a.id) AS members`;

type AudienceRow = Omit<Audience, 'definition' | 'destinationIds'> & { definition: string; destinationIds: string | null };

interface SyncRow {
  id: number;
  audience_id: number;
  at: number;
  reason: 'scheduled' | 'manual';
  initial: number;
  property: string;
  members: number;
  joined: number;
  left_count: number;
  deliveries: number;
  duration_ms: number;
}

export class AudiencesRepo {
  readonly #db: DatabaseSync;
  readonly #sql;
  #count: StatementSync | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#sql = preparedOnUse(db, {
      list: `SELECT ${COLUMNS} FROM audiences a ORDER BY a.name COLLATE NOCASE, a.id`,
      get: `SELECT ${COLUMNS} FROM audiences a WHERE a.id = ?`,
      due: 'SELECT id FROM audiences WHERE next_sync_at <= ? ORDER BY next_sync_at, id',
      nextDue: 'SELECT min(next_sync_at) AS at FROM audiences WHERE next_sync_at > ?',
      syncs: 'SELECT * FROM audience_syncs WHERE audience_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
      sync: 'SELECT * FROM audience_syncs WHERE id = ?',
      syncMessages: 'SELECT message_id, user_id, value, change FROM audience_sync_messages WHERE sync_id = ? AND message_id > ? ORDER BY message_id LIMIT ?',
    });
  }

  list(): Audience[] {
    return (this.#sql.list.all() as unknown as AudienceRow[]).map(fromRow);
  }

  get(id: number): Audience | undefined {
    const row = this.#sql.get.get(id) as unknown as AudienceRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  /** Audiences whose sync is due at `now`, the most overdue first. */
  dueIds(now: number): number[] {
    return (this.#sql.due.all(now) as { id: number }[]).map((row) => row.id);
  }

  /** The earliest sync due after `now`, or null. */
  nextDueAfter(now: number): number | null {
    return (this.#sql.nextDue.get(now) as { at: number | null }).at;
  }

  /** Asked on every stored batch (is there anything to fold for?): the statement is prepared once. */
  count(): number {
    this.#count ??= this.#db.prepare('SELECT count(*) AS n FROM audiences');
    return Number((this.#count.get() as { n: number }).n);
  }

  /** Syncs of an audience, newest first, with their deliveries counted by status. */
  syncs(audienceId: number, limit: number, beforeId = Number.MAX_SAFE_INTEGER): AudienceSyncView[] {
    const rows = this.#sql.syncs.all(audienceId, beforeId, limit) as unknown as SyncRow[];
    const counts = this.#deliveryCounts(rows.map((row) => row.id));
    return rows.map((row) => syncView(row, counts.get(row.id) ?? {}));
  }

  sync(syncId: number): AudienceSyncView | undefined {
    const row = this.#sql.sync.get(syncId) as unknown as SyncRow | undefined;
    return row ? syncView(row, this.#deliveryCounts([row.id]).get(row.id) ?? {}) : undefined;
  }

  /** A sync's identify messages in the order they were stored, each with its most telling delivery. */
  syncMessages(syncId: number, afterId: number, limit: number): AudienceSyncMessageView[] {
    const links = this.#sql.syncMessages.all(syncId, afterId, limit) as { message_id: number; user_id: string; value: string; change: AudienceSyncMessageView['change'] }[];
    if (links.length === 0) return [];
    const deliveries = this.#db
      .prepare(
        `SELECT message_id, status, attempt_count, next_attempt_at, last_error FROM deliveries
         WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY id`,
      )
      .all(JSON.stringify(links.map((l) => l.message_id))) as {
      message_id: number;
      status: string;
      attempt_count: number;
      next_attempt_at: number | null;
      last_error: string | null;
    }[];
    const byMessage = new Map<number, typeof deliveries>();
    for (const d of deliveries) byMessage.set(d.message_id, [...(byMessage.get(d.message_id) ?? []), d]);
    return links.map((link) => {
      const own = byMessage.get(link.message_id) ?? [];
      let best: (typeof own)[number] | undefined;
      for (const d of own) if (!best || (STATUS_WEIGHT[d.status] ?? 0) > (STATUS_WEIGHT[best.status] ?? 0)) best = d;
      return {
        id: link.message_id,
        userId: link.user_id,
        value: JSON.parse(link.value) as unknown,
        change: link.change,
        delivery: best
          ? { status: best.status, attemptCount: best.attempt_count, nextAttemptAt: best.next_attempt_at, lastError: best.last_error }
          : null,
        deliveryCount: own.length,
      };
    });
  }

  /** Members as of the last sync, by userId; `search` matches part of the userId. */
  members(audienceId: number, options: { search?: string; after?: string; limit: number }): { members: AudienceMemberView[]; total: number } {
    const where = ['audience_id = ?'];
    const params: (string | number)[] = [audienceId];
    if (options.search) {
      where.push("user_id LIKE ? ESCAPE '\\'");
      params.push(`%${options.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
    const total = Number((this.#db.prepare(`SELECT count(*) AS n FROM audience_members WHERE ${where.join(' AND ')}`).get(...params) as { n: number }).n);
    if (options.after !== undefined) (where.push('user_id > ?'), params.push(options.after));
    const rows = this.#db
      .prepare(`SELECT user_id, value, since FROM audience_members WHERE ${where.join(' AND ')} ORDER BY user_id LIMIT ?`)
      .all(...params, options.limit) as { user_id: string; value: string; since: number }[];
    return { members: rows.map((r) => ({ userId: r.user_id, value: JSON.parse(r.value) as unknown, since: r.since })), total };
  }

  /** Which audience sync sent each of these messages (only messages a sync stored are in the map). */
  tags(messageIds: number[]): Map<number, AudienceMessageTag> {
    const out = new Map<number, AudienceMessageTag>();
    if (messageIds.length === 0) return out;
    const rows = this.#db
      .prepare(
        `SELECT s.message_id, y.audience_id, a.name, coalesce(a.kind, 'audience') AS kind, y.property, s.value, s.change
         FROM audience_sync_messages s JOIN audience_syncs y ON y.id = s.sync_id LEFT JOIN audiences a ON a.id = y.audience_id
         WHERE s.message_id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(messageIds)) as {
      message_id: number;
      audience_id: number;
      name: string | null;
      kind: AudienceKind;
      property: string;
      value: string;
      change: AudienceMessageTag['change'];
    }[];
    for (const r of rows) {
      out.set(r.message_id, {
        audienceId: r.audience_id,
        audienceName: r.name,
        kind: r.kind,
        property: r.property,
        value: JSON.parse(r.value) as unknown,
        change: r.change,
      });
    }
    return out;
  }

  #deliveryCounts(syncIds: number[]): Map<number, Partial<Record<string, number>>> {
    const out = new Map<number, Partial<Record<string, number>>>();
    if (syncIds.length === 0) return out;
    const rows = this.#db
      .prepare(
        `SELECT s.sync_id, d.status, count(*) AS n FROM audience_sync_messages s JOIN deliveries d ON d.message_id = s.message_id
         WHERE s.sync_id IN (SELECT value FROM json_each(?)) GROUP BY s.sync_id, d.status`,
      )
      .all(JSON.stringify(syncIds)) as { sync_id: number; status: string; n: number }[];
    for (const r of rows) {
      const counts = out.get(r.sync_id) ?? {};
      counts[r.status] = r.n;
      out.set(r.sync_id, counts);
    }
    return out;
  }
}

function fromRow(row: AudienceRow): Audience {
  return {
    ...row,
    definition: JSON.parse(row.definition) as AudienceRule | Computation,
    destinationIds: row.destinationIds === null ? null : (JSON.parse(row.destinationIds) as number[]),
  };
}

function syncView(row: SyncRow, deliveryStatus: Partial<Record<string, number>>): AudienceSyncView {
  return {
    id: row.id,
    audienceId: row.audience_id,
    at: row.at,
    reason: row.reason,
    initial: row.initial === 1,
    property: row.property,
    members: row.members,
    joined: row.joined,
    left: row.left_count,
    messages: row.joined + row.left_count,
    deliveries: row.deliveries,
    deliveryStatus,
    durationMs: row.duration_ms,
  };
}
