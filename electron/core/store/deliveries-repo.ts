import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { composedStatements, preparedOnUse, writtenLimit } from './prepared.ts';
import type { AttemptView, DeliveryErrorCode, TransformRunView } from '../../../shared/contract.ts';
import type { DeliveryStatus, DeliveryTrigger } from './delivery-types.ts';
import { headersSent } from './attempt-headers.ts';
import { LATEST_IN_LANE_SQL } from './shown-delivery.ts';
import { readSnapshot } from './connection.ts';
import { compileQuery, withIndex, type IndexHint } from './message-query-sql.ts';
import { searchCondition } from './message-search.ts';
import { recordedBodies } from './delivery-bodies.ts';
import type { BodyShape } from '../../../shared/webhook-body.ts';


export interface Delivery {
  id: number;
  messageId: number | null;
  destinationId: number;
  trigger: DeliveryTrigger;
  replayOf: number | null;
  status: DeliveryStatus;
  targetUrl: string | null;
  /**
   * The body its last round sent. Recorded by reference (bodyShape), it is built again from its message
   * by the reads that show it — get, forDeletionRequest, forMessage and byIds with `bodies` — and left null
   * by the others, which read rows for their states (many, some of them).
   */
  body: string | null;
  /** The shape its body was recorded by reference in (store/delivery-bodies.ts); null: stored whole, or none sent. */
  bodyShape: BodyShape | null;
  signature: string | null;
  attemptCount: number;
  firstAttemptAt: number | null;
  nextAttemptAt: number | null;
  deadlineAt: number | null;
  lastError: string | null;
  skipReason: string | null;
  /** What its destination's filters and transform made of it (migration 21), null: neither. */
  shaping: string | null;
  /** The transform's run (JSON) of a round that sent nothing because of it; null otherwise. */
  transformRun: string | null;
  /** A body fixed at creation (edited replay, deletion notification), or null to map the message. */
  bodyOverride: string | null;
  /** An edited replay whose body goes through its destination's transform (skipTransform: false): 1; else null. */
  transformBody: number | null;
  deletionRequestId: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What the delivery engine reads of a due delivery to send it: only these columns, it reads many. */
export type DueDelivery = Pick<
  Delivery,
  'id' | 'messageId' | 'destinationId' | 'trigger' | 'targetUrl' | 'bodyOverride' | 'attemptCount' | 'firstAttemptAt' | 'createdAt'
> & { nextAttemptAt: number; transformBody?: number | null };

/** Where a read of due deliveries stopped: the (nextAttemptAt, id) of the last one it returned. */
export interface DueCursor {
  at: number;
  id: number;
}

/** One attempt, as recorded (the contract's view of it is the same shape). */
export type Attempt = AttemptView & { deliveryId: number };

/** What a delivery's last attempt ended with: enough to name its error without reading the sentence. */
export interface LastAttempt {
  errorCode: DeliveryErrorCode | null;
  responseStatus: number | null;
  /** success, retry or final. */
  outcome: string;
}

const COLUMNS = `id, message_id AS messageId, destination_id AS destinationId, trigger, replay_of AS replayOf, status,
  target_url AS targetUrl, body, body_shape AS bodyShape, signature, attempt_count AS attemptCount, first_attempt_at AS firstAttemptAt,
  next_attempt_at AS nextAttemptAt, deadline_at AS deadlineAt, last_error AS lastError, skip_reason AS skipReason,
  body_override AS bodyOverride, deletion_request_id AS deletionRequestId, created_at AS createdAt, updated_at AS updatedAt,
  shaping, transform_run AS transformRun, transform_body AS transformBody`;

/**
 * The contract's `lastErrorCode`/`lastHttpStatus` of a delivery from its newest attempt: only while it
 * is retrying or failed, and only when that attempt is the round that put it there (a delivery failed
 * without sending, e.g. its message was purged, keeps older attempts that are not its last error).
 */
export function lastErrorOf(
  d: Pick<Delivery, 'status'>,
  last: LastAttempt | undefined,
): { lastErrorCode: DeliveryErrorCode | null; lastHttpStatus: number | null } {
  const outcome = d.status === 'retrying' ? 'retry' : d.status === 'failed' ? 'final' : null;
  if (!last || outcome === null || last.outcome !== outcome || last.errorCode === null) return { lastErrorCode: null, lastHttpStatus: null };
  return { lastErrorCode: last.errorCode, lastHttpStatus: last.errorCode === 'http' ? last.responseStatus : null };
}

// One destination's due deliveries: a seek on the partial index deliveries_destination_due, so
// another destination's backlog is never read past. (Exported for the query-plan tests.)
// Read as arrays (half the cost of row objects from node:sqlite: the engine reads one per delivery), in this order.
const DUE_COLUMNS = `id, message_id, destination_id, trigger, target_url, body_override, attempt_count, first_attempt_at, next_attempt_at, transform_body, created_at`;
type DueRow = [number, number | null, number, DueDelivery['trigger'], string | null, string | null, number, number | null, number, number | null, number];
export const DUE_FOR_SQL = `SELECT ${DUE_COLUMNS} FROM deliveries
  WHERE destination_id = ? AND status IN ('pending', 'retrying') AND next_attempt_at <= ?
  ORDER BY next_attempt_at, id LIMIT ?`;
/** The same, after a cursor: only rows a previous read did not reach. */
export const DUE_AFTER_SQL = `SELECT ${DUE_COLUMNS} FROM deliveries
  WHERE destination_id = ? AND status IN ('pending', 'retrying') AND next_attempt_at <= ? AND (next_attempt_at, id) > (?, ?)
  ORDER BY next_attempt_at, id LIMIT ?`;
export const NEXT_DUE_AFTER_SQL = `SELECT min(next_attempt_at) AS at FROM deliveries
  WHERE destination_id = ? AND status IN ('pending', 'retrying') AND next_attempt_at > ?`;

/**
 * "Failed now" (see DeliveriesRepo.failedNow), read from the partial index deliveries_failed in id
 * order (oldest first, no sort). A deleted destination's failures are history (nothing is left to
 * send them through) and are left out here, before the LIMIT, like another destination's when one
 * is chosen. Each check is a range seek on deliveries_message or deliveries_deletion.
 */
export function failedNowSql(forDestination: boolean): string {
  return `SELECT ${COLUMNS} FROM deliveries d
    WHERE d.status = 'failed' AND d.target_url IS NULL ${forDestination ? 'AND d.destination_id = ?' : ''}
      AND d.destination_id IN (SELECT id FROM destinations WHERE deleted_at IS NULL) AND CASE
      WHEN d.message_id IS NOT NULL THEN ${LATEST_IN_LANE_SQL}
      WHEN d.deletion_request_id IS NOT NULL THEN NOT EXISTS (SELECT 1 FROM deliveries later
        WHERE later.deletion_request_id = d.deletion_request_id AND later.destination_id = d.destination_id
          AND later.id > d.id AND later.target_url IS NULL)
      ELSE 0 END
    ORDER BY d.id LIMIT ?`;
}

// A forwarded attempt's error: the request's, unless the receiver refused this message alone (its own
// error then, in forward_attempts; migration 17).
const CARRIED_OWN = 'f.error_code IS NOT NULL OR f.error_message IS NOT NULL';
const CARRIED_ERROR_CODE = `CASE WHEN ${CARRIED_OWN} THEN f.error_code ELSE r.error_code END`;
const CARRIED_ERROR_MESSAGE = `CASE WHEN ${CARRIED_OWN} THEN f.error_message ELSE r.error_message END`;

/**
 * A delivery's attempts, oldest first: its own rows (attempts: webhooks, and forwards recorded before
 * migration 17), then its shares of the requests that carried it (a forwarded batch, recorded once:
 * forward_requests), each with the request's url, timing, headers and answer and its own outcome.
 * An attempt's id is its row's, or its request's. Both halves are seeks on the delivery's id. An own
 * row's header set (its JSON; migration 18) and its delivery's signature come with it, to rebuild the
 * headers it sent (attempt-headers.ts).
 */
const ATTEMPTS_SQL = `SELECT a.id, a.delivery_id AS deliveryId, a.url, a.started_at AS startedAt, a.duration_ms AS durationMs,
    a.request_headers AS requestHeaders, h.headers AS headerSet, d.signature AS deliverySignature,
    a.response_status AS responseStatus, a.response_headers AS responseHeaders, a.response_body AS responseBody,
    a.error_code AS errorCode, a.error_message AS errorMessage, a.outcome, a.retry_at AS retryAt, a.transform_run AS transformRun, 0 AS carried
  FROM attempts a JOIN deliveries d ON d.id = a.delivery_id LEFT JOIN header_sets h ON h.id = a.header_set
  WHERE a.delivery_id = ?
  UNION ALL
  SELECT r.id, f.delivery_id, r.url, r.started_at, r.duration_ms, r.request_headers, NULL, NULL, r.response_status,
    r.response_headers, r.response_body, ${CARRIED_ERROR_CODE}, ${CARRIED_ERROR_MESSAGE}, f.outcome, f.retry_at, f.transform_run, 1
  FROM forward_attempts f JOIN forward_requests r ON r.id = f.request_id WHERE f.delivery_id = ?
  ORDER BY carried, id`;
type AttemptRow = Omit<Attempt, 'requestHeaders' | 'responseHeaders' | 'transform'> & {
  transformRun: string | null;
  requestHeaders: string;
  headerSet: string | null;
  deliverySignature: string | null;
  responseHeaders: string | null;
  carried?: number;
};

/** "Replay all failed" replays at most this many deliveries at a time (the oldest). */
export const FAILED_NOW_MAX = 10_000;

/** Read side of deliveries and attempts; the store's writer thread writes them. */
export class DeliveriesRepo {
  readonly #db: DatabaseSync;
  readonly #sql;
  /** A delivery wait's composed reads, prepared once per text. */
  readonly #composed: (sql: string) => StatementSync;
  /** Fills in the bodies recorded by reference of the deliveries read (#withBodies). */
  readonly #bodies: (rows: Delivery[]) => Delivery[];

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#bodies = recordedBodies(db);
    this.#composed = composedStatements(db);
    this.#sql = preparedOnUse(db, {
      hasMessage: 'SELECT 1 AS linked FROM deliveries WHERE id = ? AND message_id IS NOT NULL',
      dueFor: DUE_FOR_SQL,
      dueAfter: DUE_AFTER_SQL,
      nextDueAfter: NEXT_DUE_AFTER_SQL,
      get: `SELECT ${COLUMNS} FROM deliveries WHERE id = ?`,
      forMessage: `SELECT ${COLUMNS} FROM deliveries WHERE message_id = ? ORDER BY id`,
      attempts: ATTEMPTS_SQL,
      counts: 'SELECT status, count(*) AS n FROM deliveries GROUP BY status',
      forDeletion: `SELECT ${COLUMNS} FROM deliveries WHERE deletion_request_id = ? ORDER BY id`,
      // "Failed now": the latest delivery to the destination's own webhooks of its message (or of its
      // deletion request), when that one failed. Replays to a typed URL are side experiments, and test
      // events are probes: neither counts. Each check is a range seek on deliveries_message or
      // deliveries_deletion; only the failed rows are checked.
      failedNow: failedNowSql(false),
      failedNowFor: failedNowSql(true),
      byIds: `SELECT ${COLUMNS} FROM deliveries WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
      latestIds: 'SELECT id FROM deliveries ORDER BY id DESC LIMIT ?',
      forMessages: `SELECT ${COLUMNS} FROM deliveries WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY id`,
      // Counted from the partial index deliveries_destination_due (its WHERE is this one), not the table.
      waiting: `SELECT count(*) AS n FROM deliveries WHERE status IN ('pending', 'retrying')`,
      // Per delivery its newest attempt — its newest forwarded one (a seek in forward_attempts' key), else
      // its newest own row (a probe of attempts_delivery) — not a scan of their attempts.
      lastAttempts: `SELECT j.value AS deliveryId,
           CASE WHEN f.delivery_id IS NULL THEN a.error_code ELSE ${CARRIED_ERROR_CODE} END AS errorCode,
           CASE WHEN f.delivery_id IS NULL THEN a.response_status ELSE r.response_status END AS responseStatus,
           coalesce(f.outcome, a.outcome) AS outcome
         FROM json_each(?) AS j
           LEFT JOIN forward_attempts f ON f.delivery_id = j.value
             AND f.request_id = (SELECT max(request_id) FROM forward_attempts WHERE delivery_id = j.value)
           LEFT JOIN forward_requests r ON r.id = f.request_id
           LEFT JOIN attempts a ON f.delivery_id IS NULL AND a.id = (SELECT max(id) FROM attempts WHERE delivery_id = j.value)
         WHERE f.delivery_id IS NOT NULL OR a.id IS NOT NULL`,
    }, ['dueFor', 'dueAfter']);
  }

  /** The destination's deliveries whose next attempt is due at `now`, earliest first (after `cursor`, when given). */
  dueFor(destinationId: number, now: number, limit: number, cursor?: DueCursor): DueDelivery[] {
    const rows = (
      cursor ? this.#sql.dueAfter.all(destinationId, now, cursor.at, cursor.id, limit) : this.#sql.dueFor.all(destinationId, now, limit)
    ) as unknown as DueRow[];
    return rows.map(([id, messageId, destination, trigger, targetUrl, bodyOverride, attemptCount, firstAttemptAt, nextAttemptAt, transformBody, createdAt]) => ({
      id,
      messageId,
      destinationId: destination,
      trigger,
      targetUrl,
      bodyOverride,
      attemptCount,
      firstAttemptAt,
      nextAttemptAt,
      createdAt,
      ...(transformBody === null ? {} : { transformBody }),
    }));
  }

  /** When the destination's earliest pending or retrying delivery due after `now` is due, or null when none is. */
  nextDueAfter(destinationId: number, now: number): number | null {
    return (this.#sql.nextDueAfter.get(destinationId, now) as { at: number | null }).at;
  }

  /** Whether the delivery still links to its message (a purge sets the link to NULL). */
  hasMessage(id: number): boolean {
    return this.#sql.hasMessage.get(id) !== undefined;
  }

  get(id: number): Delivery | undefined {
    return this.#withBodies(() => this.#sql.get.all(id) as unknown as Delivery[])[0];
  }

  /** The message's deliveries; with `bodies`, their bodies recorded by reference built again. */
  forMessage(messageId: number, options: { bodies?: boolean } = {}): Delivery[] {
    const read = () => this.#sql.forMessage.all(messageId) as unknown as Delivery[];
    return options.bodies ? this.#withBodies(read) : read();
  }

  /** The deliveries of several messages (a page of the list), by message id. */
  forMessages(messageIds: number[]): Map<number, Delivery[]> {
    const out = new Map<number, Delivery[]>();
    if (messageIds.length === 0) return out;
    const rows = this.#sql.forMessages.all(JSON.stringify(messageIds)) as unknown as Delivery[];
    for (const row of rows) {
      const list = out.get(row.messageId!) ?? [];
      list.push(row);
      out.set(row.messageId!, list);
    }
    return out;
  }

  /** Deliveries waiting to be sent (pending or retrying), whatever their destination's state. */
  waitingCount(): number {
    return (this.#sql.waiting.get() as { n: number }).n;
  }

  /** The newest attempt of each of these deliveries (a page's shown deliveries), in one query. */
  lastAttempts(deliveryIds: number[]): Map<number, LastAttempt> {
    const out = new Map<number, LastAttempt>();
    if (deliveryIds.length === 0) return out;
    for (const row of this.#sql.lastAttempts.all(JSON.stringify(deliveryIds)) as unknown as (LastAttempt & { deliveryId: number })[]) {
      out.set(row.deliveryId, { errorCode: row.errorCode, responseStatus: row.responseStatus, outcome: row.outcome });
    }
    return out;
  }

  forDeletionRequest(deletionRequestId: number): Delivery[] {
    return this.#withBodies(() => this.#sql.forDeletion.all(deletionRequestId) as unknown as Delivery[]);
  }

  /**
   * What "replay all failed" replays: for each message (or deletion request) and destination, the
   * latest delivery to the destination's webhooks when it is `failed` — not one a later replay or
   * retry has since delivered or is still sending; only a destination's that is not deleted (and
   * only `destinationId`'s when given). Oldest first, at most `limit`: `truncated` says more were.
   */
  failedNow(options: { destinationId?: number; limit?: number } = {}): { deliveries: Delivery[]; truncated: boolean } {
    const limit = options.limit ?? FAILED_NOW_MAX;
    const rows = (
      options.destinationId === undefined
        ? this.#sql.failedNow.all(limit + 1)
        : this.#sql.failedNowFor.all(options.destinationId, limit + 1)
    ) as unknown as Delivery[];
    return { deliveries: rows.slice(0, limit), truncated: rows.length > limit };
  }

  /**
   * These deliveries as stored (ids that do not exist are left out), in id order; with `bodies`, their
   * bodies recorded by reference built again (a page of them: the caller bounds it).
   */
  byIds(ids: readonly number[], options: { bodies?: boolean } = {}): Delivery[] {
    if (ids.length === 0) return [];
    const read = () => this.#sql.byIds.all(JSON.stringify(ids)) as unknown as Delivery[];
    return options.bodies ? this.#withBodies(read) : read();
  }

  /** The rows a read gives, their bodies recorded by reference built again in the same snapshot (store/delivery-bodies.ts). */
  #withBodies(read: () => Delivery[]): Delivery[] {
    return readSnapshot(this.#db, () => this.#bodies(read()));
  }

  /**
   * Ids of the deliveries of stored messages after `afterId`, oldest first, at most `limit`: those that
   * meet `terms` (SQL on the delivery `dv` and its message `m`) and whose message matches `search` (a
   * query; through the search indexes where they cover the messages). A QueryError when it does not parse.
   */
  idsAfter(terms: { where: string[]; params: (string | number)[]; index?: IndexHint }, search: string | undefined, afterId: number, limit: number): number[] {
    const query = withIndex(compileQuery(search), terms.index);
    return readSnapshot(this.#db, () => {
      const found = searchCondition(this.#db, query);
      const where = ['dv.id > ?', ...terms.where, ...found.where];
      const sql = `SELECT dv.id FROM deliveries dv JOIN messages m ON m.id = dv.message_id WHERE ${where.join(' AND ')} ORDER BY dv.id ${writtenLimit(limit)}`;
      return (this.#composed(sql).all(afterId, ...terms.params, ...found.params) as { id: number }[]).map((row) => row.id);
    });
  }

  /** The ids of the newest `limit` deliveries, oldest first. */
  latestIds(limit: number): number[] {
    return (this.#sql.latestIds.all(limit) as { id: number }[]).map((row) => row.id).reverse();
  }

  /** A delivery's attempts, oldest first (ATTEMPTS_SQL), each with the headers it sent (rebuilt from its header set: attempt-headers.ts). */
  attempts(deliveryId: number): Attempt[] {
    return (this.#sql.attempts.all(deliveryId, deliveryId) as unknown as AttemptRow[]).map(({ carried, headerSet, deliverySignature, transformRun, ...row }) => ({
      ...row,
      ...(carried === 1 ? { forwarded: true as const } : {}),
      ...(transformRun === null ? {} : { transform: JSON.parse(transformRun) as TransformRunView }),
      requestHeaders: headersSent(headerSet, row.requestHeaders, deliverySignature),
      responseHeaders: row.responseHeaders === null ? null : (JSON.parse(row.responseHeaders) as Record<string, string>),
    }));
  }

  countByStatus(): Partial<Record<DeliveryStatus, number>> {
    const counts: Partial<Record<DeliveryStatus, number>> = {};
    for (const row of this.#sql.counts.all() as unknown as { status: DeliveryStatus; n: number }[]) counts[row.status] = row.n;
    return counts;
  }
}
