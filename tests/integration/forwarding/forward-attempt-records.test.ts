// One attempt record per forwarded request (issue 26, point 2; migration 17): a request that carried a
// batch of messages to a Tracking API is recorded once, each message's delivery refers to it, and every
// view still shows each message's attempt with the request's status, timing and answer. Retries,
// replays, retention and purges stay per message. Real cores, real SQLite files, a real loopback receiver.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { MIGRATIONS } from '../../../electron/core/store/migrations.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
const cores = new Set<TestCore>();
afterEach(async () => {
  for (const core of cores) await core.dispose();
  cores.clear();
});

/** A clock on real time that a test moves forward (the retry schedule's waits). */
function movableClock() {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms: number) => (offset += ms) };
}

async function forwarder(url: string, options: { dataDir?: string; clock?: { now(): number }; retention?: object } = {}): Promise<TestCore> {
  const core = await startCore({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    random: () => 0.5,
    config: configFileSchema.parse({
      sources: [{ name: 'app', writeKey: 'wk_app' }],
      destinations: [{ name: 'api', sources: ['app'], kind: 'tracking-api', trackingApi: { url, writeKey: 'wk_api', flushMs: 0 } }],
      ...(options.retention ? { retention: options.retention } : {}),
    }),
  });
  cores.add(core);
  return core;
}

/** Posts `n` track messages in one request, with events E0…E(n-1); their stored ids, oldest first. */
async function send(core: TestCore, n: number, tag = 'm'): Promise<number[]> {
  const batch = Array.from({ length: n }, (_, i) => ({ type: 'track', userId: `u${i % 3}`, event: `E${i}`, messageId: `${tag}-${i}` }));
  expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
  return core.messages.list({ limit: 10_000 }).filter((m) => m.messageId?.startsWith(`${tag}-`)).map((m) => m.id).reverse();
}

/** The store's rows, read beside the running core. */
function rows(core: TestCore): { attempts: number; requests: number; carried: number } {
  const db = new DatabaseSync(path.join(core.dataDir, DATABASE_FILE), { readOnly: true });
  try {
    const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { attempts: count('attempts'), requests: count('forward_requests'), carried: count('forward_attempts') };
  } finally {
    db.close();
  }
}

const deliveryOf = (core: TestCore, messageId: number) => core.deliveries.forMessage(messageId)[0]!;
const settled = (core: TestCore) => until(() => (core.deliveries.waitingCount() === 0 ? true : undefined));

describe('one attempt record per forwarded request', () => {
  it('a batch of 150 goes in two requests: two records, each message\'s attempt showing its request\'s status, timing and answer', async () => {
    const r = await receiver();
    r.fallback = { status: 200, headers: { 'x-upstream': 'yes' }, body: '{"success":true}' };
    const core = await forwarder(r.url);
    const ids = await send(core, 150);
    await r.waitFor(2);
    await settled(core);
    expect(r.received).toHaveLength(2);
    expect(rows(core)).toEqual({ attempts: 0, requests: 2, carried: 150 });

    // Each message: one attempt, its request's — the same record for the messages a request carried.
    const sizes = r.received.map((got) => (JSON.parse(got.body) as { batch: unknown[] }).batch.length);
    expect(sizes).toEqual([100, 50]);
    const views = await Promise.all(ids.map((id) => core.operations['messages.get']({ id })));
    const attempts = views.map((view) => {
      expect(view.deliveries).toHaveLength(1);
      expect(view.deliveries[0]).toMatchObject({ status: 'delivered', attemptCount: 1 });
      expect(view.deliveries[0]!.attempts).toHaveLength(1);
      return view.deliveries[0]!.attempts[0]!;
    });
    for (const attempt of attempts) {
      expect(attempt).toMatchObject({
        url: `${r.url}/v1/batch`,
        responseStatus: 200,
        responseBody: '{"success":true}',
        errorCode: null,
        errorMessage: null,
        outcome: 'success',
        retryAt: null,
      });
      expect(attempt.responseHeaders).toMatchObject({ 'x-upstream': 'yes' });
      expect(attempt.requestHeaders['Content-Type']).toBe('application/json');
      expect(attempt.requestHeaders.Authorization).not.toContain(Buffer.from('wk_api:').toString('base64')); // masked in views
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    }
    const first = attempts.slice(0, 100);
    const second = attempts.slice(100);
    expect(new Set(first.map((a) => `${a.id} ${a.startedAt} ${a.durationMs}`)).size).toBe(1);
    expect(new Set(second.map((a) => `${a.id} ${a.startedAt} ${a.durationMs}`)).size).toBe(1);
    expect(first[0]!.id).not.toBe(second[0]!.id);

    // sluice/testing's list: each message's delivery with its attempt.
    const listed = await core.queries.deliveries();
    expect(listed).toHaveLength(150);
    for (const delivery of listed) {
      expect(delivery.attempts).toEqual([
        { url: `${r.url}/v1/batch`, startedAt: expect.any(String), durationMs: expect.any(Number), status: 200, error: null, outcome: 'success' },
      ]);
    }
    // Settings' figure counts attempt records: the two requests.
    expect((await core.operations['storage.stats']({})).attempts).toBe(2);
  });

  it('a retried batch: each message has the failed attempt then the delivered one, two records in all; retry now moves one message alone', async () => {
    const clock = movableClock();
    const r = await receiver();
    r.script({ status: 503, body: 'busy' });
    const core = await forwarder(r.url, { clock });
    const ids = await send(core, 5);
    await until(() => (core.deliveries.countByStatus().retrying === 5 ? true : undefined));
    expect(rows(core)).toEqual({ attempts: 0, requests: 1, carried: 5 });
    const retrying = deliveryOf(core, ids[0]!);
    const [failed] = core.deliveries.attempts(retrying.id);
    expect(failed).toMatchObject({ responseStatus: 503, responseBody: 'busy', errorCode: 'http', outcome: 'retry', retryAt: retrying.nextAttemptAt });
    expect(failed!.errorMessage).toMatch(/503/);
    // The stream's row names the last error from the last attempt, as for a webhook.
    const page = await core.operations['messages.list']({ limit: 10 });
    expect(page.messages.find((m) => m.id === ids[0])?.delivery).toMatchObject({ status: 'retrying', lastErrorCode: 'http', lastHttpStatus: 503 });

    // Retry now, for one message only: it goes alone, in a request of its own.
    await core.operations['deliveries.retryNow']({ ids: [deliveryOf(core, ids[2]!).id] });
    await until(() => (deliveryOf(core, ids[2]!).status === 'delivered' ? true : undefined));
    expect(JSON.parse(r.received[1]!.body).batch.map((m: { messageId: string }) => m.messageId)).toEqual(['m-2']);
    expect(rows(core)).toEqual({ attempts: 0, requests: 2, carried: 6 });

    // The others, when their retry is due: one more request for the four.
    clock.advance(6_000);
    core.delivery.kick();
    await settled(core);
    expect(JSON.parse(r.received[2]!.body).batch).toHaveLength(4);
    expect(rows(core)).toEqual({ attempts: 0, requests: 3, carried: 10 });
    for (const id of ids) {
      const delivery = deliveryOf(core, id);
      const attempts = core.deliveries.attempts(delivery.id);
      expect(delivery).toMatchObject({ status: 'delivered', attemptCount: 2 });
      expect(attempts.map((a) => [a.responseStatus, a.outcome])).toEqual([[503, 'retry'], [200, 'success']]);
      expect(attempts[0]!.id).toBe(failed!.id); // the first request's record, shared by all five
    }
    expect(core.deliveries.attempts(deliveryOf(core, ids[2]!).id)[1]!.id).not.toBe(core.deliveries.attempts(deliveryOf(core, ids[0]!).id)[1]!.id);
  });

  it('a message the API refused alone has its own error on the shared request; the others show the request\'s', async () => {
    const r = await receiver();
    r.script({ status: 200, body: JSON.stringify({ success: true, rejected: [{ index: 1, code: 'invalid_message', message: 'no' }] }) });
    const core = await forwarder(r.url);
    const ids = await send(core, 3);
    await settled(core);
    expect(rows(core)).toEqual({ attempts: 0, requests: 1, carried: 3 });
    const [a, b, c] = ids.map((id) => core.deliveries.attempts(deliveryOf(core, id).id)[0]!);
    expect(b).toMatchObject({ responseStatus: 200, errorCode: 'http', errorMessage: 'the API accepted the batch but rejected this message (invalid_message: no)', outcome: 'final' });
    for (const other of [a, c]) expect(other).toMatchObject({ id: b!.id, responseStatus: 200, errorCode: null, errorMessage: null, outcome: 'success' });
    const page = await core.operations['messages.list']({ limit: 10 });
    expect(page.messages.find((m) => m.id === ids[1])?.delivery).toMatchObject({ status: 'failed', lastErrorCode: 'http', lastHttpStatus: 200 });
  });

  it('a replay of one message is a request of its own; the batch\'s record is untouched', async () => {
    const r = await receiver();
    const core = await forwarder(r.url);
    const ids = await send(core, 4);
    await settled(core);
    const before = core.deliveries.attempts(deliveryOf(core, ids[1]!).id);
    await core.operations['deliveries.replay']({ messageIds: [ids[1]!] });
    await until(() => (core.deliveries.forMessage(ids[1]!).filter((d) => d.status === 'delivered').length === 2 ? true : undefined));
    expect(JSON.parse(r.received.at(-1)!.body).batch).toHaveLength(1);
    expect(rows(core)).toEqual({ attempts: 0, requests: 2, carried: 5 });
    const [original, replay] = core.deliveries.forMessage(ids[1]!);
    expect(core.deliveries.attempts(original!.id)).toEqual(before);
    const [replayed] = core.deliveries.attempts(replay!.id);
    expect(replayed).toMatchObject({ responseStatus: 200, outcome: 'success' });
    expect(replayed!.id).not.toBe(before[0]!.id);
  });

  it('clearing part of a batch keeps its record for the rest; the last message takes it along', async () => {
    const r = await receiver();
    r.fallback = { status: 200, body: 'kept' };
    const core = await forwarder(r.url);
    const ids = await send(core, 6);
    await settled(core);
    const shared = core.deliveries.attempts(deliveryOf(core, ids[5]!).id)[0]!;

    const cleared = await core.operations['storage.clear']({ scope: { filter: { userId: 'u0' } }, dryRun: false });
    expect(cleared).toMatchObject({ messages: 2, deliveries: 2, attempts: 2 });
    expect(rows(core)).toEqual({ attempts: 0, requests: 1, carried: 4 });
    for (const id of [ids[1]!, ids[2]!, ids[4]!, ids[5]!]) {
      const delivery = deliveryOf(core, id);
      expect(core.deliveries.attempts(delivery.id)).toEqual([{ ...shared, deliveryId: delivery.id }]);
    }

    expect(await core.operations['storage.clear']({ scope: { all: true }, dryRun: false })).toMatchObject({ messages: 4, attempts: 4 });
    expect(rows(core)).toEqual({ attempts: 0, requests: 0, carried: 0 });
  });

  it('retention pruning the older of two batches removes its record, and only its', async () => {
    const r = await receiver();
    const clock = movableClock();
    const core = await forwarder(r.url, { clock, retention: { maxAgeDays: 30, maxMessages: null, maxBytes: null } });
    const older = await send(core, 3, 'old');
    await settled(core);
    clock.advance(31 * 24 * 3600_000);
    const newer = await send(core, 3, 'new');
    await settled(core);
    expect(rows(core)).toEqual({ attempts: 0, requests: 2, carried: 6 });
    const kept = core.deliveries.attempts(deliveryOf(core, newer[0]!).id);
    const report = await core.pruner.run();
    expect(report).toMatchObject({ messages: 3, deliveries: 3, attempts: 3 });
    expect(older.every((id) => core.messages.get(id) === undefined)).toBe(true);
    expect(rows(core)).toEqual({ attempts: 0, requests: 1, carried: 3 });
    expect(core.deliveries.attempts(deliveryOf(core, newer[0]!).id)).toEqual(kept);
  });

  it('a purge of one user\'s messages removes the answer of the requests that carried them, as its preview counted', async () => {
    const r = await receiver();
    r.fallback = { status: 200, body: 'echo: u0 was here' };
    const core = await forwarder(r.url);
    const ids = await send(core, 3);
    await settled(core);
    // The preview counts u0's forwarded attempt (its share of the request whose answer the purge clears).
    expect(await core.operations['deletions.preview']({ userId: 'u0' })).toMatchObject({ messages: 1, deliveries: 1, attempts: 1 });
    await core.operations['deletions.create']({ userId: 'u0', purge: true });
    await until(() => (core.messages.get(ids[0]!) === undefined ? true : undefined));
    const other = core.deliveries.attempts(deliveryOf(core, ids[1]!).id)[0]!;
    expect(other).toMatchObject({ responseStatus: 200, responseBody: null });
  });
});

describe('a store made before migration 17', () => {
  it('keeps showing its forwarded attempts (a row per message), and records new forwards once per request', async () => {
    const r = await receiver();
    r.fallback = { status: 200, body: 'new' };
    const dataDir = tempDir();
    // Schema 16, as the previous Sluice made it, holding a forwarded message and its attempt row.
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE));
    for (const migration of MIGRATIONS.filter((m) => m.version <= 16)) db.exec(migration.sql);
    db.exec(`PRAGMA user_version = 16;
      INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'app', 'wk_app', 'web', 0);
      INSERT INTO destinations (id, name, kind, enabled, settings, created_at, updated_at)
        VALUES (1, 'api', 'tracking-api', 1, '${JSON.stringify({ kind: 'tracking-api', trackingApi: { url: r.url, writeKey: 'wk_api', batchSize: 100, flushMs: 0, gzip: false } })}', 0, 0);
      INSERT INTO destination_sources VALUES (1, 1);
      INSERT INTO messages (id, source_id, message_id, type, status, user_id, event, received_at, raw)
        VALUES (1, 1, 'old-1', 'track', 'accepted', 'u', 'Old', 1000, '{"type":"track","userId":"u","event":"Old","messageId":"old-1"}');
      INSERT INTO deliveries (id, message_id, destination_id, trigger, status, body, attempt_count, first_attempt_at, created_at, updated_at)
        VALUES (1, 1, 1, 'automatic', 'delivered', '{"messageId":"old-1"}', 1, 2000, 1000, 2000);
      INSERT INTO attempts (delivery_id, url, started_at, duration_ms, request_headers, response_status, response_headers, response_body, outcome)
        VALUES (1, '${r.url}/v1/batch', 2000, 3.5, '{"Content-Type":"application/json"}', 200, '{"x":"1"}', 'old answer', 'success');`);
    db.close();

    const core = await forwarder(r.url, { dataDir });
    const old = (await core.operations['messages.get']({ id: 1 })).deliveries[0]!;
    expect(old.attempts).toHaveLength(1);
    expect(old.attempts[0]).toMatchObject({ url: `${r.url}/v1/batch`, startedAt: 2000, durationMs: 3.5, responseStatus: 200, responseBody: 'old answer', outcome: 'success' });

    const ids = await send(core, 3);
    await settled(core);
    expect(rows(core)).toEqual({ attempts: 1, requests: 1, carried: 3 });
    for (const id of ids) expect(core.deliveries.attempts(deliveryOf(core, id).id)).toMatchObject([{ responseStatus: 200, responseBody: 'new', outcome: 'success' }]);

    // Clearing the old message takes its row; the new ones keep their request's record.
    await core.operations['storage.clear']({ scope: { filter: { userId: 'u' } }, dryRun: false });
    expect(rows(core)).toEqual({ attempts: 0, requests: 1, carried: 3 });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a delivery retried across the upgrade: its old attempt and its forwarded request share an id, and each header is revealed from its own', async () => {
    const r = await receiver();
    r.fallback = { status: 200, body: 'new' };
    const dataDir = tempDir();
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE));
    for (const migration of MIGRATIONS.filter((m) => m.version <= 16)) db.exec(migration.sql);
    // Schema 16: a forward that failed once (its attempt row, id 1, sent with another write key) and is due again.
    const now = Date.now();
    db.exec(`PRAGMA user_version = 16;
      INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'app', 'wk_app', 'web', 0);
      INSERT INTO destinations (id, name, kind, enabled, settings, created_at, updated_at)
        VALUES (1, 'api', 'tracking-api', 1, '${JSON.stringify({ kind: 'tracking-api', trackingApi: { url: r.url, writeKey: 'wk_api', batchSize: 100, flushMs: 0, gzip: false } })}', 0, 0);
      INSERT INTO destination_sources VALUES (1, 1);
      INSERT INTO messages (id, source_id, message_id, type, status, user_id, event, received_at, raw)
        VALUES (1, 1, 'old-1', 'track', 'accepted', 'u', 'Old', ${now}, '{"type":"track","userId":"u","event":"Old","messageId":"old-1"}');
      INSERT INTO deliveries (id, message_id, destination_id, trigger, status, attempt_count, first_attempt_at, next_attempt_at, created_at, updated_at)
        VALUES (1, 1, 1, 'automatic', 'retrying', 1, ${now}, ${now}, ${now}, ${now});
      INSERT INTO attempts (id, delivery_id, url, started_at, duration_ms, request_headers, response_status, response_headers, response_body, outcome)
        VALUES (1, 1, '${r.url}/v1/batch', ${now}, 3.5, '{"Authorization":"Basic b2xkLWtleTo="}', 503, '{}', 'busy', 'retry');`);
    db.close();

    const core = await forwarder(r.url, { dataDir });
    await settled(core);
    const [got] = await r.waitFor(1);
    const view = (await core.operations['messages.get']({ id: 1 })).deliveries[0]!;
    expect(view.attempts.map((a) => [a.id, a.forwarded ?? false, a.responseStatus])).toEqual([[1, false, 503], [1, true, 200]]);
    const reveal = (forwarded?: boolean) => core.operations['deliveries.revealHeader']({ deliveryId: 1, attemptId: 1, ...(forwarded === undefined ? {} : { forwarded }), name: 'authorization' });
    expect(await reveal(true)).toEqual({ value: got!.headers.authorization });
    expect(got!.headers.authorization).toBe(`Basic ${Buffer.from('wk_api:').toString('base64')}`);
    expect(await reveal()).toEqual({ value: 'Basic b2xkLWtleTo=' });
    expect(await reveal(false)).toEqual({ value: 'Basic b2xkLWtleTo=' });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
