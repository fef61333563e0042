// Issues as stored (migration 24): the groups with their kept counts, read as the contract's views
// (shared/channels/issues.ts), and their deliveries in chunks for a bulk retry (delivery/bulk-retry.ts).
// The list reads the groups' rows alone — a few hundred at most — never the deliveries and nothing is
// counted: it is as fast at a million stored messages as at ten, under a millisecond, so it is read on the
// core's connection rather than queued in the counting thread (count-worker.ts), where it would wait behind
// a count under way (a facet of a payload field reads for a second or more) and, at a core's first
// question, for the thread to start (the issues benchmark measured ~0.9 s for that start alone).
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ISSUES_LIST_MAX, type IssueErrorKind, type IssueState, type IssueView } from '../../../shared/channels/issues.ts';
import type { MessageFilter } from '../../../shared/message-filter.ts';
import { compileQuery } from './message-query-sql.ts';
import { bulkFilter, filterTerms } from './messages-repo.ts';
import { preparedOnUse } from './prepared.ts';

interface IssueRow {
  id: number;
  destination_id: number;
  destination_name: string | null;
  url: string;
  http_status: number;
  error_kind: IssueErrorKind;
  error: string;
  failed: number;
  retrying: number;
  seen: number;
  first_seen: number;
  last_seen: number;
  closed_at: number | null;
}

const COLUMNS = `i.id, i.destination_id, d.name AS destination_name, i.url, i.http_status, i.error_kind, i.error, i.failed, i.retrying,
  i.seen, i.first_seen, i.last_seen, i.closed_at`;
const FROM = 'issues i LEFT JOIN destinations d ON d.id = i.destination_id';

/** The clause of the query language that lists a group's messages (shared/message-query.ts `issue:`). */
export const issueQuery = (id: number): string => `issue:${id}`;

function view(row: IssueRow): IssueView {
  return {
    id: row.id,
    destinationId: row.destination_id,
    destinationName: row.destination_name ?? `destination ${row.destination_id}`,
    url: row.url,
    status: row.http_status === 0 ? null : row.http_status,
    errorKind: row.error_kind,
    error: row.error,
    open: row.failed + row.retrying,
    failed: row.failed,
    retrying: row.retrying,
    seen: row.seen,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    closedAt: row.closed_at,
    query: issueQuery(row.id),
  };
}

const lists = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/** The groups in `state`, of one destination or all, the latest seen first (at most ISSUES_LIST_MAX), and how many are open. */
export function listIssues(db: DatabaseSync, state: IssueState, destinationId: number | undefined): { issues: IssueView[]; open: number } {
  let cache = lists.get(db);
  if (!cache) lists.set(db, (cache = new Map()));
  const key = `${state} ${destinationId !== undefined}`;
  let statements = cache.get(key);
  if (!statements) {
    const terms = [state === 'open' ? 'i.closed_at IS NULL' : state === 'closed' ? 'i.closed_at IS NOT NULL' : '1', destinationId !== undefined ? 'i.destination_id = ?' : '1'];
    statements = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE ${terms.join(' AND ')} ORDER BY i.last_seen DESC, i.id DESC LIMIT ${ISSUES_LIST_MAX}`);
    cache.set(key, statements);
  }
  const params = destinationId !== undefined ? [destinationId] : [];
  const rows = statements.all(...params) as unknown as IssueRow[];
  const open = db.prepare(`SELECT count(*) AS n FROM issues WHERE closed_at IS NULL${destinationId !== undefined ? ' AND destination_id = ?' : ''}`).get(...params) as { n: number };
  return { issues: rows.map(view), open: open.n };
}

/** A failed or retrying delivery of a group, for a bulk retry. */
export interface OpenDelivery {
  id: number;
  messageId: number | null;
  destinationId: number;
}

/** The main thread's reads of Issues: one group, and the open deliveries a bulk retry walks in chunks, by delivery id. */
export class IssuesRepo {
  readonly #db: DatabaseSync;
  readonly #s;

  constructor(db: DatabaseSync) {
    this.#db = db;
    const open = `SELECT m.delivery_id AS id, x.message_id AS messageId, x.destination_id AS destinationId
      FROM issue_deliveries m JOIN deliveries x ON x.id = m.delivery_id`;
    this.#s = preparedOnUse(db, {
      get: `SELECT ${COLUMNS} FROM ${FROM} WHERE i.id = ?`,
      ofIssue: `${open} WHERE m.issue_id = ? AND m.delivery_id > ? ORDER BY m.delivery_id LIMIT ?`,
      all: `${open} WHERE m.delivery_id > ? ORDER BY m.delivery_id LIMIT ?`,
      ofDestination: `${open} WHERE m.delivery_id > ? AND x.destination_id = ? ORDER BY m.delivery_id LIMIT ?`,
    });
  }

  /** The groups in `state` (listIssues). */
  list(state: IssueState, destinationId: number | undefined): { issues: IssueView[]; open: number } {
    return listIssues(this.#db, state, destinationId);
  }

  get(id: number): IssueView | null {
    const row = this.#s.get.get(id) as unknown as IssueRow | undefined;
    return row ? view(row) : null;
  }

  /** A group's failed and retrying deliveries after `afterId`, oldest first. */
  ofIssue(issueId: number, afterId: number, limit: number): OpenDelivery[] {
    return this.#s.ofIssue.all(issueId, afterId, limit) as unknown as OpenDelivery[];
  }

  /** Every group's failed and retrying deliveries after `afterId` (of one destination), oldest first. */
  open(afterId: number, limit: number, destinationId?: number): OpenDelivery[] {
    const rows = destinationId === undefined ? this.#s.all.all(afterId, limit) : this.#s.ofDestination.all(afterId, destinationId, limit);
    return rows as unknown as OpenDelivery[];
  }

  /**
   * Which of these messages the filter picks (the stream's search and filters, as replays and downloads
   * take them: the same SQL terms, each clause's exact test on the row); a QueryError when its search
   * does not parse. A few hundred ids at a time, by primary key.
   */
  matching(messageIds: readonly number[], filter: MessageFilter): Set<number> {
    if (messageIds.length === 0) return new Set();
    const { search, ...rest } = bulkFilter(filter);
    const terms = filterTerms(rest);
    const query = compileQuery(search);
    const where = ['m.id IN (SELECT value FROM json_each(?))', ...terms.where, ...query.where];
    const rows = this.#db.prepare(`SELECT m.id FROM messages m WHERE ${where.join(' AND ')}`).all(JSON.stringify(messageIds), ...terms.params, ...query.params);
    return new Set(rows.map((row) => Number(row.id)));
  }
}
