// A commit's new deliveries are handed to the delivery engine with the commit's answer
// (CommittedRequest.due → DeliveryEngine.added). A reset holds the engine while the writer removes every
// delivery, and a request the writer committed just before the reset (in the same writer turn) is
// answered while the engine is held. The reset gives its delivery ids out again: queued, a stale one
// would be taken as whichever new delivery took its id, and sent by the old delivery's destination.
// Whether the two land in one writer turn cannot be forced from outside, so this test drives the engine
// where the race lives: it holds the engine as a reset does (whileRemoving), commits a request through
// the real writer (whose answer reaches added() while held, as in the core's wiring), resets the store,
// stores new messages that take the removed ids, and lets the engine go. Real SQLite store, writer
// thread, webhook sender and loopback receivers.
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
 * An engine on a real store and writer, wired as the core wires them (each commit's answer is handed
 * over): source "web" goes to destination "hooks" (`webUrl`), source "app" to "other" (`appUrl`).
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
  const writer = new StoreWriter(path.join(dir, DATABASE_FILE), (committed) => engine.added(committed));
  writer.setWriteKeys([['wk_web', web.id], ['wk_app', app.id]]);
  writer.setRoutes([{ sourceId: web.id, destinationIds: [hooks.id] }, { sourceId: app.id, destinationIds: [other.id] }]);
  const sender = new WebhookSender();
  const deliveries = new DeliveriesRepo(db);
  const engine: DeliveryEngine = new DeliveryEngine({
    deliveries, messages: new MessagesRepo(db), destinations, writer, bus: new EventBus(), clock: { now: () => Date.now() }, sender, instanceId: 'sl_test',
  });
  cleanups.push(async () => {
    await engine.close();
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
  return { engine, writer, deliveries, hooks, ingest };
}

const events = (received: { body: string }[]) => received.map((request) => JSON.parse(request.body).event as string);

describe('a commit answered while a reset holds the engine', () => {
  it('is not queued: after the reset, each new delivery goes once to its own destination, and nothing the reset removed is sent', async () => {
    const webReceiver = await receiver();
    const appReceiver = await receiver();
    const { engine, writer, deliveries, hooks, ingest } = engineOnStore(webReceiver.url, appReceiver.url);
    engine.kick(); // as the core does at start: the first read finds nothing due
    await ingest('web', ['A']);
    await webReceiver.waitFor(1);
    await until(() => deliveries.countByStatus().delivered === 1, 10_000, "A's delivery recorded");
    await engine.idle();
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
