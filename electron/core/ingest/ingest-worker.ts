// The ingest worker: parses, validates and stores requests off the request thread. Requests that
// arrive while a transaction runs are committed together in the next one (group commit), and each
// is answered only once its transaction is durable. The request thread is left with HTTP alone, so
// it stays responsive for the UI and delivery work that share it.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { IngestError } from './ingest-error.ts';
import type { CommittedRequest, FromIngestWorker, RejectedEntry, ToIngestWorker } from './ingest-protocol.ts';
import { prepareRequest, type IngestJob, type PreparedRequest } from './prepare-request.ts';

const { file } = workerData as { file: string };
const port = parentPort!;
const db = new DatabaseSync(file);
db.exec('PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; PRAGMA busy_timeout = 5000;');

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

let writeKeys = new Map<string, number>();
let pending: { job: IngestJob; prepared: PreparedRequest }[] = [];
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
  for (let i = 0; i < n; i++) {
    const m = prepared.messages[i]!;
    if (m.status === 'accepted') {
      const result = insertAccepted.run(
        requestId, sourceId, m.messageId, m.type, m.userId, m.anonymousId, m.event, receivedAt, m.timestamp, m.raw,
      );
      if (result.changes === 1) {
        ids[i] = Number(result.lastInsertRowid);
        continue; // status 0: accepted
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
  return { requestId, sourceId, receivedAt, ids, statuses, rejected };
}

function flush(): void {
  scheduled = false;
  const batch = pending;
  pending = [];
  pendingRows = 0;
  if (batch.length === 0) return;
  try {
    db.exec('BEGIN IMMEDIATE');
    const results = batch.map(({ job, prepared }) => ({ jobId: job.id, ...store(prepared) }));
    db.exec('COMMIT');
    send({ kind: 'committed', results });
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    send({ kind: 'failed', jobIds: batch.map(({ job }) => job.id), message: (error as Error).message });
  }
}

port.on('message', (message: ToIngestWorker) => {
  switch (message.kind) {
    case 'sources':
      writeKeys = new Map(message.writeKeys);
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
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    }
  }
});
