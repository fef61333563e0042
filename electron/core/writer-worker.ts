// The store's writer: the one thread that writes messages, deliveries, attempts, deletion requests
// and audience changes (settings — sources, destinations — are the exception: see the README). It is
// the main thread's StoreWriter's worker (writer/store-writer.ts, protocol in writer/protocol.ts).
//
// Ingestion requests are parsed and validated here too (ingest/prepare-request.ts), off the thread
// that serves HTTP. Requests that arrive while a transaction runs are committed together in the next
// one (group commit), and each is answered only once its transaction is durable. Each accepted
// message's deliveries are created in the message's own transaction (nothing stored is ever left
// without them). The delivery engine's results and other writes are group-committed the same way;
// when they wait beside requests, the requests commit first in a transaction of their own
// (writer/commit-groups.ts), so that their answers do not wait for the rest.
// Each unit of a group (an ingestion request, one commitResults call, one write op) runs in its own
// savepoint: a unit that fails is undone and rejected alone, with its own error, and the others
// still commit. Only a failure of the transaction itself (BEGIN, COMMIT, I/O) fails its whole group.
// The SQL is the store's (store/*-writes.ts, delivery-results.ts, and the audience writer); this file
// is the thread: its messages, the group commit and the savepoints.
import { parentPort, workerData } from 'node:worker_threads';
import { AudienceWriter } from './audiences/audience-writer.ts';
import { bodiesPreparer } from './delivery/prepare-bodies.ts';
import { IngestError } from './ingest/ingest-error.ts';
import { prepareRequest } from './ingest/prepare-request.ts';
import { prepareRefused, refusedPreview } from './ingest/refused-requests.ts';
import { originAllowed, originRefused } from './ingest/browser-support.ts';
import { checkpointAutomatically, connect } from './store/connection.ts';
import { deletionWrites } from './store/deletion-writes.ts';
import { storeResetter } from './store/reset-writes.ts';
import { deliveryHours } from './store/delivery-hours.ts';
import { deliveryResultRecorder } from './store/delivery-results.ts';
import { deliveryWrites } from './store/delivery-writes.ts';
import type { DeliveryResult } from './store/delivery-types.ts';
import { requestStorer } from './store/request-writes.ts';
import type { CommittedRequest, PreparedRequest } from './store/stored-request.ts';
import type { FromWriter, IngestJob, ToWriter, UnitFailure, WriteOp, WriteOutcome, WriterSetup } from './writer/protocol.ts';
import { fromColumns } from './writer/result-columns.ts';
import { PlanChecks } from './plans/plan-checks.ts';
import { rechecker } from './plans/recheck-writes.ts';
import { pruneWrites } from './retention/prune-writes.ts';
import { indexMerger, searchIndexer } from './store/search-index.ts';
import { commitGroups } from './writer/commit-groups.ts';
import { IndexScheduler, restAfter } from './writer/index-scheduler.ts';
import { claimToOpen, passGate } from './worker-options.ts';

const port = parentPort!;
// What arrives before the thread has loaded waits here, in order (handled from `ready` on). A spare
// thread (store-writer.ts: sluice/testing keeps one loaded for its next relay) is told what to open
// in the first message, once taken.
let deliver: ((message: ToWriter) => void) | undefined;
const early: ToWriter[] = [];
let opened: ((setup: WriterSetup) => void) | undefined;
port.on('message', (message: ToWriter) => {
  if (message.kind === 'open') opened?.(message.setup);
  else if (deliver) deliver(message);
  else early.push(message);
});
const { file, searchIndex, durable, gate, claim } = (workerData as { spare?: true }).spare
  ? await new Promise<WriterSetup>((resolve) => (opened = resolve))
  : (workerData as WriterSetup);
// The code is loaded. Unless the main thread's close() gave up on this thread meanwhile (it ends
// without opening the store), it opens the store and prepares its statements.
passGate(gate);
if (!claimToOpen(claim)) process.exit(0);
const db = connect(file, 'writer', { durable });
/** The overview's counts of the deliveries the group makes: written once per key before it commits. */
const hours = deliveryHours(db);
const storeRequest = requestStorer(db, hours);
const storeResults = deliveryResultRecorder(db);
const deliveries = deliveryWrites(db);
const deletions = deletionWrites(db);
const resetStore = storeResetter(db);
const audiences = new AudienceWriter(db);
const prepareBodies = bodiesPreparer(db);
const plans = new PlanChecks();
const recheck = rechecker(db, plans);
const pruning = pruneWrites(db);
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

let writeKeys = new Map<string, { sourceId: number; allowedOrigins: string[] | null }>();
/** The source of a write key found in a body; a browser page (origin) the source does not accept is refused. */
function sourceForKey(writeKey: string, origin: string | undefined): number | undefined {
  const source = writeKeys.get(writeKey);
  if (source && !originAllowed(source.allowedOrigins, origin)) throw originRefused(origin!);
  return source?.sourceId;
}
/** sourceId → the enabled destinations connected to it. */
let routes = new Map<number, number[]>();
/** Destinations that forward to a Tracking API (Route.forwardIds): never skipped for a message's integrations. */
let forwarding: ReadonlySet<number> = new Set();
let pending: { job: IngestJob; prepared: PreparedRequest }[] = [];
let pendingResults: { id: number; results: DeliveryResult[] }[] = [];
let pendingOps: { id: number; op: WriteOp }[] = [];
let pendingRows = 0;
let scheduled = false;
const FLUSH_ROWS = 1000;
const mergeIndexes = indexMerger(db);
/**
 * When the next slice of a merge of the search indexes is due (0: none under way). Indexing waits
 * meanwhile — a new segment would start the merge over — unless the merge's slices stop coming
 * (whoever asked for them failed): then it goes on MERGE_IDLE_MS after.
 */
let mergeDue = 0;
const MERGE_IDLE_MS = 10_000;
const merging = () => mergeDue > 0 && performance.now() - mergeDue < MERGE_IDLE_MS;
/** When a group commit last stored ingested messages. */
let lastIngest = -Infinity;
/** Indexing for search runs between group commits (writer/index-scheduler.ts); null when turned off. */
const indexer = searchIndex ? new IndexScheduler(searchIndexer(db), () => scheduled || merging()) : null;
indexer?.backlog(); // what an earlier run left unindexed, or a store from before the index

function send(message: FromWriter): void {
  port.postMessage(message);
}

function applyOp(op: WriteOp): WriteOutcome {
  switch (op.op) {
    case 'createDeliveries': {
      const { ids, goneMessageIds } = deliveries.create(op.deliveries, op.now, null);
      return { ids, changed: 0, ...(goneMessageIds.length > 0 ? { goneMessageIds } : {}) };
    }
    case 'retryNow':
      return { ids: [], changed: deliveries.retryNow(op.deliveryIds, op.now, op.reopenFailed === true) };
    case 'cancel':
      return { ids: [], changed: deliveries.cancel(op.deliveryIds, op.now) };
    case 'deletionRequest': {
      const deletionRequestId = deletions.record(op.userId, op.now, op.purge, op.sourceIds);
      const { ids } = deliveries.create(op.deliveries, op.now, deletionRequestId); // delete notifications: no message
      let purged = 0;
      if (op.purge) {
        for (const sourceId of op.sourceIds) {
          purged += deletions.purgeUser(op.userId, sourceId);
          audiences.forgetPurgedUser(sourceId, op.userId);
        }
        deletions.notePurged(purged, deletionRequestId);
      }
      if (purged === 0) return { ids, changed: purged, deletionRequestId };
      const { topId } = db.prepare('SELECT coalesce(max(id), 0) AS topId FROM messages').get() as { topId: number };
      return { ids, changed: purged, deletionRequestId, topId };
    }
    case 'reset':
      return { ids: [], changed: resetStore() };
    case 'prune': {
      const removed = pruning.prune(op.afterId, op.upToId, op.limit);
      return { ids: [], changed: removed.messages, removed };
    }
    case 'removeMessages': {
      const removed = pruning.remove(op.ids);
      return { ids: [], changed: removed.messages, removed: { ...removed, lastId: 0, keptPending: 0 } };
    }
    case 'pin':
      return { ids: [], changed: pruning.pin(op.ids, op.pinned) };
    case 'vacuum':
      return { ids: [], changed: 0, free: pruning.vacuum(op.pages) };
    case 'mergeIndexes': {
      mergeDue = 0; // a slice that fails does not hold indexing back
      const started = performance.now();
      const more = mergeIndexes(op.pages);
      // While messages arrive, a merge rests as indexing does: a slice of a mostly removed index reads
      // far more than the pages it writes (measured: 140 ms a slice, ingestion at 0.08× without rests).
      const now = performance.now();
      const restMs = more ? restAfter(started, now, lastIngest) : 0;
      if (more) mergeDue = now + restMs;
      return { ids: [], changed: 0, more, restMs };
    }
    case 'recheck': {
      const { lastId, read, changed } = recheck(op.afterId, op.untilId, op.limit);
      return { ids: [lastId, read], changed };
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
  for (const group of commitGroups({ requests: batch, results, ops })) commitGroup(group.requests, group.results, group.ops);
}

/** One group commit: the requests, then the results, then the other writes, each unit in a savepoint. */
function commitGroup(batch: typeof pending, results: typeof pendingResults, ops: typeof pendingOps): void {
  try {
    db.exec('BEGIN IMMEDIATE');
    const jobs = batch.map(({ job, prepared }) => {
      const unit = inSavepoint(() => storeRequest(prepared, routes.get(prepared.sourceId), forwarding));
      hours.endUnit(unit.ok);
      return { id: job.id, prepared, unit };
    });
    const now = Date.now();
    // A unit rolled back to its savepoint takes the header sets it stored with it: forgotten at once, so
    // that no later unit of the group uses an id SQLite may give another set.
    const stored = results.map(({ id, results: unit }) => {
      const done = inSavepoint(() => storeResults.record(unit, now));
      if (!done.ok) storeResults.forget();
      return { id, unit: done };
    });
    const outcomes = ops.map(({ id, op }) => ({ id, op: op.op, unit: inSavepoint(() => applyOp(op)) }));
    if (ops.length > 0) prepareBodies.forget(); // a purge, a recheck, a reset: messages read for bodies may have changed
    hours.write();
    db.exec('COMMIT');
    if (batch.length > 0) lastIngest = performance.now();
    const committed: (CommittedRequest & { jobId: number })[] = [];
    const failures: UnitFailure[] = [];
    // The messages stored, for the indexer: the requests', and an audience sync's (the only other write that stores any);
    // and those removed (a prune, a removal, a purge), whose 'delete' entries are a new segment of each index too.
    let messagesStored = 0;
    let messagesRemoved = 0;
    for (const { op, unit } of outcomes) {
      if (!unit.ok) continue;
      if (unit.value.audience?.op === 'audience.sync') messagesStored += unit.value.audience.sync?.messageIds.length ?? 0;
      if (op === 'prune' || op === 'removeMessages' || op === 'deletionRequest') messagesRemoved += unit.value.changed;
    }
    for (const { id, unit } of jobs) {
      if (!unit.ok) {
        failures.push({ kind: 'job', id, message: unit.error });
        continue;
      }
      committed.push({ jobId: id, ...unit.value });
      messagesStored += unit.value.ids.length + (unit.value.generatedIds?.length ?? 0);
    }
    indexer?.committed(messagesStored, messagesRemoved);
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
    // The stored messages' bodies are asked for next: remembered once the requests are answered (the answers
    // wait for nothing more), before the next message is handled. Not after other writes in the same
    // transaction (a purge, a reset). Remembering cannot fail the group, which is committed and answered.
    if (ops.length === 0) {
      try {
        for (const { prepared, unit } of jobs) if (unit.ok) prepareBodies.remember(prepared, unit.value);
      } catch {
        prepareBodies.forget(); // their bodies read them back instead
      }
    }
  } catch (error) {
    // The transaction itself failed: nothing of the group was stored.
    if (db.isTransaction) db.exec('ROLLBACK');
    storeResults.forget();
    hours.drop();
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

/**
 * Messages held while the plan checker (compile-plan.ts, with ajv) loads: the first plan's arrival
 * waits for it, and every message after it — a request to check, above all — waits its turn, in order.
 */
let held: ToWriter[] | null = null;
let compile: typeof import('./plans/compile-plan.ts').compilePlan | undefined;

deliver = (message: ToWriter) => {
  if (held) held.push(message);
  else handle(message);
};
for (const message of early.splice(0)) deliver(message);

function handle(message: ToWriter): void {
  switch (message.kind) {
    case 'open':
      return;
    case 'sources':
      writeKeys = new Map(message.writeKeys.map(([key, sourceId, allowedOrigins]) => [key, { sourceId, allowedOrigins: allowedOrigins ?? null }]));
      return;
    case 'routes':
      routes = new Map(message.routes.map((route) => [route.sourceId, route.destinationIds]));
      forwarding = new Set(message.routes.flatMap((route) => route.forwardIds ?? []));
      return;
    case 'plans':
      if (compile || message.plans.length === 0) {
        plans.set(message.plans, compile);
        return;
      }
      held = [];
      void import('./plans/compile-plan.ts').then(
        (loaded) => (compile = loaded.compilePlan),
        (error: unknown) => console.error(`sluice: the tracking plan checker did not load, plans are not checked: ${(error as Error).message}`),
      ).finally(() => {
        plans.set(message.plans, compile);
        const waiting = held!;
        held = null;
        for (const next of waiting) handle(next);
      });
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
        prepared = prepareBodies.prepare(message);
      } catch (error) {
        console.error(`sluice: could not prepare webhook bodies: ${(error as Error).message}`);
        const none = message.messageIds.map(() => null);
        prepared = { bodies: none, signatures: none, vias: none };
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
      indexer?.stop();
      db.close();
      send({ kind: 'closed' });
      return;
    case 'job': {
      const { job } = message;
      try {
        const prepared = job.refused ? prepareRefused({ ...job, refused: job.refused }) : prepareRequest(job, (key) => sourceForKey(key, job.origin), plans);
        pending.push({ job, prepared });
      } catch (error) {
        // A request that trips a bug is answered 500 (the client may retry); the worker lives on.
        const refusal =
          error instanceof IngestError
            ? error
            : new IngestError(500, 'internal_error', `Sluice could not process the request: ${(error as Error).message}`);
        send({ kind: 'refused', jobId: job.id, status: refusal.status, code: refusal.code, message: refusal.message, preview: refusedPreview(job.body), ...(refusal.jsonError ? { jsonError: refusal.jsonError } : {}) });
        return;
      }
      pendingRows += pending.at(-1)!.prepared.messages.length;
      // Commit in slices under load, so the first requests are answered (and their clients send
      // more) while later ones are still being parsed; otherwise commit when the queue is drained.
      if (pendingRows >= FLUSH_ROWS) flush();
      else schedule();
    }
  }
}

// Loaded: what the main thread sends is handled from now on (before this, its close() may cancel the thread).
send({ kind: 'ready' });
