// `npm run bench -- write-cost`: what the store's writes cost per event, on one thread, apart from
// everything else Sluice does. An event here is one message to one source with a webhook and two
// forwards, as in the latency benchmark: its ingestion (the request, the message, three deliveries) and
// its three results (the webhook's delivery and attempt, each forward's share of a request that carried
// the whole group). Two writers do the same events: Sluice's own code on a Sluice store (the schema
// floor's, latency-floor-schema.ts: request-writes.ts and delivery-results.ts, every index and trigger
// of the migrations) and the recording floor's (latency-floor-record.ts: the least a relay that records
// its deliveries must write). Each writes in commits of 1, 4, 16 and 64 events (the ingestion commit,
// then one commit of the group's results), as a writer does at a low rate (a commit per request) and
// under load (group commits). CPU time of this thread per event, 3 interleaved rounds, the median.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { DeliveryResult, SharedRequest } from '../../electron/core/store/delivery-types.ts';
import { headersByReference } from '../../electron/core/store/attempt-headers.ts';
import { recordingTables, type Answer } from './latency-floor-record.ts';
import { schemaStore } from './latency-floor-schema.ts';

const EVENTS = Number(process.env.BENCH_WRITE_COST_EVENTS ?? 4_000);
const SIZES = [1, 4, 16, 64];
const ROUNDS = 3;

/** This thread's CPU time (not the process's: garbage collection helpers and the thread pool apart). */
const cpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

/** The n-th event: a track as the latency benchmark's load sends, its JSON ~450 bytes. */
function event(n: number) {
  const e = {
    type: 'track',
    event: 'Order Completed',
    userId: `user_${n % 5_000}`,
    anonymousId: `anon_${n}`,
    messageId: `wc-${n}-${Math.random().toString(36).slice(2, 10)}`,
    timestamp: new Date().toISOString(),
    properties: { orderId: `o_${n}`, revenue: (n % 997) + 0.99, currency: 'USD', products: [{ sku: `sku_${n % 50}`, price: 10, quantity: 2 }] },
    context: { library: { name: 'analytics-node', version: '3.1.0' }, ip: '127.0.0.1' },
  };
  return { event: e as Record<string, unknown>, json: JSON.stringify(e) };
}

const RESPONSE_HEADERS = JSON.stringify({ 'content-type': 'application/json', date: 'Sun, 29 Nov 2026 12:00:00 GMT', 'content-length': '2' });
const HOOK_HEADERS = (n: number, body: string) => ({
  'Content-Type': 'application/json',
  'User-Agent': 'Sluice/0.1.0',
  'webhook-id': `msg_${n}`,
  'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
  'webhook-signature': `v1,${Buffer.from(body.slice(0, 32)).toString('base64')}`,
  'X-Signature': `sha256=${n.toString(16).padStart(64, '0')}`,
});

/** The run's events in commits of `size`: the first one's number, the events, the time they arrive. */
function* groups(size: number) {
  for (let n = 0; n < EVENTS; n += size) {
    yield { n, group: Array.from({ length: Math.min(size, EVENTS - n) }, (_, i) => event(n + i)), now: Date.now() };
  }
}

interface Cost {
  ingestMicrosPerEvent: number;
  resultsMicrosPerEvent: number;
  totalMicrosPerEvent: number;
  /** Pages the commits wrote to the WAL (no checkpoint runs meanwhile: the file only grows), per event. */
  walPagesPerEvent: number;
  /** What the events add to the store, checkpointed (pages in use × page size, less the empty store's), per event. */
  storeBytesPerEvent: number;
}

/** The bytes a store's pages take, once its WAL is checkpointed into it (outside any timing). */
function storeBytes(db: DatabaseSync): number {
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const one = (sql: string) => Object.values(db.prepare(sql).get() as object)[0] as number;
  return (one('PRAGMA page_count') - one('PRAGMA freelist_count')) * one('PRAGMA page_size');
}

/** The WAL's frames: its size past the header, over a frame's size (a page and its 24-byte header). */
function walFrames(dbFile: string): number {
  try {
    return Math.max(0, (fs.statSync(`${dbFile}-wal`).size - 32) / (4096 + 24));
  } catch {
    return 0;
  }
}

/**
 * Sluice's writes. `bodies`: each round's body by reference to its message, as Sluice records a body the
 * builder made of it (store/delivery-bodies.ts, migration 27), or whole on its delivery, as every body was
 * before (and still is after a filter, a transform or an edit): what recording them by reference saves.
 */
function sluiceWrites(dir: string, size: number, bodies: 'reference' | 'whole' = 'reference'): Cost {
  const store = schemaStore(dir);
  const file = path.join(dir, 'sluice.db');
  const bytesBefore = storeBytes(store.db);
  const framesBefore = walFrames(file);
  let ingest = 0;
  let results = 0;
  try {
    for (const { n, group, now } of groups(size)) {
      let t = cpuMs();
      const rows = store.storeRows(group.map((g) => ({ events: [g.event], jsons: [g.json] })), now);
      ingest += cpuMs() - t;
      // The delivery ids, read back outside the timing: Sluice's writer does not read them.
      const stored = rows.map((r) => ({ deliveries: store.deliveriesOf(r) }));
      t = cpuMs();
      const common = { status: 'delivered' as const, attemptCount: 1, firstAttemptAt: now, nextAttemptAt: null, deadlineAt: now + 4 * 3_600_000, lastError: null };
      const answer = { startedAt: now, durationMs: 1.2, responseStatus: 200, responseHeaders: RESPONSE_HEADERS, responseBody: '{}', errorCode: null, errorMessage: null };
      const forwards: SharedRequest[] = ['fwd0', 'fwd1'].map((kind) => ({ ...answer, url: `http://127.0.0.1:9/${kind}/v1/batch`, requestHeaders: '{"content-type":"application/json","authorization":"Basic d2tfdXA6"}', responseBody: '{"success":true}' }));
      const out: DeliveryResult[] = [];
      stored.forEach(({ deliveries }, i) => {
        const [hook, fwd0, fwd1] = deliveries[0]!;
        const body = `{"version":1,${group[i]!.json.slice(1)}`;
        const headers = HOOK_HEADERS(n + i, body);
        const { headerSet, own } = headersByReference(headers, headers['X-Signature']);
        const recorded = (shape: 'seed' | 'forward', whole: string) => (bodies === 'reference' ? { body: null, bodyShape: shape } : { body: whole });
        out.push({ ...common, deliveryId: hook!, ...recorded('seed', body), signature: headers['X-Signature'], attempts: [{ ...answer, url: 'http://127.0.0.1:9/hook', requestHeaders: own, headerSet, outcome: 'success', retryAt: null }] });
        [fwd0, fwd1].forEach((deliveryId, f) => out.push({ ...common, deliveryId: deliveryId!, ...recorded('forward', group[i]!.json), signature: null, attempts: [{ ...forwards[f]!, outcome: 'success', retryAt: null, carriedBy: forwards[f] }] }));
      });
      store.recordResults(out);
      results += cpuMs() - t;
    }
    const frames = walFrames(file) - framesBefore;
    return cost(ingest, results, frames, storeBytes(store.db) - bytesBefore);
  } finally {
    store.db.close();
  }
}

function floorWrites(dir: string, size: number): Cost {
  fs.mkdirSync(dir, { recursive: true });
  const db = new DatabaseSync(path.join(dir, 'floor.db'));
  // No automatic checkpoints, as Sluice's writer (its checkpoints run on a thread of their own): both
  // measure their writes alone, and their WAL only grows, so its frames count the pages written.
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;
    CREATE TABLE messages (id INTEGER PRIMARY KEY, message_id TEXT, type TEXT, user_id TEXT, event TEXT, received_at INTEGER, json TEXT);
    CREATE INDEX messages_message_id ON messages (message_id);`);
  const insert = db.prepare('INSERT INTO messages (message_id, type, user_id, event, received_at, json) VALUES (?, ?, ?, ?, ?, ?)');
  const { insertDelivery, writeAnswers } = recordingTables(db);
  const bytesBefore = storeBytes(db);
  const framesBefore = walFrames(path.join(dir, 'floor.db'));
  let ingest = 0;
  let results = 0;
  try {
    for (const { n, group, now } of groups(size)) {
      let t = cpuMs();
      db.exec('BEGIN');
      const deliveries = group.map(({ event: e, json }) => {
        const row = insert.run(String(e.messageId), 'track', String(e.userId), String(e.event), now, json).lastInsertRowid;
        return ['hook', 'fwd0', 'fwd1'].map((d) => Number(insertDelivery.run(row, d, now).lastInsertRowid));
      });
      db.exec('COMMIT');
      ingest += cpuMs() - t;
      t = cpuMs();
      const answer = { startedAt: now, durationMs: 1.2, status: 200, responseHeaders: RESPONSE_HEADERS, responseBody: '{}', error: null };
      const answers: Answer[] = group.map(({ json }, i) => {
        const body = `{"version":1,${json.slice(1)}`;
        return { ...answer, owner: deliveries[i]![0]!, deliveries: [deliveries[i]![0]!], url: 'http://127.0.0.1:9/hook', requestHeaders: JSON.stringify(HOOK_HEADERS(n + i, body)) };
      });
      for (const f of [1, 2]) answers.push({ ...answer, owner: null, deliveries: deliveries.map((d) => d[f]!), url: `http://127.0.0.1:9/fwd${f - 1}/v1/batch`, requestHeaders: '{"content-type":"application/json","authorization":"Basic d2tfdXA6"}', responseBody: '{"success":true}' });
      db.exec('BEGIN');
      writeAnswers(answers);
      db.exec('COMMIT');
      results += cpuMs() - t;
    }
    const frames = walFrames(path.join(dir, 'floor.db')) - framesBefore;
    return cost(ingest, results, frames, storeBytes(db) - bytesBefore);
  } finally {
    db.close();
  }
}

function cost(ingestMs: number, resultsMs: number, frames: number, bytes: number): Cost {
  const per = (ms: number) => Math.round((ms * 1000) / EVENTS);
  return {
    ingestMicrosPerEvent: per(ingestMs), resultsMicrosPerEvent: per(resultsMs), totalMicrosPerEvent: per(ingestMs + resultsMs),
    walPagesPerEvent: Math.round((frames / EVENTS) * 10) / 10, storeBytesPerEvent: Math.round(bytes / EVENTS),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function runWriteCostBench() {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-write-cost-'));
  console.log(`write cost: ${EVENTS.toLocaleString('en-US')} events (a message, a webhook and two forwards) per run, commits of ${SIZES.join(', ')} events, ${ROUNDS} interleaved rounds, CPU time per event`);
  try {
    const runs: Record<number, { sluice: Cost[]; floor: Cost[]; sluiceWhole: Cost[] }> = Object.fromEntries(SIZES.map((s) => [s, { sluice: [], floor: [], sluiceWhole: [] }]));
    const writers = [['floor', floorWrites], ['sluice', sluiceWrites], ['sluiceWhole', (dir: string, size: number) => sluiceWrites(dir, size, 'whole')]] as const;
    let run = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const size of SIZES) {
        // Rounds start with a different writer each, so none always runs first after the others' files.
        for (const [who, write] of [...writers.slice(round % 3), ...writers.slice(0, round % 3)]) {
          const runDir = path.join(dir, `${who}-${run}`);
          runs[size]![who].push(write(runDir, size));
          fs.rmSync(runDir, { recursive: true, force: true });
        }
        run++;
      }
    }
    const bySize = Object.fromEntries(SIZES.map((size) => {
      const pick = (costs: Cost[]) => ({
        ingestMicrosPerEvent: median(costs.map((c) => c.ingestMicrosPerEvent)),
        resultsMicrosPerEvent: median(costs.map((c) => c.resultsMicrosPerEvent)),
        totalMicrosPerEvent: median(costs.map((c) => c.totalMicrosPerEvent)),
        walPagesPerEvent: median(costs.map((c) => c.walPagesPerEvent)),
        storeBytesPerEvent: median(costs.map((c) => c.storeBytesPerEvent)),
      });
      const sluice = pick(runs[size]!.sluice);
      const floor = pick(runs[size]!.floor);
      const sluiceWhole = pick(runs[size]!.sluiceWhole);
      const ratio = Math.round((sluice.totalMicrosPerEvent / floor.totalMicrosPerEvent) * 100) / 100;
      const smaller = Math.round((1 - sluice.storeBytesPerEvent / sluiceWhole.storeBytesPerEvent) * 100);
      console.log(`  commits of ${String(size).padStart(2)}: Sluice's writes ${sluice.totalMicrosPerEvent} µs/event (ingest ${sluice.ingestMicrosPerEvent}, results ${sluice.resultsMicrosPerEvent}; ${sluice.walPagesPerEvent} WAL pages; ${sluice.storeBytesPerEvent} bytes stored); ` +
        `the recording floor's ${floor.totalMicrosPerEvent} (ingest ${floor.ingestMicrosPerEvent}, results ${floor.resultsMicrosPerEvent}; ${floor.walPagesPerEvent} pages; ${floor.storeBytesPerEvent} bytes); ${ratio}×; ` +
        `with bodies stored whole ${sluiceWhole.totalMicrosPerEvent} µs/event (results ${sluiceWhole.resultsMicrosPerEvent}; ${sluiceWhole.walPagesPerEvent} pages; ${sluiceWhole.storeBytesPerEvent} bytes: by reference ${smaller} % smaller)`);
      return [size, { sluice, floor, sluiceOverFloor: ratio, sluiceBodiesWhole: sluiceWhole, storeSmallerByReference: smaller / 100 }];
    }));
    const one = bySize[1]!.sluice.totalMicrosPerEvent;
    const most = bySize[SIZES.at(-1)!]!.sluice.totalMicrosPerEvent;
    console.log(`  Sluice's writes cost ${Math.round((one / most) * 10) / 10}× as much per event in commits of 1 as in commits of ${SIZES.at(-1)}`);
    return { events: EVENTS, rounds: ROUNDS, commitSizes: SIZES, bySize };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
