// The latency benchmark's floor: a bare Node server doing Sluice's fan-out plainly, in the benchmark's
// process as Sluice is. POST /v1/track and /v1/batch: one node:sqlite transaction (WAL,
// synchronous=NORMAL, as Sluice), answer 200, then per event: wake its waiters (a Map keyed by
// messageId), a signed POST to the webhook (undici, 32 connections), and the forwards — one
// {"batch":[…]} POST per request at once (flushMs 0), and a batch of up to 100 sent when full or when
// its oldest has waited 1,000 ms (the default flushMs). A wait (POST /wait, or waitFor in-process)
// answers from an indexed lookup by messageId, or is woken by the insert. No retries, no attempt
// records, no validation beyond JSON: what any relay must at least do. With `record: true`, the
// recording floor: it also records every delivery and attempt as latency-floor-record.ts says; with
// `record: 'schema'`, the schema floor: it writes what Sluice writes, with Sluice's code, into a Sluice
// store (latency-floor-schema.ts).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { Pool } from 'undici';
import { signBody } from '../../electron/core/signature/signature.ts';
import { deliveryRecorder } from './latency-floor-record.ts';
import { schemaStore } from './latency-floor-schema.ts';

export interface Floor {
  url: string;
  stored(): number;
  /** Resolves with the stored message once one with this messageId is stored; null after `timeoutMs`. */
  waitFor(messageId: string, timeoutMs: number): Promise<unknown | null>;
  /** Deliveries not yet settled (the recording floor's; 0 for the plain floor, which keeps none). */
  backlog(): number;
  /** Attempts without a 2xx answer (the recording floor's; null for the plain floor). */
  failedAttempts(): number | null;
  close(): Promise<void>;
}

const FLUSH_MS = 1_000;
const BATCH = 100;

function readAll(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A floor whose store holds `prefill` messages, fanning out to `receiverUrl`'s /hook, /fwd0 and /fwd1;
 * with `record`, recording every delivery and attempt too (the recording floor).
 */
export async function startFloor(dir: string, receiverUrl: string, secret: string, prefill: number, options: { record?: boolean | 'schema'; fanOut?: boolean } = {}): Promise<Floor> {
  fs.mkdirSync(dir, { recursive: true });
  const schema = options.record === 'schema' ? schemaStore(path.join(dir, 'sluice')) : null;
  if (schema && prefill > 1_000) throw new Error('the schema floor is measured at the small store only (its prefill would take Sluice\'s write path a million times)');
  const db = new DatabaseSync(path.join(dir, 'floor.db'));
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
    CREATE TABLE messages (id INTEGER PRIMARY KEY, message_id TEXT, type TEXT, user_id TEXT, event TEXT, received_at INTEGER, json TEXT);
    CREATE INDEX messages_message_id ON messages (message_id);`);
  const insert = db.prepare('INSERT INTO messages (message_id, type, user_id, event, received_at, json) VALUES (?, ?, ?, ?, ?, ?)');
  const lookup = db.prepare('SELECT json FROM messages WHERE message_id = ? LIMIT 1');
  const recorder = schema ?? (options.record ? deliveryRecorder(db) : null);
  if (schema) {
    // Stored as Sluice stores them, delivered long ago (their deliveries are no backlog).
    for (let n = 0; n < prefill; n++) {
      const event = { type: 'track', userId: `user_${n}`, event: 'Order Completed', messageId: `fill-${n}`, properties: { orderId: `o_${n}` } };
      schema.store([event], [JSON.stringify(event)], Date.now());
    }
    schema.db.exec("UPDATE deliveries SET status = 'delivered', attempt_count = 1 WHERE status = 'pending'");
  }
  db.exec('BEGIN');
  for (let n = 0; schema === null && n < prefill; n++) {
    const event = { type: 'track', userId: `user_${n % 100_000}`, event: 'Order Completed', messageId: `fill-${n}`, properties: { orderId: `o_${n}`, revenue: (n % 997) + 0.99, currency: 'USD' } };
    const row = insert.run(event.messageId, event.type, event.userId, event.event, Date.now(), JSON.stringify(event));
    recorder?.prefill(row.lastInsertRowid, n);
  }
  db.exec('COMMIT');

  const hooks = new Pool(receiverUrl, { connections: 32 });
  const forwards = new Pool(receiverUrl, { connections: 6 });
  const auth = `Basic ${Buffer.from('wk_up:').toString('base64')}`;
  const waiters = new Map<string, ((json: string) => void)[]>();
  // The recording floor's delivery ids ride along: `hook` the webhook delivery, `carried` a batch's.
  const postHook = (json: string, hook?: number) => {
    const body = JSON.stringify({ version: 1, ...(JSON.parse(json) as object) });
    const headers = { 'content-type': 'application/json', 'x-signature': signBody(body, secret) };
    if (recorder) return void recorder.post(hooks, receiverUrl, '/hook', headers, body, hook!, [hook!]);
    hooks
      .request({ path: '/hook', method: 'POST', headers, body })
      .then((res) => res.body.dump())
      .catch(() => {});
  };
  const postBatch = (kind: string, jsons: string[], carried: number[]) => {
    const headers = { 'content-type': 'application/json', authorization: auth };
    const body = `{"batch":[${jsons.join(',')}]}`;
    if (recorder) return recorder.post(forwards, receiverUrl, `/${kind}/v1/batch`, headers, body, null, carried);
    return forwards
      .request({ path: `/${kind}/v1/batch`, method: 'POST', headers, body })
      .then((res) => res.body.dump())
      .catch(() => {});
  };
  let buffered: string[] = [];
  let bufferedDeliveries: number[] = [];
  let flushTimer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    const batch = buffered;
    const carried = bufferedDeliveries;
    buffered = [];
    bufferedDeliveries = [];
    if (batch.length) void postBatch('fwd1', batch, carried);
  };

  /** Stores the events in one transaction: their JSON, and (recording) each one's delivery ids. */
  const store = (events: Record<string, unknown>[]): { jsons: string[]; deliveries: number[][] } => {
    const now = Date.now();
    const jsons = events.map((e) => JSON.stringify(e));
    if (schema) return { jsons, deliveries: schema.store(events, jsons, now).deliveries };
    const deliveries: number[][] = [];
    db.exec('BEGIN');
    events.forEach((e, i) => {
      const row = insert.run(String(e.messageId), String(e.type), String(e.userId ?? ''), String(e.event ?? ''), now, jsons[i]!);
      if (recorder) deliveries.push(recorder.deliveries(row.lastInsertRowid, now));
    });
    db.exec('COMMIT');
    return { jsons, deliveries };
  };
  const fanOut = (events: Record<string, unknown>[], { jsons, deliveries }: { jsons: string[]; deliveries: number[][] }) => {
    const of = (i: number, destination: number) => deliveries[i]?.[destination];
    events.forEach((e, i) => {
      const woken = waiters.get(String(e.messageId));
      if (woken) {
        waiters.delete(String(e.messageId));
        for (const wake of woken) wake(jsons[i]!);
      }
      if (options.fanOut !== false) postHook(jsons[i]!, of(i, 0));
    });
    if (options.fanOut === false) return; // the control: store and wake the waiters only
    for (let i = 0; i < jsons.length; i += BATCH) void postBatch('fwd0', jsons.slice(i, i + BATCH), recorder ? deliveries.slice(i, i + BATCH).map((d) => d[1]!) : []);
    jsons.forEach((json, i) => {
      buffered.push(json);
      if (recorder) bufferedDeliveries.push(of(i, 2)!);
      if (buffered.length >= BATCH) flush();
      else flushTimer ??= setTimeout(flush, FLUSH_MS);
    });
  };
  const waitFor = (messageId: string, timeoutMs: number): Promise<unknown | null> => {
    const found = schema ? { json: schema.lookup(messageId) } : (lookup.get(messageId) as { json: string } | undefined);
    if (found?.json !== undefined) return Promise.resolve(JSON.parse(found.json));
    return new Promise((resolve) => {
      const wake = (json: string) => {
        clearTimeout(timer);
        resolve(JSON.parse(json));
      };
      const timer = setTimeout(() => {
        const list = waiters.get(messageId)?.filter((w) => w !== wake);
        if (list?.length) waiters.set(messageId, list);
        else waiters.delete(messageId);
        resolve(null);
      }, timeoutMs);
      waiters.set(messageId, [...(waiters.get(messageId) ?? []), wake]);
    });
  };

  const server = http.createServer(async (req, res) => {
    try {
      const body = JSON.parse(await readAll(req)) as Record<string, unknown>;
      if (req.url === '/wait') {
        const message = await waitFor(String(body.messageId), Number(body.timeoutMs));
        if (message === null) return res.writeHead(408, { 'content-type': 'application/json' }).end('{"error":{"code":"timeout"}}');
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messages: [message] }));
      }
      const events = (req.url === '/v1/batch' ? body.batch : [body]) as Record<string, unknown>[];
      const stored = store(events);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
      fanOut(events, stored);
    } catch (error) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'invalid_request', message: (error as Error).message } }));
    }
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stored: () => schema?.stored() ?? Number((db.prepare('SELECT max(id) AS n FROM messages').get() as { n: number | null }).n ?? 0),
    waitFor,
    backlog: () => recorder?.backlog() ?? 0,
    failedAttempts: () => recorder?.failedAttempts() ?? null,
    async close() {
      flush();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await recorder?.close();
      await Promise.all([hooks.close(), forwards.close()]);
      db.close();
      schema?.db.close();
    },
  };
}
