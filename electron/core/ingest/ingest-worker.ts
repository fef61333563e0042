// The ingest worker: parses, validates and stores requests off the request thread. Requests that
// arrive while a transaction runs are committed together in the next one (group commit), and each
// is answered only once its transaction is durable. The request thread is left with HTTP alone, so
// it stays responsive for the UI and delivery work that share it.
// It is also the store's single writer for deliveries: each accepted message's deliveries are
// created in the same transaction as the message (nothing stored is ever left without them), and
// the delivery engine's results are committed here in the same group commits.
// Each unit of a group (an ingestion request, one commitResults call, one write op) runs in its own
// savepoint: a unit that fails is undone and rejected alone, with its own error, and the others
// still commit. Only a failure of the transaction itself (BEGIN, COMMIT, I/O) fails them all.
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointAutomatically, connect } from '../store/connection.ts';
import { IngestError } from './ingest-error.ts';
import type { FromIngestWorker, ToIngestWorker, UnitFailure, WriteOp, WriteOutcome } from './ingest-protocol.ts';
import type { CommittedRequest, RejectedEntry } from '../store/stored-request.ts';
import type { DeliveryResult, NewDelivery } from '../store/delivery-types.ts';
import { prepareRequest, type IngestJob } from './prepare-request.ts';
import { type PreparedRequest } from '../store/stored-request.ts';
import { AudienceWriter } from '../audiences/audience-writer.ts';
import { bodiesPreparer } from '../delivery/prepare-bodies.ts';
import { fromColumns } from './result-columns.ts';
import { deliveryResultRecorder } from '../store/delivery-results.ts';

const { file } = workerData as { file: string };
const port = parentPort!;
const db = connect(file, 'writer');

const insertRequest = db.prepare(
  'INSERT INTO requests (source_id, endpoint, received_at, sent_at, ip, envelope) VALUES (?, ?, ?, ?, ?, ?)',
);
// OR IGNORE only ever fires on messages_dedupe: an accepted id this source has sent before.
const insertAccepted = db.prepare(
  `INSERT OR IGNORE INTO messages (request_id, source_id, message_id, type, status, user_id, anonymous_id, event,
     received_at, timestamp, raw) VALUES (?, ?, ?, ?, 'accepted', ?, ?, ?, ?, ?, ?)`,
);
const insertOther = db.prepare(
  `INSERT INTO messages (request_id, source_id, message_id, type, status, reject_code, reject_reason, user_id,
     anonymous_id, event, received_at, timestamp, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);

const insertDelivery = db.prepare(
  `INSERT INTO deliveries (message_id, destination_id, trigger, status, skip_reason, next_attempt_at, created_at, updated_at)
   VALUES (?, ?, 'automatic', ?, ?, ?, ?, ?)`,
);
const storeResult = deliveryResultRecorder(db);

// A delivery of a message only while the message exists: a purge committed between planning a
// replay and writing it (often in the same group) deleted it, and its deliveries are not created.
// Message ids can be reused once the newest rows are purged (the table has no AUTOINCREMENT): a
// replay also needs the delivery it repeats to still point at the message — a purge sets that
// link to NULL — and the message to still carry the messageId it was planned with, or a new
// message that took the id would be sent in the purged one's place.
// Parameters are anonymous, values repeated where used twice (store/delivery-results.ts says why).
const insertRequestedDelivery = db.prepare(
  `INSERT INTO deliveries (message_id, destination_id, trigger, replay_of, status, target_url, body_override,
     deletion_request_id, next_attempt_at, created_at, updated_at)
   SELECT ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?
   WHERE ? IS NULL OR (EXISTS (SELECT 1 FROM messages WHERE id = ? AND (? IS NULL OR message_id IS ?))
     AND (? IS NULL OR EXISTS (SELECT 1 FROM deliveries repeated WHERE repeated.id = ? AND repeated.message_id = ?)))`,
);
const retryNow = db.prepare(
  `UPDATE deliveries SET next_attempt_at = ?, updated_at = ? WHERE id = ? AND status IN ('pending', 'retrying')`,
);
const cancel = db.prepare(
  `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, last_error = 'cancelled', updated_at = ?
   WHERE id = ? AND status IN ('pending', 'retrying')`,
);
const insertDeletion = db.prepare(
  'INSERT INTO deletion_requests (user_id, requested_at, purge, source_ids) VALUES (?, ?, ?, ?)',
);
// A purge deletes the user's messages, and the copies of them that deliveries keep: the body sent,
// an edited replay's body, and the receivers' answers (which may echo what they got). The delivery
// rows themselves stay, as history of what was sent when, their message link set to NULL. The
// messages are found once (a scan: no index by user); the rest goes through ids.
const userMessages = db.prepare('SELECT id FROM messages WHERE user_id = ? AND source_id = ?');
userMessages.setReturnArrays(true);
const IDS = 'SELECT value FROM json_each(?)';
const scrubResponses = db.prepare(`UPDATE attempts SET response_body = NULL WHERE response_body IS NOT NULL
  AND delivery_id IN (SELECT id FROM deliveries WHERE message_id IN (${IDS}))`);
const scrubBodies = db.prepare(`UPDATE deliveries SET body = NULL, body_override = NULL WHERE message_id IN (${IDS})`);
const deleteMessages = db.prepare(`DELETE FROM messages WHERE id IN (${IDS})`);

/** Purges a user's messages of one source, and what deliveries keep of them; how many messages. */
function purgeUser(userId: string, sourceId: number): number {
  const ids = (userMessages.all(userId, sourceId) as unknown as [number][]).map(([id]) => id);
  if (ids.length === 0) return 0;
  const list = JSON.stringify(ids);
  scrubResponses.run(list);
  scrubBodies.run(list);
  return Number(deleteMessages.run(list).changes);
}
const notePurged = db.prepare('UPDATE deletion_requests SET purged_messages = ? WHERE id = ?');
const audiences = new AudienceWriter(db);
const prepareBodies = bodiesPreparer(db);
const savepoint = db.prepare('SAVEPOINT unit');
const release = db.prepare('RELEASE unit');
const rollbackTo = db.prepare('ROLLBACK TO unit');

type Unit<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Runs one unit of the group's transaction in a savepoint: on failure only its writes are undone.
 * When SQLite has rolled back the whole transaction itself (an I/O error, a full disk), there is
 * nothing left to keep: the error goes up and the whole group fails.
 */
function inSavepoint<T>(work: () => T): Unit<T> {
  savepoint.run();
  try {
    const value = work();
    release.run();
    return { ok: true, value };
  } catch (error) {
    if (!db.isTransaction) throw error;
    rollbackTo.run();
    release.run();
    return { ok: false, error: (error as Error).message };
  }
}

let writeKeys = new Map<string, number>();
/** sourceId → the enabled destinations connected to it. */
let routes = new Map<number, number[]>();
let pending: { job: IngestJob; prepared: PreparedRequest }[] = [];
let pendingResults: { id: number; results: DeliveryResult[] }[] = [];
let pendingOps: { id: number; op: WriteOp }[] = [];
let pendingRows = 0;
let scheduled = false;
const FLUSH_ROWS = 1000;

function send(message: FromIngestWorker): void {
  port.postMessage(message);
}

function store(prepared: PreparedRequest): CommittedRequest {
  const { sourceId, receivedAt } = prepared;
  const requestId = Number(
    insertRequest.run(sourceId, prepared.endpoint, receivedAt, prepared.sentAt, prepared.ip, prepared.envelope).lastInsertRowid,
  );
  const n = prepared.messages.length;
  const ids = new Float64Array(n);
  const statuses = new Uint8Array(n);
  const rejected: RejectedEntry[] = [];
  const destinations = routes.get(sourceId);
  let deliveries = 0;
  for (let i = 0; i < n; i++) {
    const m = prepared.messages[i]!;
    if (m.status === 'accepted') {
      const result = insertAccepted.run(
        requestId, sourceId, m.messageId, m.type, m.userId, m.anonymousId, m.event, receivedAt, m.timestamp, m.raw,
      );
      if (result.changes === 1) {
        const id = Number(result.lastInsertRowid);
        ids[i] = id; // status 0: accepted
        if (destinations) {
          const status = m.skipReason === null ? 'pending' : 'skipped';
          const due = m.skipReason === null ? receivedAt : null;
          for (const destinationId of destinations) insertDelivery.run(id, destinationId, status, m.skipReason, due, receivedAt, receivedAt);
          deliveries += destinations.length;
        }
        continue;
      }
    }
    const status = m.status === 'accepted' ? 'duplicate' : 'rejected';
    const result = insertOther.run(requestId, sourceId, m.messageId, m.type, status, m.rejectCode, m.rejectReason,
      m.userId, m.anonymousId, m.event, receivedAt, m.timestamp, m.raw);
    ids[i] = Number(result.lastInsertRowid);
    statuses[i] = status === 'duplicate' ? 2 : 1;
    if (status === 'rejected') {
      rejected.push({ index: i, code: m.rejectCode!, message: m.rejectReason!, ...(m.messageId ? { messageId: m.messageId } : {}) });
    }
  }
  return { requestId, sourceId, receivedAt, ids, statuses, rejected, deliveries };
}

/** Creates the deliveries whose message (if any) still exists; the others are left out and listed. */
function createDeliveries(
  deliveries: NewDelivery[],
  now: number,
  deletionRequestId: number | null,
): { ids: number[]; goneMessageIds: number[] } {
  const ids: number[] = [];
  const gone = new Set<number>();
  for (const d of deliveries) {
    const messageKey = d.messageKey ?? null;
    const result = insertRequestedDelivery.run(d.messageId, d.destinationId, d.trigger, d.replayOf, d.targetUrl,
      d.bodyOverride, d.deletionRequestId ?? deletionRequestId, d.due, now, now,
      d.messageId, d.messageId, messageKey, messageKey, d.replayOf, d.replayOf, d.messageId);
    if (result.changes === 1) ids.push(Number(result.lastInsertRowid));
    else gone.add(d.messageId!);
  }
  return { ids, goneMessageIds: [...gone] };
}

function applyOp(op: WriteOp): WriteOutcome {
  switch (op.op) {
    case 'createDeliveries': {
      const { ids, goneMessageIds } = createDeliveries(op.deliveries, op.now, null);
      return { ids, changed: 0, ...(goneMessageIds.length > 0 ? { goneMessageIds } : {}) };
    }
    case 'retryNow':
      return { ids: [], changed: op.deliveryIds.reduce((n, id) => n + Number(retryNow.run(op.now, op.now, id).changes), 0) };
    case 'cancel':
      return { ids: [], changed: op.deliveryIds.reduce((n, id) => n + Number(cancel.run(op.now, id).changes), 0) };
    case 'deletionRequest': {
      const deletionRequestId = Number(
        insertDeletion.run(op.userId, op.now, op.purge ? 1 : 0, JSON.stringify(op.sourceIds)).lastInsertRowid,
      );
      const { ids } = createDeliveries(op.deliveries, op.now, deletionRequestId); // delete notifications: no message
      let purged = 0;
      if (op.purge) {
        for (const sourceId of op.sourceIds) {
          purged += purgeUser(op.userId, sourceId);
          audiences.forgetPurgedUser(sourceId, op.userId);
        }
        notePurged.run(purged, deletionRequestId);
      }
      return { ids, changed: purged, deletionRequestId };
    }
    default:
      return { ids: [], changed: 0, audience: audiences.apply(op, routes) };
  }
}

function flush(): void {
  scheduled = false;
  const batch = pending;
  const results = pendingResults;
  const ops = pendingOps;
  pending = [];
  pendingResults = [];
  pendingOps = [];
  pendingRows = 0;
  if (batch.length === 0 && results.length === 0 && ops.length === 0) return;
  try {
    db.exec('BEGIN IMMEDIATE');
    const jobs = batch.map(({ job, prepared }) => ({ id: job.id, unit: inSavepoint(() => store(prepared)) }));
    const now = Date.now();
    const stored = results.map(({ id, results: unit }) => ({
      id,
      unit: inSavepoint(() => {
        for (const result of unit) storeResult(result, now);
      }),
    }));
    const outcomes = ops.map(({ id, op }) => ({ id, op: op.op, unit: inSavepoint(() => applyOp(op)) }));
    db.exec('COMMIT');
    const committed: (CommittedRequest & { jobId: number })[] = [];
    const failures: UnitFailure[] = [];
    for (const { id, unit } of jobs) {
      if (unit.ok) committed.push({ jobId: id, ...unit.value });
      else failures.push({ kind: 'job', id, message: unit.error });
    }
    const resultIds: number[] = [];
    for (const { id, unit } of stored) {
      if (unit.ok) resultIds.push(id);
      else failures.push({ kind: 'results', id, message: unit.error });
    }
    if (committed.length > 0) send({ kind: 'committed', results: committed });
    if (resultIds.length > 0) send({ kind: 'results-committed', ids: resultIds });
    for (const { id, op, unit } of outcomes) {
      if (unit.ok) send({ kind: 'written', id, outcome: unit.value });
      else failures.push({ kind: 'op', id, op, message: unit.error });
    }
    if (failures.length > 0) send({ kind: 'failed', failures });
  } catch (error) {
    // The transaction itself failed: nothing of the group was stored.
    if (db.isTransaction) db.exec('ROLLBACK');
    const message = (error as Error).message;
    send({
      kind: 'failed',
      failures: [
        ...batch.map(({ job }): UnitFailure => ({ kind: 'job', id: job.id, message })),
        ...results.map(({ id }): UnitFailure => ({ kind: 'results', id, message })),
        ...ops.map(({ id, op }): UnitFailure => ({ kind: 'op', id, op: op.op, message })),
      ],
    });
  }
}

function schedule(): void {
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}

port.on('message', (message: ToIngestWorker) => {
  switch (message.kind) {
    case 'sources':
      writeKeys = new Map(message.writeKeys);
      return;
    case 'routes':
      routes = new Map(message.routes.map((route) => [route.sourceId, route.destinationIds]));
      return;
    case 'results':
      pendingResults.push({ id: message.id, results: fromColumns(message.columns) });
      schedule();
      return;
    case 'autocheckpoint':
      checkpointAutomatically(db);
      return;
    case 'bodies': {
      // Read between group commits, so what is committed; a body that cannot be built is null and
      // the engine builds (or fails) that delivery itself.
      let prepared;
      try {
        prepared = prepareBodies(message);
      } catch (error) {
        console.error(`sluice: could not prepare webhook bodies: ${(error as Error).message}`);
        const none = message.messageIds.map(() => null);
        prepared = { bodies: none, signatures: none };
      }
      send({ kind: 'bodies', id: message.id, ...prepared });
      return;
    }
    case 'write':
      pendingOps.push({ id: message.id, op: message.op });
      schedule();
      return;
    case 'close':
      flush();
      db.close();
      send({ kind: 'closed' });
      return;
    case 'job': {
      const { job } = message;
      try {
        pending.push({ job, prepared: prepareRequest(job, (key) => writeKeys.get(key)) });
      } catch (error) {
        // A request that trips a bug is answered 500 (the client may retry); the worker lives on.
        const refusal =
          error instanceof IngestError
            ? error
            : new IngestError(500, 'internal_error', `Sluice could not process the request: ${(error as Error).message}`);
        send({ kind: 'refused', jobId: job.id, status: refusal.status, code: refusal.code, message: refusal.message });
        return;
      }
      pendingRows += pending.at(-1)!.prepared.messages.length;
      // Commit in slices under load, so the first requests are answered (and their clients send
      // more) while later ones are still being parsed; otherwise commit when the queue is drained.
      if (pendingRows >= FLUSH_ROWS) flush();
      else schedule();
    }
  }
});
