// The latency benchmark's schema floor (latency-floor.ts with `record: 'schema'`): the recording floor's
// one plain thread, but writing what Sluice writes, with Sluice's own code, into a Sluice store: each
// request through the writer's request storer (store/request-writes.ts: the request, the message with
// its indexes, one delivery per destination, the tracking plan counts), each answer through the
// writer's result recorder (store/delivery-results.ts: the delivery's new state, its body by reference and its signature,
// the attempt with its headers by reference, a forwarded request once for the messages it carried),
// answers grouped every 10 ms or 500 rows as the recording floor groups them. What it leaves out is
// Sluice's design around those writes: no writer thread, no delivery engine (rounds, bodies built
// ahead, retries, the circuit breaker), no events to the inspector and the waits, no search index. So
// Sluice ÷ this floor is what Sluice's design costs over its schema, and this floor ÷ the recording
// floor what the schema costs (its indexes, triggers and counts) over the least a relay must write.
import { DatabaseSync } from 'node:sqlite';
import type { Pool } from 'undici';
import { headersByReference } from '../../electron/core/store/attempt-headers.ts';
import { connect } from '../../electron/core/store/connection.ts';
import { databaseFile, openDatabase } from '../../electron/core/store/database.ts';
import { deliveryHours } from '../../electron/core/store/delivery-hours.ts';
import { deliveryResultRecorder } from '../../electron/core/store/delivery-results.ts';
import type { DeliveryResult, SharedRequest } from '../../electron/core/store/delivery-types.ts';
import { requestStorer } from '../../electron/core/store/request-writes.ts';
import { groupedWrites, RETRY_MS, settledAs, timedPost, type DeliveryRecorder } from './latency-floor-record.ts';

/** The destinations' ids in the store, in DESTINATIONS' order (hook, fwd0, fwd1); the forwards are never skipped. */
const DESTINATION_IDS = [1, 2, 3];
const FORWARDING = new Set([2, 3]);

export interface SchemaStore extends DeliveryRecorder {
  db: DatabaseSync;
  /** Stores one request's events as Sluice's writer does; each event's row id and its delivery ids (DESTINATIONS' order). */
  store(events: Record<string, unknown>[], jsons: string[], now: number): { rows: number[]; deliveries: number[][] };
  /** Stores several requests in one transaction (a group commit of Sluice's writer); per request, as store() answers. */
  storeGroup(requests: { events: Record<string, unknown>[]; jsons: string[] }[], now: number): { rows: number[]; deliveries: number[][] }[];
  /** As storeGroup, without reading the delivery ids back: per request, its messages' row ids. */
  storeRows(requests: { events: Record<string, unknown>[]; jsons: string[] }[], now: number): number[][];
  /** The delivery ids of these messages' rows, in DESTINATIONS' order per message. */
  deliveriesOf(rows: number[]): number[][];
  /** Records results in one transaction, as Sluice's writer records a group of rounds' results. */
  recordResults(results: DeliveryResult[]): void;
  /** The stored message with this messageId (its text), as a wait by messageId reads it. */
  lookup(messageId: string): string | undefined;
  stored(): number;
}

/** A Sluice store in `dir` with one source (bench) and the floor's three destinations, and Sluice's writes on it. */
export function schemaStore(dir: string): SchemaStore {
  const now0 = Date.now();
  openDatabase(dir).close(); // the store as Sluice makes it: every migration, its triggers and indexes
  const db = connect(databaseFile(dir), 'writer');
  db.exec(`INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'bench', 'wk_bench', 'server', ${now0})`);
  for (const [id, name, kind] of [[1, 'hook', 'webhooks'], [2, 'fwd0', 'tracking-api'], [3, 'fwd1', 'tracking-api']] as const) {
    db.exec(`INSERT INTO destinations (id, name, kind, enabled, settings, created_at, updated_at) VALUES (${id}, '${name}', '${kind}', 1, '{}', ${now0}, ${now0});
      INSERT INTO destination_sources VALUES (${id}, 1);`);
  }
  // The overview's counts of deliveries made, as the writer keeps them: added up over a commit, written before it.
  const hours = deliveryHours(db);
  const storeRequest = requestStorer(db, hours);
  const recorder = deliveryResultRecorder(db);
  const deliveriesOf = db.prepare('SELECT id FROM deliveries WHERE message_id = ? ORDER BY destination_id');
  const byMessageId = db.prepare("SELECT raw FROM messages INDEXED BY messages_dedupe WHERE source_id = 1 AND message_id = ? AND status = 'accepted'");
  const open = db.prepare("SELECT count(*) AS n FROM deliveries WHERE status IN ('pending', 'retrying')");
  const failed = db.prepare("SELECT (SELECT count(*) FROM attempts WHERE outcome <> 'success') + (SELECT count(*) FROM forward_attempts WHERE outcome <> 'success') AS n");

  const recordResults = (results: DeliveryResult[]) => {
    db.exec('BEGIN IMMEDIATE');
    recorder.record(results, Date.now());
    db.exec('COMMIT');
  };
  /** One request's rows, in the caller's transaction. */
  const storeOne = (events: Record<string, unknown>[], jsons: string[], now: number) => {
    const committed = storeRequest(
      {
        sourceId: 1,
        endpoint: events.length === 1 ? 'track' : 'batch',
        receivedAt: now,
        sentAt: null,
        ip: '127.0.0.1',
        envelope: null,
        messages: events.map((e, i) => ({
          messageId: String(e.messageId),
          type: String(e.type ?? 'track'),
          status: 'accepted' as const,
          rejectCode: null,
          rejectReason: null,
          userId: e.userId === undefined ? null : String(e.userId),
          anonymousId: e.anonymousId === undefined ? null : String(e.anonymousId),
          event: e.event === undefined ? null : String(e.event),
          timestamp: now,
          raw: jsons[i]!,
          skipReason: null,
        })),
      },
      DESTINATION_IDS,
      FORWARDING,
    );
    return [...committed.ids];
  };
  const deliveryIds = (rows: number[]) => rows.map((row) => (deliveriesOf.all(row) as { id: number }[]).map((d) => Number(d.id)));
  const storeRows = (requests: { events: Record<string, unknown>[]; jsons: string[] }[], now: number) => {
    db.exec('BEGIN IMMEDIATE');
    const stored = requests.map(({ events, jsons }) => storeOne(events, jsons, now));
    hours.write();
    db.exec('COMMIT');
    return stored;
  };
  // The floor reads its deliveries back in the ingest transaction, as Sluice's engine reads new ones (due rows).
  const storeGroup = (requests: { events: Record<string, unknown>[]; jsons: string[] }[], now: number) => {
    db.exec('BEGIN IMMEDIATE');
    const stored = requests.map(({ events, jsons }) => {
      const rows = storeOne(events, jsons, now);
      return { rows, deliveries: deliveryIds(rows) };
    });
    hours.write();
    db.exec('COMMIT');
    return stored;
  };
  const posts = new Set<Promise<void>>();
  const grouped = groupedWrites<DeliveryResult>(recordResults);
  const record = (results: DeliveryResult[]) => grouped.add(results, results.length);

  return {
    db,
    store: (events, jsons, now) => storeGroup([{ events, jsons }], now)[0]!,
    storeGroup,
    storeRows,
    deliveriesOf: deliveryIds,
    recordResults,
    lookup: (messageId) => (byMessageId.get(messageId) as { raw: string } | undefined)?.raw,
    stored: () => Number((db.prepare('SELECT max(id) AS n FROM messages').get() as { n: number | null }).n ?? 0),
    deliveries: () => {
      throw new Error('the schema floor stores deliveries with their messages (store())');
    },
    prefill: () => {
      throw new Error('the schema floor is measured at the small store only');
    },
    post: (pool, url, path, headers, body, owner, deliveries) =>
      timedPost(pool, path, headers, body, posts, ({ startedAt, durationMs, ...answer }) => {
          const { ok, retry } = settledAs(answer.status);
          const status = ok ? 'delivered' : retry ? 'retrying' : 'failed';
          const outcome = ok ? 'success' : retry ? 'retry' : 'final';
          const retryAt = retry ? startedAt + RETRY_MS : null;
          const errorCode = answer.error ? 'connect' : ok ? null : 'http';
          const errorMessage = answer.error ?? (ok ? null : `HTTP ${answer.status}`);
          const common = { status, attemptCount: 1, firstAttemptAt: startedAt, nextAttemptAt: retryAt, deadlineAt: startedAt + 4 * 3_600_000, lastError: errorMessage } as const;
          const request = { url: `${url}${path}`, startedAt, durationMs, responseStatus: answer.status, responseHeaders: answer.responseHeaders, responseBody: answer.responseBody, errorCode, errorMessage } as const;
          if (owner !== null) {
            // A webhook's attempt: its signature on the delivery, the body and the headers by reference (the
            // body is the one the builder makes of the message: store/delivery-bodies.ts).
            // Named as Sluice sends them, so that the set is one for every attempt and the signature the delivery's.
            const signature = headers['x-signature'] ?? null;
            const { headerSet, own } = headersByReference({ 'Content-Type': headers['content-type'] ?? 'application/json', ...(signature ? { 'X-Signature': signature } : {}) }, signature);
            record([{ ...common, deliveryId: owner, body: null, bodyShape: 'seed', signature, attempts: [{ ...request, requestHeaders: own, headerSet, outcome, retryAt }] }]);
          } else {
            // A forwarded batch: one request for the messages it carried.
            const carriedBy: SharedRequest = { ...request, requestHeaders: JSON.stringify(headers) };
            record(deliveries.map((deliveryId) => ({ ...common, deliveryId, body: null, bodyShape: 'forward' as const, signature: null, attempts: [{ ...carriedBy, outcome, retryAt, carriedBy }] })));
          }
        }),
    backlog: () => Number((open.get() as { n: number }).n),
    failedAttempts: () => Number((failed.get() as { n: number }).n),
    async close() {
      while (posts.size > 0) await Promise.all([...posts]);
      grouped.flush();
    },
  };
}
