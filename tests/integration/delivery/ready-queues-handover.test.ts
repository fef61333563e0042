// The ready queues' hand-over of a commit's new deliveries (ReadyQueues.added with CommittedRequest.due),
// over a real migrated SQLite store and the real due-row reads (DeliveriesRepo). The cases a review found:
// a read between the commit and its answer already holds the delivery (queued or in flight) — it must not
// be queued twice, or it is sent twice at once; and a delivery not due yet (the clock went back) is left
// to a read at its time; and a delivery being cancelled is not read back into the queue before its cancel
// is written. The body prefetch's writer answers "build it yourself" (null), as a closed one does.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyPrefetch } from '../../../electron/core/delivery/body-prefetch.ts';
import { dueByDestination, ReadyQueues } from '../../../electron/core/delivery/ready-queues.ts';
import { openDatabase } from '../../../electron/core/store/database.ts';
import { DeliveriesRepo, type DueDelivery } from '../../../electron/core/store/deliveries-repo.ts';
import { DestinationsRepo } from '../../../electron/core/store/destinations-repo.ts';
import { SourcesRepo } from '../../../electron/core/store/sources-repo.ts';
import type { CommittedRequest } from '../../../electron/core/store/stored-request.ts';
import { tempDir } from '../../helpers/core.ts';

const T = Date.parse('2026-11-29T10:00:00.000Z');
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});

function store() {
  const dir = tempDir();
  const db = openDatabase(dir);
  cleanup.push(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  db.exec(`INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'web', 'wk_web', 'web', 0);
    INSERT INTO destinations (id, name, enabled, settings, created_at, updated_at) VALUES (1, 'hooks', 1, '{"webhooks":[{"url":"http://127.0.0.1:9/hook","headers":{}}],"options":{"bodyShape":"seed","concurrency":4}}', 0, 0);
    INSERT INTO requests (id, source_id, endpoint, received_at) VALUES (1, 1, 'track', ${T});`);
  const destination = new DestinationsRepo(db, new SourcesRepo(db)).byId(1)!;
  const inFlight = new Set<number>();
  const queues = new ReadyQueues(new DeliveriesRepo(db), new BodyPrefetch({ prepareBodies: async () => null }), {
    has: (id) => inFlight.has(id),
    of: () => inFlight.size,
  });
  /** A message and its pending delivery, due at `at`, as ingestion stores them; the commit's answer for it. */
  const ingest = (at: number): CommittedRequest => {
    const message = Number(db.prepare(`INSERT INTO messages (request_id, source_id, type, event, received_at, raw, status, origin) VALUES (1, 1, 'track', 'E', ?, '{}', 'accepted', 'ingest')`).run(at).lastInsertRowid);
    const delivery = Number(db.prepare(`INSERT INTO deliveries (message_id, destination_id, trigger, status, next_attempt_at, created_at, updated_at) VALUES (?, 1, 'automatic', 'pending', ?, ?, ?)`).run(message, at, at, at).lastInsertRowid);
    return { requestId: 1, sourceId: 1, receivedAt: at, ids: Float64Array.of(message), statuses: Uint8Array.of(0), rejected: [], deliveries: 1, due: Float64Array.of(delivery, message, 1) };
  };
  const handOver = (committed: CommittedRequest, now: number) => queues.added(dueByDestination([committed]), () => destination, now);
  /** Every delivery the queue gives, in order, until it has none: started, so in flight (due in the store until a result). */
  const takeAll = (): DueDelivery[] => {
    const out: DueDelivery[] = [];
    for (let d = queues.take(1); d; d = queues.take(1)) (out.push(d), inFlight.add(d.id));
    return out;
  };
  return { db, destination, queues, inFlight, ingest, handOver, takeAll };
}

describe('ready queues: a commit’s new deliveries handed over', () => {
  it('are queued without a read when the queue holds every due delivery, once each', () => {
    const { destination, queues, ingest, handOver, takeAll } = store();
    queues.refillIfLow(destination, T); // nothing due: the queue holds every due delivery (none)
    const a = ingest(T);
    const b = ingest(T + 1);
    handOver(a, T);
    handOver(b, T + 1);
    expect(takeAll().map((d) => d.id)).toEqual([a.due![0], b.due![0]]);
    // A read now finds nothing new: the cursor moved past both.
    queues.refillIfLow(destination, T + 2);
    expect(takeAll()).toEqual([]);
  });

  it('one a read already returned (queued, or taken and in flight) before the commit’s answer is not queued again', () => {
    const { destination, queues, inFlight, ingest, handOver, takeAll } = store();
    queues.refillIfLow(destination, T);
    // Committed, then read by a pump before the main thread had the commit's answer: queued by the read.
    const a = ingest(T);
    queues.forgetReads(); // (a kick: the next pump reads)
    queues.refillIfLow(destination, T);
    handOver(a, T);
    expect(takeAll().map((d) => d.id)).toEqual([a.due![0]]);
    // The same, but the read's pump also started it: in flight when the answer comes.
    const b = ingest(T + 1);
    queues.forgetReads();
    queues.refillIfLow(destination, T + 1);
    const started = queues.take(1)!;
    expect(started.id).toBe(b.due![0]);
    inFlight.add(started.id);
    handOver(b, T + 1);
    expect(takeAll()).toEqual([]);
  });

  it('one not due yet (the clock went back since it was received) waits for a read at its time', () => {
    const { destination, queues, ingest, handOver, takeAll } = store();
    queues.refillIfLow(destination, T);
    const later = ingest(T + 60_000);
    handOver(later, T); // the engine's clock says T: not due
    expect(takeAll()).toEqual([]);
    queues.refillIfLow(destination, T + 60_000);
    expect(takeAll().map((d) => d.id)).toEqual([later.due![0]]);
  });

  it('one being cancelled is not queued again by a read until its cancel is written or failed', () => {
    const { db, destination, queues, ingest, takeAll } = store();
    const a = ingest(T);
    const b = ingest(T + 1);
    queues.refillIfLow(destination, T + 2);
    // Cancelling b: out of the queue while its cancel is written, and still pending in the store.
    queues.forget([b.due![0]!]);
    // Something forgot the cursors meanwhile (a kick): the next read returns b again.
    queues.forgetReads();
    queues.refillIfLow(destination, T + 2);
    expect(takeAll().map((d) => d.id)).toEqual([a.due![0]]);
    // The cancel failed: b is due as any row, and a read queues it.
    queues.settled([b.due![0]!]);
    queues.forgetReads();
    queues.refillIfLow(destination, T + 2);
    expect(takeAll().map((d) => d.id)).toEqual([b.due![0]]);
    expect(db.prepare('SELECT status FROM deliveries WHERE id = ?').get(b.due![0]!)).toEqual({ status: 'pending' });
  });
});
