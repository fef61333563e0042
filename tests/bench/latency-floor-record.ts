// The latency benchmark's recording floor (latency-floor.ts with `record: true`): what any relay that
// records its deliveries as the specification asks must at least write, plainly, on the floor's one
// thread. In the ingest transaction, one delivery row per destination ('pending', due now); per answer,
// the delivery's new state (status, attempt count, next attempt, its last attempt) and one attempt row
// (url, start, duration, request headers, response status, headers and body up to 64 KB, error). A
// forwarded request has one attempt row, shared by the messages it carried (each delivery points at it).
// The answers' writes are buffered and committed in one transaction every 10 ms or 500 rows. Nothing
// more: no 'in_flight' state, no retries fired (only scheduled), no events, no body kept per delivery.
import type { DatabaseSync } from 'node:sqlite';
import type { Pool } from 'undici';
import { MAX_RESPONSE_BODY_BYTES } from '../../electron/core/delivery/webhook-sender.ts';

/** The floor's destinations, in the order each message's delivery rows are inserted. */
export const DESTINATIONS = ['hook', 'fwd0', 'fwd1'] as const;
/** Answers are committed in groups: after this long, or at this many rows (the schema floor groups the same way). */
export const GROUP_MS = 10;
export const GROUP_ROWS = 500;
/** When a retryable failure would be tried again (the first step of DESIGN.md §5.4's schedule). */
export const RETRY_MS = 5_000;

/**
 * Items written in groups, as both recording floors commit their answers: after GROUP_MS, or at once
 * when GROUP_ROWS rows are waiting. `flush` writes what waits now.
 */
export function groupedWrites<T>(write: (items: T[]) => void): { add(items: readonly T[], rows: number): void; flush(): void } {
  let buffered: T[] = [];
  let rows = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const items = buffered;
    buffered = [];
    rows = 0;
    if (items.length > 0) write(items);
  };
  return {
    add(items, count) {
      buffered.push(...items);
      rows += count;
      if (rows >= GROUP_ROWS) flush();
      else timer ??= setTimeout(flush, GROUP_MS);
    },
    flush,
  };
}

/** A POST's answer as both recording floors record it: when it started, how long it took, what came back. */
export interface TimedAnswer {
  startedAt: number;
  durationMs: number;
  status: number | null;
  responseHeaders: string | null;
  responseBody: string | null;
  error: string | null;
}

/**
 * POSTs with undici and hands `done` the answer (the body up to 64 KB, a failure as its message); the
 * returned promise is in `posts` until `done` has run, so that a floor's close() waits for it.
 */
export function timedPost(pool: Pool, path: string, headers: Record<string, string>, body: string, posts: Set<Promise<void>>, done: (answer: TimedAnswer) => void): Promise<void> {
  const startedAt = Date.now();
  const t0 = performance.now();
  const posted: Promise<void> = pool
    .request({ path, method: 'POST', headers, body })
    .then(async (res) => ({ status: res.statusCode, responseHeaders: JSON.stringify(res.headers), responseBody: (await res.body.text()).slice(0, MAX_RESPONSE_BODY_BYTES), error: null }))
    .catch((error: Error) => ({ status: null, responseHeaders: null, responseBody: null, error: error.message }))
    .then((answer) => {
      posts.delete(posted);
      done({ startedAt, durationMs: Math.round((performance.now() - t0) * 10) / 10, ...answer });
    });
  posts.add(posted);
  return posted;
}

/** What an answer means for the deliveries it settles: an HTTP 2xx delivers, a timeout, 5xx, 408 or 429 retries, the rest fails. */
export function settledAs(status: number | null): { ok: boolean; retry: boolean } {
  const ok = status !== null && status >= 200 && status < 300;
  return { ok, retry: !ok && (status === null || status >= 500 || status === 408 || status === 429) };
}

export interface Answer {
  /** The delivery the attempt is of; null for a forwarded request's, shared by `deliveries`. */
  owner: number | null;
  deliveries: number[];
  url: string;
  startedAt: number;
  durationMs: number;
  requestHeaders: string;
  status: number | null;
  responseHeaders: string | null;
  responseBody: string | null;
  error: string | null;
}

export interface DeliveryRecorder {
  /** In the ingest transaction: the message's delivery rows, one per destination; their ids in DESTINATIONS' order. */
  deliveries(messageRow: number | bigint, now: number): number[];
  /** A prefilled message's deliveries, as delivered long ago (forward attempts shared by 100 messages). */
  prefill(messageRow: number | bigint, n: number): void;
  /** POSTs and records the answer: `owner` the delivery a webhook attempt is of, `deliveries` every delivery it settles. */
  post(pool: Pool, url: string, path: string, headers: Record<string, string>, body: string, owner: number | null, deliveries: number[]): Promise<void>;
  /** Deliveries not yet settled (pending or retrying), as committed. */
  backlog(): number;
  /** Attempts without a 2xx answer. */
  failedAttempts(): number;
  /** Waits for the posts under way and commits what is buffered. */
  close(): Promise<void>;
}

/** Makes the recording floor's tables in `db`; returns what writes a group of answers (in the caller's transaction). */
export function recordingTables(db: DatabaseSync): {
  insertDelivery: ReturnType<DatabaseSync['prepare']>;
  insertAttempt: ReturnType<DatabaseSync['prepare']>;
  writeAnswers: (answers: readonly Answer[]) => void;
} {
  db.exec(`
    CREATE TABLE deliveries (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL, destination TEXT NOT NULL, status TEXT NOT NULL,
      attempt_count INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER, last_attempt_id INTEGER);
    CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
    CREATE INDEX deliveries_message ON deliveries (message_id);
    CREATE TABLE attempts (id INTEGER PRIMARY KEY, delivery_id INTEGER, url TEXT NOT NULL, started_at INTEGER NOT NULL, duration_ms REAL,
      request_headers TEXT NOT NULL, response_status INTEGER, response_headers TEXT, response_body TEXT, error TEXT);
    CREATE INDEX attempts_delivery ON attempts (delivery_id) WHERE delivery_id IS NOT NULL;`);
  const insertDelivery = db.prepare("INSERT INTO deliveries (message_id, destination, status, next_attempt_at) VALUES (?, ?, 'pending', ?)");
  const insertAttempt = db.prepare(
    'INSERT INTO attempts (delivery_id, url, started_at, duration_ms, request_headers, response_status, response_headers, response_body, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const settle = db.prepare('UPDATE deliveries SET status = ?, attempt_count = attempt_count + 1, next_attempt_at = ?, last_attempt_id = ? WHERE id = ?');
  const writeAnswers = (answers: readonly Answer[]) => {
    for (const a of answers) {
      const attempt = insertAttempt.run(a.owner, a.url, a.startedAt, a.durationMs, a.requestHeaders, a.status, a.responseHeaders, a.responseBody, a.error).lastInsertRowid;
      const { ok, retry } = settledAs(a.status);
      const status = ok ? 'delivered' : retry ? 'retrying' : 'failed';
      for (const id of a.deliveries) settle.run(status, retry ? a.startedAt + RETRY_MS : null, attempt, id);
    }
  };
  return { insertDelivery, insertAttempt, writeAnswers };
}

export function deliveryRecorder(db: DatabaseSync): DeliveryRecorder {
  const { insertDelivery, insertAttempt, writeAnswers } = recordingTables(db);
  const insertSettled = db.prepare("INSERT INTO deliveries (message_id, destination, status, attempt_count, last_attempt_id) VALUES (?, ?, 'delivered', 1, ?)");
  const pointAt = db.prepare('UPDATE deliveries SET last_attempt_id = ? WHERE id = ?');
  const open = db.prepare("SELECT count(*) AS n FROM deliveries WHERE status IN ('pending', 'retrying')");
  const failed = db.prepare('SELECT count(*) AS n FROM attempts WHERE response_status IS NULL OR response_status NOT BETWEEN 200 AND 299');

  const posts = new Set<Promise<void>>();
  const answers = groupedWrites<Answer>((group) => {
    db.exec('BEGIN');
    writeAnswers(group);
    db.exec('COMMIT');
  });
  const record = (answer: Answer) => answers.add([answer], 1 + answer.deliveries.length);
  const attempt = (owner: number | bigint | null, url: string) =>
    insertAttempt.run(owner, url, Date.now(), 1, '{}', 200, '{}', '{"success":true}', null).lastInsertRowid;
  let forwardAttempts: (number | bigint)[] = [];

  return {
    deliveries(messageRow, now) {
      return DESTINATIONS.map((name) => Number(insertDelivery.run(messageRow, name, now).lastInsertRowid));
    },
    prefill(messageRow, n) {
      if (n % 100 === 0) forwardAttempts = [attempt(null, '/fwd0/v1/batch'), attempt(null, '/fwd1/v1/batch')];
      const hook = insertSettled.run(messageRow, 'hook', null).lastInsertRowid;
      pointAt.run(attempt(hook, '/hook'), hook);
      insertSettled.run(messageRow, 'fwd0', forwardAttempts[0]!);
      insertSettled.run(messageRow, 'fwd1', forwardAttempts[1]!);
    },
    post: (pool, url, path, headers, body, owner, deliveries) =>
      timedPost(pool, path, headers, body, posts, (answer) => record({ owner, deliveries, url: `${url}${path}`, requestHeaders: JSON.stringify(headers), ...answer })),
    backlog: () => Number((open.get() as { n: number }).n),
    failedAttempts: () => Number((failed.get() as { n: number }).n),
    async close() {
      while (posts.size > 0) await Promise.all([...posts]);
      answers.flush();
    },
  };
}
