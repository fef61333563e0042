// What the latency benchmark measures, behind one interface (latency.bench.ts): Sluice itself, started
// with sluice/testing on a store folder, or a floor (latency-floor.ts: plain, recording, or on Sluice's
// schema). Each takes probes on its ingestion URL and answers waits over HTTP and in process.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { request } from 'undici';
import { startSluice, type Sluice } from '../../electron/testing/index.ts';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';
import { startFloor } from './latency-floor.ts';
import { round1 } from './latency-report.ts';

const SECRET = 's3cret';

/** The run's settings a target follows: whether it fans out (0 is the control) and every wait's timeout. */
export interface TargetOptions {
  fanOut: boolean;
  timeoutMs: number;
}

export interface Target {
  ingestUrl: string;
  /** Resolves true once the message is visible to the wait, false when the wait timed out. */
  waitHttp(messageId: string): Promise<boolean>;
  waitInProcess(messageId: string): Promise<boolean>;
  stored(): number;
  /** Deliveries not yet done (pending or retrying). */
  backlog(): number;
  /** Attempts that did not succeed (Sluice and the recording floor record them; the plain floor does not). */
  failedAttempts(): number | null;
  /** The HTTP API's reads, each timed (ms, the median of 5); null for the floors, which have none. */
  reads(): Promise<Record<string, number> | null>;
  /** Starts a wait over HTTP for a message that never comes (timeoutMs ≤ 60 s: asked again until the signal aborts). */
  waitNever(id: string, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export function config(receiverUrl: string, withDestinations: boolean) {
  const sources = ['bench'];
  return {
    sources: [{ name: 'bench', writeKey: 'wk_bench', kind: 'server' as const }],
    destinations: withDestinations
      ? [
          { name: 'hook', enabled: true, sources, sharedSecret: SECRET, webhooks: [{ url: `${receiverUrl}/hook`, headers: {} }] },
          { name: 'fwd0', enabled: true, sources, kind: 'tracking-api' as const, trackingApi: { url: `${receiverUrl}/fwd0`, writeKey: 'wk_up', flushMs: 0 }, webhooks: [] },
          { name: 'fwd1', enabled: true, sources, kind: 'tracking-api' as const, trackingApi: { url: `${receiverUrl}/fwd1`, writeKey: 'wk_up' }, webhooks: [] },
        ]
      : [],
    retention: { maxAgeDays: null, maxMessages: null, maxBytes: null }, // a large store is not pruned during the run
  };
}

function readStore<T>(dataDir: string, sql: string): T {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    return db.prepare(sql).get() as T;
  } finally {
    db.close();
  }
}
export const storedIn = (dataDir: string) => Number(readStore<{ n: number | null }>(dataDir, 'SELECT max(id) AS n FROM messages').n ?? 0);

/** A wait over Sluice's HTTP API for a message that never comes (≤ 60 s). */
export function neverOn(sluice: Sluice): Target['waitNever'] {
  return async (id, signal) => {
    const res = await request(`${sluice.apiUrl}/messages/wait`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sluice.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filter: { messageId: id }, timeoutMs: 60_000 }),
      signal,
    });
    await res.body.dump();
  };
}

export async function sluiceTarget(dataDir: string, receiverUrl: string, { fanOut, timeoutMs }: TargetOptions): Promise<Target> {
  const sluice = await startSluice({ dataDir, config: config(receiverUrl, fanOut) });
  return {
    ingestUrl: sluice.ingestUrl,
    async waitHttp(messageId) {
      const res = await request(`${sluice.apiUrl}/messages/wait`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sluice.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filter: { messageId }, timeoutMs }),
        signal: AbortSignal.timeout(timeoutMs * 3),
      });
      const text = await res.body.text();
      if (res.statusCode === 408) return false;
      if (res.statusCode !== 200) throw new Error(`the wait answered ${res.statusCode}: ${text.slice(0, 200)}`);
      return true;
    },
    waitInProcess: (messageId) =>
      sluice.waitForMessages({ messageId }, { timeoutMs }).then(
        () => true,
        (error: Error) => {
          if (error.name === 'SluiceTimeoutError') return false;
          throw error;
        },
      ),
    stored: () => storedIn(dataDir),
    async reads() {
      const get = async (pathname: string, status = 200) => {
        const times: number[] = [];
        for (let i = 0; i < 5; i++) {
          const t0 = performance.now();
          const res = await request(`${sluice.apiUrl}${pathname}`, { headers: { authorization: `Bearer ${sluice.token}` }, signal: AbortSignal.timeout(120_000) });
          await res.body.dump();
          if (res.statusCode !== status) throw new Error(`GET ${pathname} answered ${res.statusCode}`);
          times.push(performance.now() - t0);
        }
        return round1(times.sort((a, b) => a - b)[2]!);
      };
      const middle = encodeURIComponent(readStore<{ id: string }>(dataDir, 'SELECT message_id AS id FROM messages WHERE id >= (SELECT max(id) / 2 FROM messages) ORDER BY id LIMIT 1').id);
      return {
        'GET /messages?limit=1': await get('/messages?limit=1'),
        'GET /messages?event=Probe&limit=1': await get('/messages?event=Probe&limit=1'),
        'GET /messages?userId=prober&limit=1': await get('/messages?userId=prober&limit=1'),
        'GET /messages/{id}': await get(`/messages/${middle}`),
        'GET /messages/{unknown id} (404)': await get('/messages/no-such-message', 404),
        'GET /deliveries?limit=1': await get('/deliveries?limit=1'),
        'GET /stats': await get('/stats'),
      };
    },
    waitNever: neverOn(sluice),
    backlog: () => Number(readStore<{ n: number }>(dataDir, "SELECT count(*) AS n FROM deliveries WHERE status IN ('pending', 'retrying')").n),
    // A forwarded message's attempt is its share of the request's record (migration 17).
    failedAttempts: () => Number(readStore<{ n: number }>(dataDir,
      "SELECT (SELECT count(*) FROM attempts WHERE outcome <> 'success') + (SELECT count(*) FROM forward_attempts WHERE outcome <> 'success') AS n").n),
    close: () => sluice.close(),
  };
}

export async function floorTarget(dir: string, receiverUrl: string, prefill: number, { fanOut, timeoutMs }: TargetOptions, record: boolean | 'schema' = false): Promise<Target> {
  const floor = await startFloor(dir, receiverUrl, SECRET, prefill, { record, fanOut });
  return {
    ingestUrl: floor.url,
    async waitHttp(messageId) {
      const res = await request(`${floor.url}/wait`, { method: 'POST', body: JSON.stringify({ messageId, timeoutMs }), signal: AbortSignal.timeout(timeoutMs * 3) });
      await res.body.dump();
      if (res.statusCode !== 200 && res.statusCode !== 408) throw new Error(`the floor's wait answered ${res.statusCode}`);
      return res.statusCode === 200;
    },
    waitInProcess: async (messageId) => (await floor.waitFor(messageId, timeoutMs)) !== null,
    stored: () => floor.stored(),
    reads: async () => null,
    waitNever: async (id, signal) => {
      const res = await request(`${floor.url}/wait`, { method: 'POST', body: JSON.stringify({ messageId: id, timeoutMs: 60_000 }), signal });
      await res.body.dump();
    },
    backlog: () => floor.backlog(),
    failedAttempts: () => floor.failedAttempts(),
    close: () => floor.close(),
  };
}
