// A delivery's body recorded by reference to its message (migration 27, store/delivery-bodies.ts): a
// round whose body is what the builder makes of the stored message records only the shape, and every
// read — the repository's, the HAR export's — builds it again, byte for byte what the receiver got. A
// body a filter changed is stored whole; a delivery keeps its own shape when its destination's changes.
// Real core, real receivers on loopback, real SQLite file read through a second connection.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyAsSeedReceiver } from '../../../electron/core/signature/signature.ts';
import { connect, openReadOnly } from '../../../electron/core/store/connection.ts';
import { DATABASE_FILE, databaseFile, openDatabase } from '../../../electron/core/store/database.ts';
import { bodyOfMessage, recordsBodyShapes } from '../../../electron/core/store/delivery-bodies.ts';
import { deliveryResultRecorder } from '../../../electron/core/store/delivery-results.ts';
import type { DeliveryResult } from '../../../electron/core/store/delivery-types.ts';
import { harPages } from '../../../electron/core/transfer/har.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

const SECRET = 'whsec_by_reference';

async function relay(hookUrl: string, apiUrl: string, filters?: unknown[]): Promise<TestCore> {
  core = await startCore({
    config: configFileSchema.parse({
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [
        { name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: hookUrl, headers: {} }], sharedSecret: SECRET, options: { bodyShape: 'seed' }, ...(filters ? { filters } : {}) },
        { name: 'api', enabled: true, sources: ['web'], kind: 'tracking-api', trackingApi: { url: apiUrl, writeKey: 'wk_api', flushMs: 0 } },
      ],
    }),
  });
  core.writeKey = 'wk_web';
  return core;
}

/** The message's deliveries, by destination name, once both are delivered. */
async function delivered(c: TestCore, messageRowId: number) {
  const names = new Map(c.destinations.list().map((d) => [d.id, d.name]));
  const rows = await until(() => {
    const found = c.deliveries.forMessage(messageRowId, { bodies: true });
    return found.length === 2 && found.every((d) => d.status === 'delivered') ? found : undefined;
  });
  return Object.fromEntries(rows.map((d) => [names.get(d.destinationId)!, d]));
}

function stored(c: TestCore, deliveryId: number): { body: string | null; body_shape: string | null } {
  const db = new DatabaseSync(path.join(c.dataDir, DATABASE_FILE), { readOnly: true });
  try {
    return db.prepare('SELECT body, body_shape FROM deliveries WHERE id = ?').get(deliveryId) as { body: string | null; body_shape: string | null };
  } finally {
    db.close();
  }
}

const BATCH = {
  sentAt: '2026-11-30T10:00:00.000Z',
  context: { library: { name: 'analytics-node', version: '6.2.0' }, page: { path: '/checkout' } },
  batch: [{ type: 'track', messageId: 'ref-1', userId: 'u_1', event: 'Order Completed', properties: { revenue: 9.99, secret: 's1' } }],
};

/** BATCH sent through a relay on two receivers (its destinations' `filters` given), once both deliveries are delivered. */
async function sentBatch(filters?: unknown[]) {
  const hook = await receiver();
  const api = await receiver();
  const c = await relay(hook.url, api.url, filters);
  await post(c, '/v1/batch', BATCH);
  const [message] = c.messages.list();
  const { hooks, api: forward } = await delivered(c, message!.id);
  const [sent] = await hook.waitFor(1);
  return { c, hook, api, message: message!, hooks: hooks!, forward: forward!, sent: sent! };
}

describe('a body recorded by reference to its message', () => {
  it('is stored as its shape only, and read back byte for byte as sent: by the repository and by the HAR export', async () => {
    const { c, api, message, hooks, forward, sent } = await sentBatch();
    const [batch] = await api.waitFor(1);

    expect(stored(c, hooks!.id)).toEqual({ body: null, body_shape: 'seed' });
    expect(stored(c, forward!.id)).toEqual({ body: null, body_shape: 'forward' });
    expect(hooks!.body).toBe(sent!.body);
    expect(verifyAsSeedReceiver(hooks!.body!, hooks!.signature!, SECRET)).toBe(true);
    expect(batch!.body).toBe(`{"batch":[${forward!.body}]}`);
    expect(c.deliveries.get(hooks!.id)!.body).toBe(sent!.body);
    expect(c.deliveries.byIds([hooks!.id, forward!.id], { bodies: true }).map((d) => d.body)).toEqual([sent!.body, forward!.body]);
    // A read for states (the many-row ones) leaves a body by reference unbuilt.
    expect(c.deliveries.byIds([hooks!.id, forward!.id]).map((d) => [d.body, d.bodyShape])).toEqual([[null, 'seed'], [null, 'forward']]);
    expect(c.deliveries.forMessage(message!.id).map((d) => d.body)).toEqual([null, null]);

    const db = openReadOnly(path.join(c.dataDir, DATABASE_FILE));
    try {
      const texts = [...harPages(db, {})].flat().map((entry) => entry.request.postData.text);
      expect(texts).toEqual([sent!.body, batch!.body]);
    } finally {
      db.close();
    }
  });

  it('a store from before migration 27, read without migrating it: the HAR export reads it, a body recorded by reference read as none', async () => {
    const { c, api, sent } = await sentBatch();
    await api.waitFor(1);
    const old = path.join(tempDir(), 'before-27.db');
    const live = openReadOnly(path.join(c.dataDir, DATABASE_FILE));
    try {
      live.exec(`VACUUM INTO '${old}'`);
    } finally {
      live.close();
    }
    const set = new DatabaseSync(old);
    set.exec('ALTER TABLE deliveries DROP COLUMN body_shape; PRAGMA user_version = 26;');
    set.close();
    const db = openReadOnly(old);
    try {
      expect(recordsBodyShapes(db)).toBe(false);
      const entries = [...harPages(db, {})].flat();
      expect(entries).toHaveLength(2); // the webhook's attempt and the forwarded request
      expect(entries.map((entry) => entry.request.postData.text)).not.toContain(sent!.body);
    } finally {
      db.close();
    }
  });

  it('keeps its own shape when its destination changes shape later', async () => {
    const { c, hook, hooks, sent } = await sentBatch();
    const destination = c.destinations.list().find((d) => d.name === 'hooks')!;
    const config = { name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: hook.url, headers: {} }], sharedSecret: SECRET, options: { bodyShape: 'full' } };
    expect(c.destinations.update(destination.id, config as never, Date.now())).toBeDefined();
    expect(c.destinations.list().find((d) => d.name === 'hooks')!.options.bodyShape).toBe('full');
    expect(c.deliveries.get(hooks!.id)!.body).toBe(sent!.body);
    expect(JSON.parse(sent!.body)).not.toHaveProperty('context'); // the seed shape's, not the full one's
  });

  it('is stored whole when a filter changed the message', async () => {
    const { c, hooks, forward, sent } = await sentBatch([{ if: '', blockFields: ['properties.secret'] }]);
    expect(JSON.parse(sent!.body).properties).toEqual({ revenue: 9.99 });
    expect(stored(c, hooks!.id)).toEqual({ body: sent!.body, body_shape: null });
    expect(hooks!.body).toBe(sent!.body);
    expect(stored(c, forward!.id).body_shape).toBe('forward'); // the other destination has no filter
  });
});

describe('the bytes each shape makes of a stored message', () => {
  // Part of the store's format (store/delivery-bodies.ts): a body recorded by reference is built again
  // from them. A change to normalizeMessage or webhookBody that fails this would change what older
  // deliveries say they sent: make it a new shape, and build the old one as before.
  it('are pinned: seed, full and forward, with the batch context merged, the ip added and the clock corrected', () => {
    const payload = {
      raw: '{"type":"track","event":"Order Completed","userId":"u_1","properties":{"revenue":9.99},"context":{"page":{"path":"/a"}},"timestamp":"2026-11-30T09:59:58.000Z"}',
      status: 'accepted' as const, message_id: 'm-1', type: 'track', received_at: Date.parse('2026-11-30T10:00:01.000Z'),
      sent_at: Date.parse('2026-11-30T10:00:00.000Z'), ip: '10.0.0.1',
      envelope: '{"context":{"library":{"name":"analytics-node","version":"6.2.0"}},"sentAt":"2026-11-30T10:00:00.000Z"}',
    };
    expect(bodyOfMessage(payload, 'seed')).toBe(
      '{"version":1,"type":"track","userId":"u_1","event":"Order Completed","properties":{"revenue":9.99},"timestamp":"2026-11-30T09:59:59.000Z"}',
    );
    expect(bodyOfMessage(payload, 'full')).toBe(
      '{"version":1,"type":"track","event":"Order Completed","userId":"u_1","properties":{"revenue":9.99},"context":{"library":{"name":"analytics-node","version":"6.2.0"},"page":{"path":"/a"},"ip":"10.0.0.1"},"timestamp":"2026-11-30T09:59:59.000Z","messageId":"m-1","sentAt":"2026-11-30T10:00:00.000Z","originalTimestamp":"2026-11-30T09:59:58.000Z","receivedAt":"2026-11-30T10:00:01.000Z"}',
    );
    expect(bodyOfMessage(payload, 'forward')).toBe(
      '{"type":"track","event":"Order Completed","userId":"u_1","properties":{"revenue":9.99},"context":{"library":{"name":"analytics-node","version":"6.2.0"},"page":{"path":"/a"},"ip":"10.0.0.1"},"timestamp":"2026-11-30T09:59:59.000Z","messageId":"m-1","originalTimestamp":"2026-11-30T09:59:58.000Z"}',
    );
    expect(bodyOfMessage({ ...payload, raw: '1' }, 'seed')).toBeNull(); // a damaged row: no body, not an error
  });
});

describe("the recorder's body columns", () => {
  it('a body whole and a body by reference each clear the other; a round that sent nothing keeps what was stored', () => {
    const dir = tempDir();
    openDatabase(dir).close();
    const db = connect(databaseFile(dir), 'writer');
    try {
      db.exec(`INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'web', 'wk', 'server', 0);
        INSERT INTO destinations (id, name, kind, enabled, settings, created_at, updated_at) VALUES (1, 'hook', 'webhooks', 1, '{}', 0, 0);
        INSERT INTO messages (id, source_id, message_id, type, status, received_at, raw) VALUES (1, 1, 'm', 'track', 'accepted', 0, '{"type":"track","event":"E"}');
        INSERT INTO deliveries (id, message_id, destination_id, trigger, status, next_attempt_at, created_at, updated_at) VALUES (1, 1, 1, 'automatic', 'pending', 0, 0, 0);`);
      const recorder = deliveryResultRecorder(db);
      const round = (body: string | null, bodyShape?: 'seed'): DeliveryResult => ({
        deliveryId: 1, status: 'retrying', attemptCount: 1, firstAttemptAt: 0, nextAttemptAt: 1, deadlineAt: 9, lastError: 'x', body,
        signature: body || bodyShape ? 'sig' : null, attempts: [], ...(bodyShape ? { bodyShape } : {}),
      });
      const columns = () => db.prepare('SELECT body, body_shape, signature FROM deliveries WHERE id = 1').get();
      recorder.record([round('{"whole":1}')], 1);
      expect(columns()).toEqual({ body: '{"whole":1}', body_shape: null, signature: 'sig' });
      recorder.record([round(null, 'seed')], 2);
      expect(columns()).toEqual({ body: null, body_shape: 'seed', signature: 'sig' });
      recorder.record([round(null)], 3);
      expect(columns()).toEqual({ body: null, body_shape: 'seed', signature: 'sig' });
      recorder.record([round('{"whole":2}')], 4);
      expect(columns()).toEqual({ body: '{"whole":2}', body_shape: null, signature: 'sig' });
    } finally {
      db.close();
    }
  });
});
