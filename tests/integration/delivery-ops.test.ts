// Replay, retry now, cancel, deletion requests and settings changes, against real receivers.
import { afterEach, describe, expect, it } from 'vitest';
import { signBody, verifyAsSeedReceiver } from '../../shared/signature.ts';
import { OperationError } from '../../electron/core/operation-error.ts';
import { post, startCore, type TestCore } from '../helpers/core.ts';
import { until } from '../helpers/wait.ts';
import { receiversClosedAfterEach } from '../helpers/receiver.ts';

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
    const { deliveryIds } = await c.replay({ messageIds: [messageId] });
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
    await c.replay({ messageIds: [messageId], targetUrl: `${local.url}/hook`, body: edited });
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
    const filtered = await c.replay({ filter: { userId: 'a', type: 'track' } });
    expect(filtered.deliveryIds).toHaveLength(1);
    await until(deliveryStatus(c, filtered.deliveryIds[0]!, 'delivered'));
    expect(JSON.parse(r.received.at(-1)!.body)).toMatchObject({ event: 'Keep' });

    const all = await c.replay({ allFailed: true });
    expect(all.deliveryIds).toHaveLength(3);
    for (const id of all.deliveryIds) await until(deliveryStatus(c, id, 'delivered'));
    expect(all.deliveryIds.map((id) => c.deliveries.get(id)!.replayOf).every((id) => id !== null)).toBe(true);
  });

  it('refuses bad replay requests with a clear error', async () => {
    const r = await receiver();
    const c = await setup(r.url);
    await expect(c.replay({})).rejects.toThrow(/exactly one of messageIds, filter or allFailed/);
    await expect(c.replay({ messageIds: [999] })).rejects.toMatchObject({ code: 'unknown_message' });
    await expect(c.replay({ allFailed: true, targetUrl: 'ftp://x' })).rejects.toThrow(/http or https/);
    await post(c, '/v1/batch', { batch: [{ type: 'track', userId: 'u', event: 'A' }, { type: 'track', userId: 'u', event: 'B' }] });
    const ids = c.messages.list().map((m) => m.id);
    await expect(c.replay({ messageIds: ids, body: { a: 1 } })).rejects.toThrow(/exactly one message/);
    await post(c, '/v1/track', { userId: 'u', event: 'iOS' }, { writeKey: 'wk_ios' });
    const iosMessage = c.messages.list()[0]!.id;
    await expect(c.replay({ messageIds: [iosMessage] })).rejects.toMatchObject({ code: 'no_destination' });
    await expect(c.replay({ messageIds: [iosMessage], destinationId: 999 })).rejects.toBeInstanceOf(OperationError);
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
    expect(await c.retryNow([retrying.id])).toBe(1);
    await r.waitFor(2); // without moving the clock
    await until(() => (c.deliveries.get(retrying.id)!.attemptCount === 2 ? true : undefined));
    expect(await c.cancelDeliveries([retrying.id])).toBe(1);
    expect(c.deliveries.get(retrying.id)).toMatchObject({ status: 'cancelled', nextAttemptAt: null });
    expect(await c.retryNow([retrying.id])).toBe(0); // a cancelled delivery stays cancelled
    await new Promise((res) => setTimeout(res, 100));
    expect(r.received).toHaveLength(2);
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
    const result = await c.requestDeletion({ userId: 'gone', purge: true });
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

  it('notifies nothing for a user no source has seen, and refuses an empty userId', async () => {
    const r = await receiver();
    const c = await setup(r.url);
    const result = await c.requestDeletion({ userId: 'nobody' });
    expect(result).toMatchObject({ sourceIds: [], deliveryIds: [], purgedMessages: 0 });
    await expect(c.requestDeletion({ userId: '' })).rejects.toMatchObject({ code: 'invalid_deletion_request' });
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
