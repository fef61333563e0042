// A commit's new deliveries are handed to the delivery engine with the commit's answer
// (CommittedRequest.due → DeliveryEngine.added). The engine refuses the hand-over while it is held (a
// reset) or closed. A reset holds the engine while the writer removes every delivery, and a request the
// writer committed just before the reset (in the same writer turn) is answered while the engine is held.
// The reset gives its delivery ids out again: queued, a stale one would be taken as whichever new
// delivery took its id, and sent by the old delivery's destination. Whether the two land in one writer
// turn cannot be forced from outside, so the first test drives the engine where the race lives: it holds
// the engine as a reset does (whileRemoving), commits a request through the real writer (whose answer
// reaches added() while held, as in the core's wiring), resets the store, stores new messages that take
// the removed ids, and lets the engine go. The second commits a request after the engine closed (at
// shutdown the writer outlives the engine, and a request still being stored is answered after): nothing
// is built or sent for it, and it is still pending for the next start. Real SQLite store, writer thread,
// webhook sender and loopback receivers.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../../electron/core/bus/event-bus.ts';
import { DeliveryEngine } from '../../../electron/core/delivery/delivery-engine.ts';
import { WebhookSender } from '../../../electron/core/delivery/webhook-sender.ts';
import { DATABASE_FILE, openDatabase } from '../../../electron/core/store/database.ts';
import { DeliveriesRepo } from '../../../electron/core/store/deliveries-repo.ts';
import { DestinationsRepo } from '../../../electron/core/store/destinations-repo.ts';
import { MessagesRepo } from '../../../electron/core/store/messages-repo.ts';
import { SourcesRepo } from '../../../electron/core/store/sources-repo.ts';
import type { CommittedRequest } from '../../../electron/core/store/stored-request.ts';
import { StoreWriter } from '../../../electron/core/writer/store-writer.ts';
import { tempDir } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * The store's real writer, counting the bodies an engine asks it to build ahead (body-prefetch.ts): a
 * delivery is queued with its body asked for at once, so a closed engine that asks is queuing.
 */
class WatchedWriter extends StoreWriter {
  bodiesAsked = 0;

  override prepareBodies(request: Parameters<StoreWriter['prepareBodies']>[0]): ReturnType<StoreWriter['prepareBodies']> {
    this.bodiesAsked++;
    return super.prepareBodies(request);
  }
}

/**
 * An engine on a real store and writer, wired as the core wires them (each commit's answer is handed
 * over): source "web" goes to destination "hooks" (`webUrl`), source "app" to "other" (`appUrl`).
 * `restart()` starts another engine on the same store (as the next start of Sluice would), and the
 * writer's answers go to it from then on.
 */
function engineOnStore(webUrl: string, appUrl: string) {
  const dir = tempDir();
  const db = openDatabase(dir);
  const sources = new SourcesRepo(db);
  const destinations = new DestinationsRepo(db, sources);
  const web = sources.upsert({ name: 'web', writeKey: 'wk_web', kind: 'web' }, 0);
  const app = sources.upsert({ name: 'app', writeKey: 'wk_app', kind: 'web' }, 0);
  // One request at a time per destination: each receiver sees its deliveries in the order they started.
  const destination = (name: string, source: string, url: string) =>
    destinations.upsert({ name, enabled: true, sources: [source], webhooks: [{ url, headers: {} }], options: { bodyShape: 'seed', concurrency: 1 } }, 0);
  const hooks = destination('hooks', 'web', webUrl);
  const other = destination('other', 'app', appUrl);
  const writer = new WatchedWriter(path.join(dir, DATABASE_FILE), (committed) => current.added(committed));
  writer.setWriteKeys([['wk_web', web.id], ['wk_app', app.id]]);
  writer.setRoutes([{ sourceId: web.id, destinationIds: [hooks.id] }, { sourceId: app.id, destinationIds: [other.id] }]);
  const sender = new WebhookSender();
  const deliveries = new DeliveriesRepo(db);
  const engines: DeliveryEngine[] = [];
  const restart = (): DeliveryEngine => {
    current = new DeliveryEngine({
      deliveries, messages: new MessagesRepo(db), destinations, writer, bus: new EventBus(), clock: { now: () => Date.now() }, sender, instanceId: 'sl_test',
    });
    engines.push(current);
    return current;
  };
  let current: DeliveryEngine;
  const engine = restart();
  cleanups.push(async () => {
    for (const started of engines) await started.close();
    await sender.close();
    await writer.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  /** Stores a batch of the source's as ingestion does; resolves after its answer was handed to the engine (onCommitted runs first). */
  const ingest = (source: 'web' | 'app', events: string[]): Promise<CommittedRequest> =>
    writer.submit({
      body: Buffer.from(JSON.stringify({ batch: events.map((event) => ({ type: 'track', userId: 'u', event })) })),
      sourceId: (source === 'web' ? web : app).id, endpoint: 'batch', singleType: null, receivedAt: Date.now(), ip: null,
    });
  return { engine, restart, writer, deliveries, hooks, ingest };
}

/** Two destinations on a store, and A (to "hooks") delivered with the engine idle after it. */
async function afterA() {
  const webReceiver = await receiver();
  const appReceiver = await receiver();
  const parts = engineOnStore(webReceiver.url, appReceiver.url);
  parts.engine.kick(); // as the core does at start: the first read finds nothing due
  await parts.ingest('web', ['A']);
  await webReceiver.waitFor(1);
  await until(() => parts.deliveries.countByStatus().delivered === 1, 10_000, "A's delivery recorded");
  await parts.engine.idle();
  return { ...parts, webReceiver, appReceiver };
}

const events = (received: { body: string }[]) => received.map((request) => JSON.parse(request.body).event as string);

describe('a commit answered while a reset holds the engine', () => {
  it('is not queued: after the reset, each new delivery goes once to its own destination, and nothing the reset removed is sent', async () => {
    const { webReceiver, appReceiver, engine, writer, deliveries, hooks, ingest } = await afterA();
    // The engine now holds every due delivery of both destinations (none): a hand-over is queued as it is.

    let stale: CommittedRequest | undefined;
    await engine.whileRemoving(async () => {
      // Committed before the reset, answered while the engine is held: its hand-over must be refused.
      stale = await ingest('web', ['B']);
      await writer.write({ op: 'reset', now: Date.now() });
      // Ids start again from 1: X and Y's deliveries (to "other") take the ids of A's and B's.
      await ingest('app', ['X', 'Y']);
      await ingest('web', ['C']);
    });

    const staleId = stale!.due![0]!;
    expect(stale!.due![2]).toBe(hooks.id);
    // The reset gave B's delivery id to a delivery of the other destination.
    expect(deliveries.get(staleId)?.destinationId).not.toBe(hooks.id);

    await until(() => deliveries.countByStatus().delivered === 3, 10_000, "X's, Y's and C's deliveries recorded");
    await engine.idle();
    // A stale hand-over would have been taken as Y's delivery and sent to hooks' receiver, never to other's.
    expect(events(webReceiver.received)).toEqual(['A', 'C']);
    expect(events(appReceiver.received)).toEqual(['X', 'Y']);
  });
});

describe('a commit answered after the engine closed', () => {
  it('is not queued: no body is built and nothing is sent for it, and it stays pending until the next start sends it, once', async () => {
    const { webReceiver, appReceiver, engine, restart, writer, deliveries, ingest } = await afterA();
    // A's body was asked of the writer (the count sees a queued delivery). The engine now holds every due
    // delivery of hooks: were it open, the next hand-over would be queued as it is, its body asked for.
    expect(writer.bodiesAsked).toBeGreaterThan(0);

    await engine.close();
    const asked = writer.bodiesAsked;
    // Stored after the close, answered to the closed engine (onCommitted runs before this resolves).
    const late = await ingest('web', ['B']);
    // A pump the hand-over started, and its rounds, would be waited for here.
    await engine.idle();
    expect(writer.bodiesAsked).toBe(asked);
    expect(events(webReceiver.received)).toEqual(['A']);
    const lateId = late.due![0]!;
    expect(deliveries.get(lateId)).toMatchObject({ status: 'pending', attemptCount: 0 });

    // The next start reads it from the store and sends it.
    const next = restart();
    next.kick();
    await webReceiver.waitFor(2);
    await until(() => deliveries.countByStatus().delivered === 2, 10_000, "B's delivery recorded");
    await next.idle();
    expect(events(webReceiver.received)).toEqual(['A', 'B']);
    expect(deliveries.get(lateId)).toMatchObject({ status: 'delivered', attemptCount: 1 });
    expect(events(appReceiver.received)).toEqual([]);
  });
});
