// Replay, retry now, cancel, deletion requests and settings changes, against real receivers.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { signBody, verifyAsSeedReceiver } from '../../../electron/core/signature/signature.ts';
import { OperationError } from '../../../electron/core/operation-error.ts';
import type { DeliveryChange } from '../../../electron/core/bus/event-bus.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';

let core: TestCore | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function setup(hookUrl: string, extra: Record<string, unknown> = {}) {
  core = await startCore({
    config: {
      sources: [
        { name: 'web', writeKey: 'wk_web', kind: 'web' },
        { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
      ],
      destinations: [
        {
          name: 'hooks',
          enabled: true,
          sources: ['web'],
          sharedSecret: 'abc123',
          webhooks: [{ url: hookUrl, headers: {} }],
          options: { bodyShape: 'seed', concurrency: 8 },
        },
      ],
    },
    ...extra,
  });
  core.writeKey = 'wk_web';
  return core;
}

const deliveryStatus = (c: TestCore, id: number, status: string) => () => {
  const d = c.deliveries.get(id);
  return d?.status === status ? d : undefined;
};

describe('replay', () => {
  it('replays one message as a new, linked delivery with its own attempts', async () => {
    const r = await receiver();
    const c = await setup(r.url);
    await post(c, '/v1/track', { userId: 'u', event: 'Once' });
    await r.waitFor(1);
    const messageId = c.messages.list()[0]!.id;
    const original = await until(() => c.deliveries.forMessage(messageId).find((d) => d.status === 'delivered'));
    const { deliveryIds } = await c.operations['deliveries.replay']({ messageIds: [messageId] });
    expect(deliveryIds).toHaveLength(1);
    const [second] = await r.waitFor(2).then((all) => all.slice(1));
    expect(second!.body).toBe(r.received[0]!.body);
    const replayed = await until(deliveryStatus(c, deliveryIds[0]!, 'delivered'));
    expect(replayed).toMatchObject({ trigger: 'replay', replayOf: original.id, messageId });
    expect(c.deliveries.attempts(replayed.id)).toHaveLength(1);
    expect(c.deliveries.attempts(original.id)).toHaveLength(1);
  });

  it('replays an edited body to a URL given for the replay, re-signed', async () => {
    const hooks = await receiver();
    const local = await receiver();
    const c = await setup(hooks.url);
    await post(c, '/v1/track', { userId: 'u', event: 'Original' });
    await hooks.waitFor(1);
    const messageId = c.messages.list()[0]!.id;
    const edited = { version: 1, type: 'track', userId: 'u', event: 'Edited ✏️', timestamp: '2026-01-01T00:00:00.000Z' };
    await c.operations['deliveries.replay']({ messageIds: [messageId], targetUrl: `${local.url}/hook`, body: edited });
    const [request] = await local.waitFor(1);
    expect(request!.path).toBe('/hook');
    expect(JSON.parse(request!.body)).toEqual(edited);
    expect(request!.headers['x-signature']).toBe(signBody(JSON.stringify(edited), 'abc123'));
    expect(verifyAsSeedReceiver(request!.body, request!.headers['x-signature'] as string, 'abc123')).toBe(true);
    expect(hooks.received).toHaveLength(1); // the destination's own webhook got nothing more
  });

  it('replays a filtered set and all failed deliveries', async () => {
    const r = await receiver();
    r.fallback = { status: 400 };
    const c = await setup(r.url);
    await post(c, '/v1/batch', {
      batch: [
        { type: 'track', userId: 'a', event: 'Keep' },
        { type: 'track', userId: 'b', event: 'Other' },
        { type: 'identify', userId: 'a' },
      ],
    });
    await until(() => (c.deliveries.countByStatus().failed === 3 ? true : undefined));
    r.fallback = { status: 200 };
    const filtered = await c.operations['deliveries.replay']({ filter: { userId: 'a', type: 'track' } });
    expect(filtered.deliveryIds).toHaveLength(1);
    await until(deliveryStatus(c, filtered.deliveryIds[0]!, 'delivered'));
    expect(JSON.parse(r.received.at(-1)!.body)).toMatchObject({ event: 'Keep' });

    // "All failed" means failed now: the filtered replay has delivered a's track since, so only the
    // other two are replayed (this test used to expect 3, re-sending the recovered message).
    const all = await c.operations['deliveries.replay']({ allFailed: true });
    expect(all.deliveryIds).toHaveLength(2);
    for (const id of all.deliveryIds) await until(deliveryStatus(c, id, 'delivered'));
    expect(all.deliveryIds.map((id) => c.deliveries.get(id)!.replayOf).every((id) => id !== null)).toBe(true);
    expect(r.received.slice(-2).map((req) => JSON.parse(req.body).event ?? JSON.parse(req.body).type).sort()).toEqual(['Other', 'identify']);
    expect(await c.operations['deliveries.replay']({ allFailed: true })).toMatchObject({ deliveryIds: [], deliveries: 0 });
  });

  it('all failed = failed now: per message and destination only the latest delivery counts; typed-URL replays are side experiments', async () => {
    const r = await receiver();
    const side = await receiver();
    r.fallback = { status: 400 };
    const now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await setup(r.url, { clock: { now: () => now } });
    await post(c, '/v1/batch', { batch: ['Recovered', 'Retrying', 'SideOnly', 'Untouched'].map((event) => ({ type: 'track', userId: 'u', event })) });
    await until(() => (c.deliveries.countByStatus().failed === 4 ? true : undefined));
    const id = (event: string) => c.messages.list().find((m) => m.event === event)!.id;

    r.fallback = { status: 200 };
    const recovered = await c.operations['deliveries.replay']({ messageIds: [id('Recovered')] });
    await until(deliveryStatus(c, recovered.deliveryIds[0]!, 'delivered'));
    r.fallback = { status: 503 }; // retried later (the clock stands still): already being retried
    const retrying = await c.operations['deliveries.replay']({ messageIds: [id('Retrying')] });
    await until(deliveryStatus(c, retrying.deliveryIds[0]!, 'retrying'));
    // Delivered to a typed URL only: the destination itself still never got it.
    const sideTrip = await c.operations['deliveries.replay']({ messageIds: [id('SideOnly')], targetUrl: side.url });
    await until(deliveryStatus(c, sideTrip.deliveryIds[0]!, 'delivered'));
    // A typed-URL replay that fails is not "failed" for the destination either.
    side.fallback = { status: 400 };
    const failedSide = await c.operations['deliveries.replay']({ messageIds: [id('Recovered')], targetUrl: side.url });
    await until(deliveryStatus(c, failedSide.deliveryIds[0]!, 'failed'));

    expect(c.deliveries.failedNow().deliveries.map((d) => d.messageId).sort()).toEqual([id('SideOnly'), id('Untouched')].sort());
    expect(await c.operations['deliveries.replay']({ allFailed: true, dryRun: true })).toMatchObject({ messages: 2, deliveries: 2 });
    r.fallback = { status: 200 };
    const before = r.received.length;
    const all = await c.operations['deliveries.replay']({ allFailed: true });
    expect(all.deliveryIds).toHaveLength(2);
    for (const d of all.deliveryIds) await until(deliveryStatus(c, d, 'delivered'));
    expect(r.received.slice(before).map((req) => JSON.parse(req.body).event).sort()).toEqual(['SideOnly', 'Untouched']);
    // Each replays the destination's own latest delivery, to the destination's webhooks.
    for (const d of all.deliveryIds.map((x) => c.deliveries.get(x)!)) {
      expect(d.targetUrl).toBeNull();
      expect(c.deliveries.get(d.replayOf!)).toMatchObject({ messageId: d.messageId, targetUrl: null, status: 'failed', trigger: 'automatic' });
    }
    // Twice in a row sends nothing twice.
    expect(await c.operations['deliveries.replay']({ allFailed: true })).toMatchObject({ deliveryIds: [], deliveries: 0 });
    expect(r.received.length).toBe(before + 2);
  });

  it('all failed replays a failed delete notification once, kept with its deletion request', async () => {
    const r = await receiver();
    const c = await setup(r.url);
    await post(c, '/v1/track', { userId: 'gone', event: 'E' });
    await r.waitFor(1);
    r.fallback = { status: 400 };
    const deletion = await c.operations['deletions.create']({ userId: 'gone', purge: false });
    await until(deliveryStatus(c, deletion.deliveryIds[0]!, 'failed'));
    r.fallback = { status: 200 };
    const all = await c.operations['deliveries.replay']({ allFailed: true });
    expect(all).toMatchObject({ messages: 0, deliveries: 1 });
    const replayed = await until(deliveryStatus(c, all.deliveryIds[0]!, 'delivered'));
    expect(replayed).toMatchObject({ messageId: null, replayOf: deletion.deliveryIds[0], deletionRequestId: deletion.deletionRequestId });
    expect(JSON.parse(r.received.at(-1)!.body)).toMatchObject({ type: 'delete', userId: 'gone' });
    expect(c.deliveries.forDeletionRequest(deletion.deletionRequestId).map((d) => d.status)).toEqual(['failed', 'delivered']);
    expect(await c.operations['deliveries.replay']({ allFailed: true })).toMatchObject({ deliveries: 0 });
  });

  it('refuses bad replay requests with a clear error', async () => {
    const r = await receiver();
    const c = await setup(r.url);
    await expect(c.operations['deliveries.replay']({})).rejects.toThrow(/exactly one of messageIds, filter or allFailed/);
    await expect(c.operations['deliveries.replay']({ messageIds: [999] })).rejects.toMatchObject({ code: 'unknown_message' });
    await expect(c.operations['deliveries.replay']({ allFailed: true, targetUrl: 'ftp://x' })).rejects.toThrow(/http or https/);
    await post(c, '/v1/batch', { batch: [{ type: 'track', userId: 'u', event: 'A' }, { type: 'track', userId: 'u', event: 'B' }] });
    const ids = c.messages.list().map((m) => m.id);
    await expect(c.operations['deliveries.replay']({ messageIds: ids, body: { a: 1 } })).rejects.toThrow(/exactly one message/);
    await post(c, '/v1/track', { userId: 'u', event: 'iOS' }, { writeKey: 'wk_ios' });
    const iosMessage = c.messages.list()[0]!.id;
    await expect(c.operations['deliveries.replay']({ messageIds: [iosMessage] })).rejects.toMatchObject({ code: 'no_destination' });
    await expect(c.operations['deliveries.replay']({ messageIds: [iosMessage], destinationId: 999 })).rejects.toBeInstanceOf(OperationError);
  });
});

describe('retry now and cancel', () => {
  it('retry now sends a retrying delivery at once; cancel stops it', async () => {
    const r = await receiver();
    r.fallback = { status: 503 };
    const now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await setup(r.url, { clock: { now: () => now } });
    await post(c, '/v1/track', { userId: 'u', event: 'E' });
    const messageId = c.messages.list()[0]!.id;
    const retrying = await until(() => c.deliveries.forMessage(messageId).find((d) => d.status === 'retrying'));
    expect(retrying.nextAttemptAt).toBeGreaterThan(now);
    expect(await c.operations['deliveries.retryNow']({ ids: [retrying.id] })).toEqual({ changed: 1 });
    await r.waitFor(2); // without moving the clock
    await until(() => (c.deliveries.get(retrying.id)!.attemptCount === 2 ? true : undefined));
    expect(await c.operations['deliveries.cancel']({ ids: [retrying.id] })).toEqual({ changed: 1 });
    expect(c.deliveries.get(retrying.id)).toMatchObject({ status: 'cancelled', nextAttemptAt: null });
    expect(await c.operations['deliveries.retryNow']({ ids: [retrying.id] })).toEqual({ changed: 0 }); // a cancelled delivery stays cancelled
    await new Promise((res) => setTimeout(res, 100));
    expect(r.received).toHaveLength(2);
  });
});

describe('deliveries.changed for changes made on request', () => {
  /** Every change the bus announces, in order. */
  function record(c: TestCore) {
    const changes: DeliveryChange[] = [];
    c.bus.on('deliveries.changed', (batch) => changes.push(...batch));
    return { changes, of: (id: number) => changes.filter((x) => x.deliveryId === id) };
  }

  it('announces created deliveries (replay, deletion, test event) as soon as they are stored, before any attempt', async () => {
    const r = await receiver();
    const c = await setup(r.url);
    c.delivery.setHeld(true); // nothing is sent: whatever is announced comes from the creation
    await post(c, '/v1/track', { userId: 'u', event: 'E' });
    const messageId = await until(() => c.messages.list()[0]?.id);
    const destinationId = c.destinations.list()[0]!.id;
    const seen = record(c);

    const replayed = await c.operations['deliveries.replay']({ messageIds: [messageId], targetUrl: `${r.url}/side` });
    expect(seen.of(replayed.deliveryIds[0]!)).toEqual([
      expect.objectContaining({ messageId, destinationId, status: 'pending', attemptCount: 0, trigger: 'replay', targetUrl: `${r.url}/side`, lastErrorCode: null }),
    ]);
    const deletion = await c.operations['deletions.create']({ userId: 'u', purge: false });
    expect(seen.of(deletion.deliveryIds[0]!)).toEqual([expect.objectContaining({ messageId: null, status: 'pending', trigger: 'deletion' })]);
    const test = await c.operations['destinations.sendTest']({ id: destinationId });
    expect(seen.of(test.deliveryId)).toEqual([expect.objectContaining({ messageId: null, status: 'pending', trigger: 'test' })]);
    expect(r.received).toHaveLength(0);
    // A dry run creates nothing and announces nothing.
    const count = seen.changes.length;
    await c.operations['deliveries.replay']({ allFailed: true, dryRun: true });
    await c.operations['deliveries.replay']({ messageIds: [messageId], dryRun: true });
    expect(seen.changes).toHaveLength(count);
  });

  it('announces retry now and cancel with the stored state; a cancelled replay is final for bulk progress', async () => {
    const r = await receiver();
    r.fallback = { status: 503 };
    const now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await setup(r.url, { clock: { now: () => now } });
    const seen = record(c);
    await post(c, '/v1/track', { userId: 'u', event: 'E' });
    const messageId = await until(() => c.messages.list()[0]?.id);
    const retrying = await until(() => c.deliveries.forMessage(messageId).find((d) => d.status === 'retrying'));
    // The store has it before the bus does: wait for the round's own announcement, then look past it.
    await until(() => seen.of(retrying.id).some((change) => change.status === 'retrying'));
    const before = seen.of(retrying.id).length;
    c.delivery.setHeld(true); // retry now moves it; the engine does not take it yet
    expect(await c.operations['deliveries.retryNow']({ ids: [retrying.id] })).toEqual({ changed: 1 });
    expect(seen.of(retrying.id).slice(before)).toEqual([
      expect.objectContaining({ status: 'retrying', attemptCount: 1, nextAttemptAt: now, lastErrorCode: 'http', lastHttpStatus: 503 }),
    ]);
    expect(await c.operations['deliveries.cancel']({ ids: [retrying.id] })).toEqual({ changed: 1 });
    expect(seen.of(retrying.id).at(-1)).toMatchObject({ status: 'cancelled', attemptCount: 1, nextAttemptAt: null, lastErrorCode: null });
    // Cancelling again changes nothing and announces nothing.
    const count = seen.changes.length;
    expect(await c.operations['deliveries.cancel']({ ids: [retrying.id] })).toEqual({ changed: 0 });
    expect(seen.changes).toHaveLength(count);

    // A replay cancelled before its first attempt: announced created, then cancelled (bulk progress: finished).
    const replayed = await c.operations['deliveries.replay']({ messageIds: [messageId] });
    await c.operations['deliveries.cancel']({ ids: replayed.deliveryIds });
    expect(seen.of(replayed.deliveryIds[0]!).map((x) => x.status)).toEqual(['pending', 'cancelled']);
    c.delivery.setHeld(false);
    await new Promise((res) => setTimeout(res, 100));
    expect(r.received).toHaveLength(1);
  });

  it('a delivery cancelled while its round is in flight is never announced in the state the cancel replaced', async () => {
    const r = await receiver();
    r.fallback = { hang: true };
    const now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await setup(r.url, { clock: { now: () => now }, webhookTimeoutMs: 300 });
    const seen = record(c);
    await post(c, '/v1/track', { userId: 'u', event: 'E' });
    await r.waitFor(1); // the round is in flight: the receiver does not answer
    const messageId = c.messages.list()[0]!.id;
    const [delivery] = c.deliveries.forMessage(messageId);
    expect(await c.operations['deliveries.cancel']({ ids: [delivery!.id] })).toEqual({ changed: 1 });
    expect(seen.of(delivery!.id).map((x) => x.status)).toEqual(['cancelled']);
    // The round times out (it would have been "retrying"); its attempt is recorded, the state stays.
    await until(() => (c.deliveries.attempts(delivery!.id).length === 1 ? true : undefined));
    await until(() => (seen.of(delivery!.id).length === 2 ? true : undefined));
    expect(seen.of(delivery!.id).map((x) => x.status)).toEqual(['cancelled', 'cancelled']);
    expect(c.deliveries.get(delivery!.id)!.status).toBe('cancelled');
  });
});

describe('deletion requests', () => {
  it('sends a delete notification to each affected source\'s destination, and can purge', async () => {
    const r = await receiver();
    const now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await setup(r.url, { clock: { now: () => now } });
    await post(c, '/v1/track', { userId: 'gone', event: 'E' });
    await post(c, '/v1/track', { userId: 'kept', event: 'E' });
    await r.waitFor(2);
    const result = await c.operations['deletions.create']({ userId: 'gone', purge: true });
    expect(result.sourceIds).toEqual([c.sources.byName('web')!.id]);
    expect(result.deliveryIds).toHaveLength(1);
    expect(result.purgedMessages).toBe(1);
    const [, , notification] = await r.waitFor(3);
    expect(JSON.parse(notification!.body)).toEqual({ type: 'delete', userId: 'gone', timestamp: '2026-11-21T10:00:00.000Z' });
    expect(notification!.body).toBe('{"type":"delete","userId":"gone","timestamp":"2026-11-21T10:00:00.000Z"}');
    expect(verifyAsSeedReceiver(notification!.body, notification!.headers['x-signature'] as string, 'abc123')).toBe(true);
    const delivery = await until(deliveryStatus(c, result.deliveryIds[0]!, 'delivered'));
    expect(delivery).toMatchObject({ trigger: 'deletion', messageId: null, deletionRequestId: result.deletionRequestId });
    expect(c.deliveries.forDeletionRequest(result.deletionRequestId).map((d) => d.id)).toEqual(result.deliveryIds);
    expect(c.messages.list().map((m) => m.userId)).toEqual(['kept']);
  });

  it("a purge leaves no copy of the user's data: bodies sent, an edited replay (not sent after), receivers' echoes; other sources' rejected messages go too", async () => {
    const MARK = 'gone@secret.example';
    const r = await receiver();
    r.script({ status: 200, body: `{"echo":"${MARK}"}` }); // a receiver that echoes what it got
    const c = await setup(r.url);
    await post(c, '/v1/identify', { userId: 'gone', traits: { email: MARK } });
    await r.waitFor(1);
    await post(c, '/v1/identify', { userId: 'kept', traits: { email: 'kept@example.com' } });
    await r.waitFor(2);
    const [goneMessage] = c.messages.list().filter((m) => m.userId === 'gone');
    await until(() => c.deliveries.forMessage(goneMessage!.id)[0]?.status === 'delivered');
    // Only rejected on the other source (no event): that source holds the user's data too.
    expect((await post({ ingestUrl: c.ingestUrl, writeKey: 'wk_ios' }, '/v1/track', { userId: 'gone', properties: { email: MARK } })).status).toBe(400);
    // An edited replay, queued while deliveries are held: its body is the user's data too.
    c.delivery.setHeld(true);
    const replayed = await c.operations['deliveries.replay']({ messageIds: [goneMessage!.id], body: { type: 'identify', userId: 'gone', traits: { email: MARK, edited: true } } });
    const result = await c.operations['deletions.create']({ userId: 'gone', purge: true });
    expect(result.sourceIds.sort()).toEqual([c.sources.byName('web')!.id, c.sources.byName('ios')!.id].sort());
    expect(result.purgedMessages).toBe(2);
    c.delivery.setHeld(false);
    await until(() => c.deliveries.get(replayed.deliveryIds[0]!)?.status === 'failed');
    await c.delivery.idle();
    expect(r.received.filter((q) => q.body.includes('"edited"'))).toEqual([]); // the replay was not sent
    const db = new DatabaseSync(path.join(c.dataDir, DATABASE_FILE), { readOnly: true });
    try {
      const copies = db
        .prepare(
          `SELECT 'delivery' AS what, id FROM deliveries WHERE body LIKE ?1 OR body_override LIKE ?1
           UNION ALL SELECT 'attempt', id FROM attempts WHERE response_body LIKE ?1 OR request_headers LIKE ?1
           UNION ALL SELECT 'message', id FROM messages WHERE raw LIKE ?1`,
        )
        .all(`%${MARK}%`);
      expect(copies).toEqual([]);
    } finally {
      db.close();
    }
    // The other user's data, and the history of what was sent when, stay.
    expect(c.messages.list().map((m) => m.userId)).toEqual(['kept']);
    const kept = c.deliveries.forMessage(c.messages.list()[0]!.id)[0]!;
    expect(c.deliveries.get(kept.id)!.body).toContain('kept@example.com');
    expect(c.deliveries.get(c.deliveries.forDeletionRequest(result.deletionRequestId)[0]!.id)).toBeDefined();
  });

  it('notifies nothing for a user no source has seen, and refuses an empty userId', async () => {
    const r = await receiver();
    const c = await setup(r.url);
    const result = await c.operations['deletions.create']({ userId: 'nobody', purge: false });
    expect(result).toMatchObject({ sourceIds: [], deliveryIds: [], purgedMessages: 0 });
    await expect(c.operations['deletions.create']({ userId: '', purge: false })).rejects.toMatchObject({ code: 'invalid_deletion_request' });
  });
});

describe('settings changes', () => {
  it('apply to the next attempt: new URL, new secret, new header', async () => {
    const first = await receiver();
    const second = await receiver();
    first.fallback = { status: 500 };
    let now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await setup(first.url, { clock: { now: () => now } });
    await post(c, '/v1/track', { userId: 'u', event: 'E' });
    const messageId = c.messages.list()[0]!.id;
    const retrying = await until(() => c.deliveries.forMessage(messageId).find((d) => d.status === 'retrying'));
    c.saveDestination({
      name: 'hooks',
      sources: ['web'],
      sharedSecret: 'rotated',
      webhooks: [{ url: second.url, headers: { 'X-Team': 'growth' } }],
    });
    now = retrying.nextAttemptAt!;
    c.delivery.kick();
    const [request] = await second.waitFor(1);
    expect(request!.headers['x-team']).toBe('growth');
    expect(request!.headers['x-signature']).toBe(signBody(request!.body, 'rotated'));
    await until(deliveryStatus(c, retrying.id, 'delivered'));
  });

  it('refuses invalid settings with the field named, and a sixth webhook', async () => {
    const r = await receiver();
    const c = await setup(r.url);
    expect(() => c.saveDestination({ name: 'hooks', webhooks: [{ url: 'file:///etc/passwd' }] })).toThrow(
      /webhooks\[0\]\.url: must use http or https/,
    );
    expect(() => c.saveDestination({ name: 'hooks', webhooks: Array(6).fill({ url: r.url }) })).toThrow(/at most 5 webhooks/);
    expect(() => c.saveDestination({ name: 'hooks', sources: ['nope'], webhooks: [{ url: r.url }] })).toThrow(/unknown source/);
  });

  it('disabling a destination holds its retrying deliveries until it is enabled again', async () => {
    const r = await receiver();
    r.script({ status: 503 });
    let now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await setup(r.url, { clock: { now: () => now } });
    await post(c, '/v1/track', { userId: 'u', event: 'E' });
    const messageId = c.messages.list()[0]!.id;
    const retrying = await until(() => c.deliveries.forMessage(messageId).find((d) => d.status === 'retrying'));
    const hooks = { name: 'hooks', sources: ['web'], sharedSecret: 'abc123', webhooks: [{ url: r.url }] };
    c.saveDestination({ ...hooks, enabled: false });
    now = retrying.nextAttemptAt! + 60_000;
    c.delivery.kick();
    await new Promise((res) => setTimeout(res, 150));
    expect(r.received).toHaveLength(1);
    expect(c.deliveries.get(retrying.id)!.status).toBe('retrying');
    c.saveDestination({ ...hooks, enabled: true });
    await until(deliveryStatus(c, retrying.id, 'delivered'));
    expect(r.received).toHaveLength(2);
  });

  it('a disabled destination gets no new deliveries', async () => {
    const r = await receiver();
    const c = await setup(r.url);
    c.saveDestination({ name: 'hooks', enabled: false, sources: ['web'], webhooks: [{ url: r.url }] });
    await post(c, '/v1/track', { userId: 'u', event: 'E' });
    await new Promise((res) => setTimeout(res, 200));
    expect(c.deliveries.forMessage(c.messages.list()[0]!.id)).toEqual([]);
    expect(r.received).toHaveLength(0);
  });
});
