// Queued deliveries' bodies are built ahead, in the store's writer thread (delivery/prepare-bodies.ts).
// A body built ahead must never be sent when it no longer matches what the round would build: after
// a settings change (secret, body shape) or a purge of its message.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../../../electron/core/signature/signature.ts';
import { EventBus } from '../../../electron/core/bus/event-bus.ts';
import { DeliveryEngine } from '../../../electron/core/delivery/delivery-engine.ts';
import { type DeliveryChange } from '../../../electron/core/bus/event-bus.ts';
import { WebhookSender } from '../../../electron/core/delivery/webhook-sender.ts';
import { StoreWriter } from '../../../electron/core/writer/store-writer.ts';
import type { DestinationConfig } from '../../../shared/settings.ts';
import { DATABASE_FILE, openDatabase } from '../../../electron/core/store/database.ts';
import { DeliveriesRepo } from '../../../electron/core/store/deliveries-repo.ts';
import { DestinationsRepo } from '../../../electron/core/store/destinations-repo.ts';
import { MessagesRepo } from '../../../electron/core/store/messages-repo.ts';
import { SourcesRepo } from '../../../electron/core/store/sources-repo.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

/** The destination of these tests, posting to `hookUrl`, with `change` applied. */
function hooks(hookUrl: string, change: Partial<DestinationConfig> = {}): DestinationConfig {
  return {
    name: 'hooks',
    enabled: true,
    sources: ['web'],
    sharedSecret: 'abc123',
    webhooks: [{ url: hookUrl, headers: {} }],
    options: { bodyShape: 'seed', concurrency: 4 },
    ...change,
  };
}

async function setup(hookUrl: string) {
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      // One at a time: while the first request is held, the others wait in the ready queue with
      // their bodies built.
      destinations: [hooks(hookUrl, { options: { bodyShape: 'seed', concurrency: 1 } })],
    },
  });
  core.writeKey = 'wk_web';
  return core;
}

/** Long enough for the writer to have built the queued bodies (it takes a few ms). */
const bodiesBuilt = () => new Promise((resolve) => setTimeout(resolve, 300));

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('bodies built ahead', () => {
  it('are not sent after the secret and body shape changed: the queued deliveries go out as the new settings say', async () => {
    const r = await receiver();
    const first = gate();
    r.script({ status: 200, after: first.opened });
    const c = await setup(r.url);
    await post(c, '/v1/batch', { batch: ['A', 'B', 'C'].map((event) => ({ type: 'track', userId: 'u', event })) });
    await r.waitFor(1);
    await bodiesBuilt();
    c.saveDestination(hooks(r.url, { sharedSecret: 'rotated', options: { bodyShape: 'full', concurrency: 1 } }));
    first.open();
    const [held, ...queued] = await r.waitFor(3);
    expect(held!.headers['x-signature']).toBe(signBody(held!.body, 'abc123'));
    expect(queued).toHaveLength(2);
    for (const request of queued) {
      expect(request.headers['x-signature']).toBe(signBody(request.body, 'rotated'));
      // The whole message (bodyShape "full") carries its messageId; the seed body does not.
      expect(JSON.parse(request.body)).toHaveProperty('messageId');
    }
  });

  /**
   * Bob's message held at the receiver, alice's three (the newest rows) queued behind it with their
   * bodies built; `first.open()` lets bob's request be answered.
   */
  async function aliceQueuedBehindBob() {
    const r = await receiver();
    const first = gate();
    r.script({ status: 200, after: first.opened });
    const c = await setup(r.url);
    await post(c, '/v1/track', { userId: 'bob', event: 'Kept' });
    await r.waitFor(1);
    await post(c, '/v1/batch', { batch: ['A', 'B', 'C'].map((event) => ({ type: 'track', userId: 'alice', event })) });
    await bodiesBuilt();
    const aliceIds = c.messages.list().filter((m) => m.userId === 'alice').map((m) => m.id);
    const aliceDeliveries = aliceIds.flatMap((id) => c.deliveries.forMessage(id).map((d) => d.id));
    expect(aliceDeliveries).toHaveLength(3);
    return { r, c, first, aliceIds, aliceDeliveries };
  }

  it('are not sent after their message was purged: those deliveries fail without sending', async () => {
    const { r, c, first, aliceDeliveries } = await aliceQueuedBehindBob();
    const deletion = await c.operations['deletions.create']({ userId: 'alice', purge: true });
    expect(deletion.purgedMessages).toBe(3);
    first.open();
    await until(() => aliceDeliveries.every((id) => c.deliveries.get(id)?.status === 'failed'));
    await c.delivery.idle();
    const tracks = r.received.map((request) => JSON.parse(request.body) as { type: string; userId: string }).filter((b) => b.type === 'track');
    expect(tracks.map((b) => b.userId)).toEqual(['bob']);
    for (const id of aliceDeliveries) expect(c.deliveries.get(id)?.lastError).toMatch(/no longer stored/);
  });

  it("are not sent as the new messages that took a purged message's id: each new message goes out once, as itself", async () => {
    const { r, c, first, aliceIds, aliceDeliveries } = await aliceQueuedBehindBob();
    await c.operations['deletions.create']({ userId: 'alice', purge: true });
    // Alice's were the newest rows: the next messages take their ids (the table has no AUTOINCREMENT).
    await post(c, '/v1/batch', { batch: ['D', 'E', 'F'].map((event) => ({ type: 'track', userId: 'carol', event })) });
    const carolIds = c.messages.list().filter((m) => m.userId === 'carol').map((m) => m.id);
    expect(carolIds.sort()).toEqual([...aliceIds].sort());
    const announced: DeliveryChange[] = [];
    c.bus.on('deliveries.changed', (changes) => announced.push(...changes));
    first.open();
    await until(() => aliceDeliveries.every((id) => c.deliveries.get(id)?.status === 'failed'));
    await until(() => carolIds.every((id) => c.deliveries.forMessage(id)[0]?.status === 'delivered'));
    await c.delivery.idle();
    const tracks = r.received.map((request) => JSON.parse(request.body) as { type: string; userId: string; event: string }).filter((b) => b.type === 'track');
    expect(tracks.map((b) => `${b.userId} ${b.event}`).sort()).toEqual(['bob Kept', 'carol D', 'carol E', 'carol F']);
    // Alice's failures are announced as of no message: not attached to carol's rows, which have her ids.
    const aliceFailures = announced.filter((change) => aliceDeliveries.includes(change.deliveryId));
    expect(aliceFailures.map((change) => [change.status, change.messageId])).toEqual(aliceDeliveries.map(() => ['failed', null]));
  });
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * An engine on a real store, writer and sender, whose writer holds its answers to body requests
 * until the test lets them go: the writer can be busy for a while (a big group commit, an audience
 * sync), and rounds wait for their bodies meanwhile.
 */
async function engineWithSlowBodies(hookUrl: string) {
  const dir = tempDir();
  const db = openDatabase(dir);
  const sources = new SourcesRepo(db);
  const destinations = new DestinationsRepo(db, sources);
  sources.upsert({ name: 'web', writeKey: 'wk_web', kind: 'web' }, 0);
  const config = (change: Partial<DestinationConfig>) => hooks(hookUrl, change);
  const destination = destinations.upsert(config({}), 0);
  const pipeline = new StoreWriter(path.join(dir, DATABASE_FILE), () => {});
  pipeline.setWriteKeys([['wk_web', 1]]);
  pipeline.setRoutes([{ sourceId: 1, destinationIds: [destination.id] }]);
  const message = { type: 'track', userId: 'u', event: 'Held', timestamp: '2026-11-22T10:00:00.000Z' };
  await pipeline.submit({ body: Buffer.from(JSON.stringify(message)), sourceId: 1, endpoint: 'track', singleType: 'track', receivedAt: Date.now(), ip: null });
  const asked = gate();
  const answer = gate();
  const writer = Object.create(pipeline) as StoreWriter;
  writer.prepareBodies = (request) => {
    asked.open();
    return answer.opened.then(() => pipeline.prepareBodies(request));
  };
  writer.commitResults = (results) => pipeline.commitResults(results);
  const sender = new WebhookSender();
  const deliveries = new DeliveriesRepo(db);
  const engine = new DeliveryEngine({ deliveries, messages: new MessagesRepo(db), destinations, writer, bus: new EventBus(), clock: { now: () => Date.now() }, sender, instanceId: 'sl_test' });
  cleanups.push(async () => {
    await engine.close();
    await sender.close();
    await pipeline.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const [delivery] = deliveries.dueFor(destination.id, Date.now(), 10);
  return { engine, destinations, deliveries, id: destination.id, config, deliveryId: delivery!.id, asked: asked.opened, answer: answer.open };
}

describe('a round waiting for the writer to build its body', () => {
  it('sends with the settings saved meanwhile: the new secret and body shape', async () => {
    const r = await receiver();
    const t = await engineWithSlowBodies(r.url);
    t.engine.kick();
    await t.asked; // the round has its delivery and waits for the body
    t.destinations.update(t.id, t.config({ sharedSecret: 'rotated', options: { bodyShape: 'full', concurrency: 4 } }), Date.now());
    t.answer();
    const [request] = await r.waitFor(1);
    expect(request!.headers['x-signature']).toBe(signBody(request!.body, 'rotated'));
    expect(JSON.parse(request!.body)).toHaveProperty('messageId');
    await until(() => t.deliveries.get(t.deliveryId)?.status === 'delivered');
  });

  it('sends nothing once the destination was disabled meanwhile, and delivers after it is enabled again', async () => {
    const r = await receiver();
    const t = await engineWithSlowBodies(r.url);
    t.engine.kick();
    await t.asked;
    t.destinations.update(t.id, t.config({ enabled: false }), Date.now());
    t.answer();
    await t.engine.idle();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toHaveLength(0);
    expect(t.deliveries.get(t.deliveryId)).toMatchObject({ status: 'pending', attemptCount: 0 });
    t.destinations.update(t.id, t.config({ enabled: true }), Date.now());
    t.engine.kick(); // what saving settings does (core's destinationSettings.applied)
    await r.waitFor(1);
    await until(() => t.deliveries.get(t.deliveryId)?.status === 'delivered');
  });
});
