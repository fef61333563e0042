// A webhook attempt's request headers are stored by reference (store/attempt-headers.ts; issue 26): the
// headers every attempt to a webhook shares are one header set, the attempt keeps only what changes.
// What the inspector shows of each attempt must still be what the receiver got, byte for byte — checked
// against a real loopback receiver, Standard Webhooks' signature with the spec authors' verifier — and
// what is stored per attempt is checked in the real SQLite file. Real cores, receivers and stores.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../electron/core/api/contract-handlers.ts';
import { verifyAsSeedReceiver } from '../../../electron/core/signature/signature.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { MIGRATIONS } from '../../../electron/core/store/migrations.ts';
import { startSluice } from '../../../electron/testing/index.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach, type Received } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
const cores: TestCore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
/** Each core's data folder, to read its store file. */
const folders = new WeakMap<TestCore, string>();

const whsec = () => `whsec_${randomBytes(32).toString('base64')}`;
// The verifier allows 5 minutes of clock difference: an injected clock near real time, moved by hand.
let now = Date.now();
const clock = { now: () => now };

function destinationConfig(url: string, more: Record<string, unknown> = {}) {
  return { name: 'hooks', sources: ['web'], webhooks: [{ url, headers: { 'X-Team': 'growth' } }], ...more };
}

async function coreWith(destination: Record<string, unknown>, dataDir = tempDir()) {
  if (!dirs.includes(dataDir)) dirs.push(dataDir);
  const core = await startCore({
    dataDir,
    config: configFileSchema.parse({ sources: [{ name: 'web', writeKey: 'wk_web' }], destinations: [destination] }),
    clock,
    random: () => 0.5,
  });
  core.writeKey = 'wk_web';
  cores.push(core);
  folders.set(core, dataDir);
  return core;
}

/** Headers that HTTP adds on the way (not Sluice's choice of what to send). */
const TRANSPORT = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);

/** The inspector's attempt headers are exactly the request's: the same names, each with the same value. */
function expectSent(shown: Record<string, string>, got: Received) {
  const names = Object.keys(shown).map((name) => name.toLowerCase());
  expect(names.sort()).toEqual(Object.keys(got.headers).filter((name) => !TRANSPORT.has(name)).sort());
  for (const [name, value] of Object.entries(shown)) expect(got.headers[name.toLowerCase()], name).toBe(value);
}

/** Retries a delivery's next round now (the clock moved past its retry). */
async function nextRound(c: TestCore, deliveryId: number, attempts: number) {
  await until(() => (c.deliveries.get(deliveryId)?.status === 'retrying' && c.deliveries.attempts(deliveryId).length === attempts) || undefined);
  now += 5_000;
  c.delivery.kick();
}

const storeOf = (c: TestCore) => new DatabaseSync(path.join(folders.get(c)!, DATABASE_FILE), { readOnly: true });

describe('webhook attempts, headers by reference', () => {
  it('shows each attempt as the receiver got it, across retries: every header, the body, and signatures that verify', async () => {
    now = Date.now();
    const r = await receiver();
    r.script({ status: 503 });
    const secret = whsec();
    const c = await coreWith(destinationConfig(r.url, { signing: 'both', sharedSecret: 'seed-secret', signingSecrets: [secret] }));
    await post(c, '/v1/track', { userId: 'u_1', event: 'Retried' });
    await r.waitFor(1);
    const delivery = c.deliveries.forMessage(c.messages.list()[0]!.id)[0]!;
    await nextRound(c, delivery.id, 1);
    const got = await r.waitFor(2);
    await until(() => c.deliveries.get(delivery.id)?.status === 'delivered' || undefined);

    const view = await callOk(createHandlers(c), 'deliveries.get', { id: delivery.id });
    expect(view.attempts).toHaveLength(2);
    expect(got[0]!.headers['webhook-timestamp']).not.toBe(got[1]!.headers['webhook-timestamp']); // each attempt's own
    view.attempts.forEach((attempt, i) => {
      expectSent(attempt.requestHeaders, got[i]!);
      expect(Buffer.from(view.body!, 'utf8').equals(got[i]!.bytes)).toBe(true);
      const lower = Object.fromEntries(Object.entries(attempt.requestHeaders).map(([k, v]) => [k.toLowerCase(), v]));
      expect(new Webhook(secret).verify(view.body!, lower)).toMatchObject({ event: 'Retried' });
      expect(verifyAsSeedReceiver(view.body!, attempt.requestHeaders['X-Signature'], 'seed-secret')).toBe(true);
    });
    // The same through the store's read path itself, in the order sent.
    expect(c.deliveries.attempts(delivery.id).map((a) => a.requestHeaders)).toEqual(view.attempts.map((a) => a.requestHeaders));
  });

  it('stores what changes per attempt: one header set for every delivery to a webhook, the signature on the delivery only', async () => {
    now = Date.now();
    const r = await receiver();
    const c = await coreWith(destinationConfig(r.url, { sharedSecret: 'seed-secret' }));
    for (let i = 0; i < 20; i++) await post(c, '/v1/track', { userId: `u_${i}`, event: 'Stored' });
    const got = await r.waitFor(20);
    await until(() => (c.deliveries.countByStatus().delivered === 20 ? true : undefined));
    const db = storeOf(c);
    try {
      const rows = db
        .prepare(`SELECT a.request_headers, a.header_set, d.signature FROM attempts a JOIN deliveries d ON d.id = a.delivery_id ORDER BY a.id`)
        .all() as { request_headers: string; header_set: number | null; signature: string }[];
      expect(rows).toHaveLength(20);
      // Nothing of the request is repeated in an attempt: no X-Signature (it is the delivery's), no User-Agent.
      for (const row of rows) expect(row.request_headers).toBe('{}');
      expect(new Set(rows.map((row) => row.header_set))).toEqual(new Set([rows[0]!.header_set]));
      expect(db.prepare('SELECT count(*) AS n FROM header_sets').get()).toEqual({ n: 1 });
      const set = JSON.parse((db.prepare('SELECT headers FROM header_sets').get() as { headers: string }).headers) as Record<string, string | null>;
      expect(set).toMatchObject({ 'User-Agent': 'Sluice/1.0', 'Content-Type': 'application/json', 'X-Team': 'growth', 'X-Signature': null });
      // Bytes per attempt row (its text columns): the answer and the URL, not the request again.
      const { bytes } = db
        .prepare(`SELECT max(length(url) + length(request_headers) + coalesce(length(response_headers), 0) + coalesce(length(response_body), 0)) AS bytes FROM attempts`)
        .get() as { bytes: number };
      const answer = db.prepare(`SELECT max(length(url) + coalesce(length(response_headers), 0) + coalesce(length(response_body), 0)) AS bytes FROM attempts`).get() as { bytes: number };
      expect(bytes).toBe(answer.bytes + 2);
    } finally {
      db.close();
    }
    // …and every attempt still reads as the request its receiver got.
    const byBody = new Map(got.map((request) => [request.body, request]));
    for (const d of c.messages.list().flatMap((m) => c.deliveries.forMessage(m.id, { bodies: true }))) {
      const [attempt] = c.deliveries.attempts(d.id);
      expectSent(attempt!.requestHeaders, byBody.get(d.body!)!);
    }
  });

  it('an edited replay to another URL shows its own body and headers, as its receiver got them', async () => {
    now = Date.now();
    const [r, other] = [await receiver(), await receiver()];
    const c = await coreWith(destinationConfig(r.url, { sharedSecret: 'seed-secret' }));
    await post(c, '/v1/track', { userId: 'u_1', event: 'Original' });
    await r.waitFor(1);
    const messageId = c.messages.list()[0]!.id;
    const handlers = createHandlers(c);
    const replay = await callOk(handlers, 'deliveries.replay', { messageIds: [messageId], targetUrl: `${other.url}/edited`, body: { type: 'track', event: 'Edited ✎', userId: 'u_1' } });
    const [edited] = await other.waitFor(1);
    await until(() => c.deliveries.get(replay.deliveryIds[0]!)?.status === 'delivered' || undefined);
    const view = await callOk(handlers, 'deliveries.get', { id: replay.deliveryIds[0]! });
    expect(Buffer.from(view.body!, 'utf8').equals(edited!.bytes)).toBe(true);
    expect(view.body).toContain('Edited ✎');
    expectSent(view.attempts[0]!.requestHeaders, edited!);
    expect(view.attempts[0]!.url).toBe(`${other.url}/edited`);
    // The original's attempt is untouched by the replay's.
    const [original] = c.deliveries.forMessage(messageId);
    expectSent(c.deliveries.attempts(original!.id)[0]!.requestHeaders, r.received[0]!);
  });

  it('an attempt keeps the X-Signature it sent when a later round signs with a secret edited meanwhile', async () => {
    now = Date.now();
    const r = await receiver();
    r.script({ status: 503 });
    const config = destinationConfig(r.url, { sharedSecret: 'first-secret' });
    const c = await coreWith(config);
    await post(c, '/v1/track', { userId: 'u_1', event: 'Rotated' });
    await r.waitFor(1);
    const delivery = c.deliveries.forMessage(c.messages.list()[0]!.id)[0]!;
    const destination = c.destinations.list()[0]!;
    c.destinations.update(destination.id, configFileSchema.parse({ sources: [{ name: 'web', writeKey: 'wk_web' }], destinations: [{ ...config, sharedSecret: 'second-secret' }] }).destinations[0]!, now);
    await nextRound(c, delivery.id, 1);
    const got = await r.waitFor(2);
    await until(() => c.deliveries.get(delivery.id)?.status === 'delivered' || undefined);
    expect(verifyAsSeedReceiver(got[1]!.body, got[1]!.headers['x-signature'] as string, 'second-secret')).toBe(true);
    const attempts = c.deliveries.attempts(delivery.id);
    expectSent(attempts[0]!.requestHeaders, got[0]!);
    expectSent(attempts[1]!.requestHeaders, got[1]!);
    expect(attempts[0]!.requestHeaders['X-Signature']).not.toBe(attempts[1]!.requestHeaders['X-Signature']);
  });
});

describe('sluice/testing', () => {
  it('gives each delivery the body its receiver got, byte for byte, and each attempt as made', async () => {
    const r = await receiver();
    const sluice = await startSluice({ config: { sources: [{ name: 'web', writeKey: 'wk_web' }], destinations: [destinationConfig(r.url, { sharedSecret: 'seed-secret' })] } });
    try {
      await post({ ingestUrl: sluice.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_1', event: 'Tested ✓' });
      const [got] = await r.waitFor(1);
      const [delivery] = await sluice.waitForDeliveries({}, { count: 1, status: 'delivered' });
      expect(Buffer.from(delivery!.body!, 'utf8').equals(got!.bytes)).toBe(true);
      expect(verifyAsSeedReceiver(delivery!.body!, got!.headers['x-signature'] as string, 'seed-secret')).toBe(true);
      expect(delivery!.attempts).toMatchObject([{ url: r.url, status: 200, outcome: 'success' }]);
    } finally {
      await sluice.close();
    }
  });
});

describe('a store from before header sets (schema 17)', () => {
  it('opens migrated: its attempts read as they were recorded, new attempts are recorded by reference', async () => {
    now = Date.now();
    const dataDir = tempDir();
    {
      const r = await receiver();
      const destination = destinationConfig(r.url, { sharedSecret: 'seed-secret' });
      const first = await coreWith(destination, dataDir);
      await post(first, '/v1/track', { userId: 'u_1', event: 'Before' });
      const [before] = await r.waitFor(1);
      await until(() => (first.deliveries.countByStatus().delivered === 1 ? true : undefined));
      const shown = first.deliveries.attempts(first.deliveries.forMessage(first.messages.list()[0]!.id)[0]!.id)[0]!.requestHeaders;
      await first.close();
      cores.splice(cores.indexOf(first), 1);
      // Schema 17's attempts: every header in request_headers, no sets (what the previous build wrote).
      const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE));
      db.prepare('UPDATE attempts SET request_headers = ?').run(JSON.stringify(shown));
      db.exec(`DROP TRIGGER attempts_keep_signature; ALTER TABLE attempts DROP COLUMN header_set; DROP TABLE header_sets;
        DROP INDEX messages_unaccepted; DROP INDEX messages_made; DROP INDEX deliveries_not_sent; -- schema 19's
        ALTER TABLE deliveries DROP COLUMN shaping; ALTER TABLE deliveries DROP COLUMN transform_run; ALTER TABLE deliveries DROP COLUMN transform_body;
        ALTER TABLE attempts DROP COLUMN transform_run; ALTER TABLE forward_attempts DROP COLUMN transform_run; -- schema 21's
        DROP TRIGGER delivery_hours_moved; DROP TRIGGER delivery_hours_gone; DROP INDEX deliveries_made; -- schema 26's
        DROP TABLE delivery_hours; DROP INDEX deliveries_funnel; -- schema 22's (made again by 26)
        DROP INDEX messages_pinned; ALTER TABLE messages DROP COLUMN pinned; -- schema 23's
        ALTER TABLE deliveries DROP COLUMN body_shape; -- schema 27's
        PRAGMA user_version = 17;`);
      db.close();

      const again = await coreWith(destination, dataDir);
      const [old] = again.deliveries.forMessage(again.messages.list()[0]!.id);
      expectSent(again.deliveries.attempts(old!.id)[0]!.requestHeaders, before!);
      await post(again, '/v1/track', { userId: 'u_2', event: 'After' });
      const [, after] = await r.waitFor(2);
      await until(() => (again.deliveries.countByStatus().delivered === 2 ? true : undefined));
      const newer = again.deliveries.forMessage(again.messages.list().find((m) => m.event === 'After')!.id)[0]!;
      expectSent(again.deliveries.attempts(newer.id)[0]!.requestHeaders, after!);
      const check = storeOf(again);
      try {
        expect(check.prepare('PRAGMA user_version').get()).toEqual({ user_version: MIGRATIONS.at(-1)!.version });
        expect(check.prepare('SELECT header_set IS NOT NULL AS bySet, request_headers = ? AS ownOnly FROM attempts ORDER BY id').all('{}')).toEqual([
          { bySet: 0, ownOnly: 0 },
          { bySet: 1, ownOnly: 1 },
        ]);
        // Migration 22 counted the delivery made before it, and the writer the one made after (migration 26).
        expect(check.prepare(`SELECT status, sum(n) AS n FROM delivery_hours GROUP BY status HAVING sum(n) <> 0`).all()).toEqual([{ status: 'delivered', n: 2 }]);
      } finally {
        check.close();
      }
    }
  });
});
