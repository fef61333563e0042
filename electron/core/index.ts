import path from 'node:path';
import { DEFAULT_HOST, DEFAULT_INGEST_PORT, DEFAULT_RECEIVER_PORT } from '../../shared/limits.ts';
import type { ConfigFile } from '../../shared/settings.ts';
import type { ReplayOutcome } from '../../shared/operations.ts';
import { ConfigError } from './config/load-config.ts';
import { BuiltinReceiver } from './receiver/builtin-receiver.ts';
import { Composer } from './composer/composer.ts';
import { AudienceService } from './audiences/audience-service.ts';
import { EventBus } from './bus/event-bus.ts';
import { systemClock, type Clock } from './clock.ts';
import { requestDeletion, type DeletionResult } from './deletions/deletion-requests.ts';
import { DeliveryEngine } from './delivery/delivery-engine.ts';
import { announceStored } from './delivery/announce.ts';
import { replay } from './delivery/replay.ts';
import { sendTestEvent } from './delivery/test-event.ts';
import { deleteDestination, saveDestination, type DestinationSettingsDeps, type SaveOptions } from './destinations/destination-settings.ts';
import { WebhookSender } from './delivery/webhook-sender.ts';
import { StoreWriter } from './writer/store-writer.ts';
import type { Route } from './store/delivery-types.ts';
import { IngestServer } from './ingest/ingest-server.ts';
import { Checkpointer } from './store/checkpointer.ts';
import { DATABASE_FILE, openDatabase } from './store/database.ts';
import { checkpointAutomatically } from './store/connection.ts';
import { lockDataDir } from './store/data-dir-lock.ts';
import { DeliveriesRepo } from './store/deliveries-repo.ts';
import { DeletionRequestsRepo } from './store/deletion-requests-repo.ts';
import { DestinationsRepo, type Destination } from './store/destinations-repo.ts';
import { MessagesRepo } from './store/messages-repo.ts';
import { SourcesRepo } from './store/sources-repo.ts';
import { hookOf } from '../../shared/receiver-hooks.ts';

export interface CoreOptions {
  dataDir: string;
  /** Sources and destinations to create or update on start. */
  config?: ConfigFile;
  host?: string;
  /** 0 picks a free port. */
  ingestPort?: number;
  /** The built-in webhook receiver's port; 0 picks a free one. */
  receiverPort?: number;
  clock?: Clock;
  /** Webhook request timeout (default 5 s, the seed's); tests shorten it. */
  webhookTimeoutMs?: number;
  /** Randomness for retry jitter and the receiver's random mix; tests make it exact. */
  random?: () => number;
  /** The composer's client options (default: the client library's flushAt 20, flushAfter 5 s). */
  composer?: { flushAt?: number; flushAfter?: number };
}

export interface Core {
  readonly bus: EventBus;
  readonly clock: Clock;
  readonly sources: SourcesRepo;
  readonly destinations: DestinationsRepo;
  readonly messages: MessagesRepo;
  readonly deliveries: DeliveriesRepo;
  /** Deletion requests made so far (their notifications are deliveries). */
  readonly deletionRequests: DeletionRequestsRepo;
  readonly delivery: DeliveryEngine;
  readonly ingestUrl: string;
  readonly receiver: BuiltinReceiver;
  /** Sends messages built in the inspector through Sluice's client library. */
  readonly composer: Composer;
  /** Audiences and computed traits: definitions, previews, the sync scheduler (audiences/). */
  readonly audiences: AudienceService;
  readonly dataDir: string;
  /** Replays messages as new deliveries (see delivery/replay.ts); input is validated. */
  replay(request: unknown): Promise<ReplayOutcome>;
  /** Moves retrying deliveries' next attempt to now. */
  retryNow(deliveryIds: number[]): Promise<number>;
  /** Cancels pending or retrying deliveries. */
  cancelDeliveries(deliveryIds: number[]): Promise<number>;
  /** Creates a deletion request: delete notifications to the user's sources' destinations. */
  requestDeletion(request: unknown): Promise<DeletionResult>;
  /**
   * Creates or replaces a destination by name (validated like the config file), or with `id` in the
   * config edits that one, rename included; applies to the next attempt (destinations/destination-settings.ts).
   */
  saveDestination(config: unknown, options?: SaveOptions): Destination;
  /** Deletes a destination, cancelling its pending and retrying deliveries (their count); history stays. */
  deleteDestination(id: number, options?: { dryRun?: boolean }): Promise<number>;
  /** Sends one signed test track message to this destination's webhooks (a delivery with trigger `test`). */
  sendTestEvent(destinationId: number): Promise<{ deliveryId: number; body: string }>;
  /** Stops listening, lets accepted requests finish, commits, checkpoints, closes the store. */
  close(): Promise<void>;
}

/** Builds the whole relay: store, ingestion endpoint, event bus. Hosts (CLI, Electron) wrap this. */
export async function createCore(options: CoreOptions): Promise<Core> {
  const unlock = lockDataDir(options.dataDir); // one Sluice per data folder
  try {
    return await buildCore(options, unlock);
  } catch (error) {
    unlock();
    throw error;
  }
}

async function buildCore(options: CoreOptions, unlock: () => void): Promise<Core> {
  const clock = options.clock ?? systemClock;
  const db = openDatabase(options.dataDir);
  const bus = new EventBus();
  const sources = new SourcesRepo(db);
  const destinations = new DestinationsRepo(db, sources);
  const messages = new MessagesRepo(db);
  const deliveries = new DeliveriesRepo(db);
  const deletionRequests = new DeletionRequestsRepo(db);

  const now = clock.now();
  if (options.config) {
    const clashes = options.config.sources.flatMap((source, i) => {
      const holder = sources.byWriteKey(source.writeKey);
      return holder && holder.name !== source.name
        ? [`sources[${i}].writeKey: already the key of the stored source "${holder.name}"; rename that source in the config or use another key`]
        : [];
    });
    if (clashes.length > 0) {
      db.close();
      throw new ConfigError('--config', clashes);
    }
    for (const source of options.config.sources) sources.upsert(source, now);
    for (const destination of options.config.destinations) destinations.upsert(destination, now);
  }
  sources.ensureDefault(now);

  const checkpointer = new Checkpointer(path.join(options.dataDir, DATABASE_FILE), (error) => {
    console.error(`sluice: ${error.message}; SQLite's automatic checkpoints take over`);
    checkpointAutomatically(db);
    writer.useAutomaticCheckpoints();
  });
  const writer = new StoreWriter(
    path.join(options.dataDir, DATABASE_FILE),
    (committed) => {
      bus.emit('messages.stored', committed);
      if (committed.some((request) => request.deliveries > 0)) delivery.kick();
    },
    // A writer that died between a commit and its answer left due deliveries nobody announced.
    () => delivery.kick(),
  );
  writer.setWriteKeys(sources.list().map((s) => [s.writeKey, s.id]));
  writer.setRoutes(routesOf(destinations));
  const sender = new WebhookSender({ now: () => clock.now(), ...(options.webhookTimeoutMs ? { timeoutMs: options.webhookTimeoutMs } : {}) });
  const delivery = new DeliveryEngine({
    deliveries,
    messages,
    destinations,
    writer,
    bus,
    clock,
    sender,
    ...(options.random ? { random: options.random } : {}),
  });
  const ingest = new IngestServer({
    sources,
    writer,
    clock,
    host: options.host ?? DEFAULT_HOST,
    port: options.ingestPort ?? DEFAULT_INGEST_PORT,
  });
  const receiver = new BuiltinReceiver({
    host: options.host ?? DEFAULT_HOST,
    port: options.receiverPort ?? DEFAULT_RECEIVER_PORT,
    bus,
    clock,
    secretsFor: (hook) =>
      destinations
        .list()
        .filter((d) => d.sharedSecret && d.webhooks.some((w) => hookOf(w.url, receiver.url) === hook))
        .map((d) => d.sharedSecret!),
    allSecrets: () => [...new Set(destinations.list().flatMap((d) => (d.sharedSecret ? [d.sharedSecret] : [])))],
    ...(options.random ? { random: options.random } : {}),
  });
  try {
    await listenOn(() => ingest.listen(), 'ingest', `port ${options.ingestPort ?? DEFAULT_INGEST_PORT} is in use; is another Sluice running? Pick another with --ingest-port (0 = any free port)`);
    await listenOn(() => receiver.listen(), 'receiver', `port ${options.receiverPort ?? DEFAULT_RECEIVER_PORT} (the built-in receiver) is in use; pick another with --receiver-port (0 = any free port)`);
  } catch (error) {
    await ingest.close();
    await writer.close();
    await sender.close();
    await checkpointer.close();
    db.close();
    throw error;
  }

  const composer = new Composer(ingest.url, sources, bus, options.composer);
  delivery.kick(); // resume what was pending or retrying when Sluice last stopped
  // Deliveries created, moved or cancelled on request are announced as stored (delivery/announce.ts),
  // like the engine's attempts: new rows show at once and a cancelled one counts as finished.
  const announce = (ids: readonly number[]) => announceStored(deliveries, bus, ids);
  /** After deliveries were created or moved on request: announce them as stored, and look for due ones. */
  const written = <T,>(ids: readonly number[], result: T): T => {
    announce(ids);
    delivery.kick();
    return result;
  };

  const audiences = new AudienceService({
    db,
    writer,
    sources,
    bus,
    clock,
    onDeliveries: () => delivery.kick(),
    ...(options.random ? { random: options.random } : {}),
  });

  const destinationSettings: DestinationSettingsDeps = {
    sources,
    destinations,
    writer,
    clock,
    applied() {
      writer.setRoutes(routesOf(destinations));
      bus.emit('settings.changed', null);
      delivery.kick();
    },
    cancelDeliveries: (ids) => core.cancelDeliveries(ids),
  };

  let closing: Promise<void> | undefined;
  let replays: Promise<unknown> = Promise.resolve();
  const core: Core = {
    bus,
    clock,
    sources,
    destinations,
    messages,
    deliveries,
    deletionRequests,
    delivery,
    dataDir: options.dataDir,
    ingestUrl: ingest.url,
    receiver,
    composer,
    audiences,
    replay: (request) => {
      // One replay at a time: each plans from the store (e.g. "what is failed now") and writes
      // later, so two planned together would both replay the same deliveries.
      const run = replays.then(() => replay({ messages, deliveries, destinations, writer, clock }, request));
      replays = run.catch(() => undefined);
      return run.then((outcome) => written(outcome.deliveryIds, outcome));
    },
    retryNow: (deliveryIds) =>
      writer
        .write({ op: 'retryNow', deliveryIds, now: clock.now() })
        .then((outcome) => written(outcome.changed > 0 ? deliveryIds : [], outcome.changed)),
    cancelDeliveries: (deliveryIds) => {
      // Out of the ready queue first: none of them may start while the cancel is being written.
      // (Should the write fail, they are still due in the store and the next refill reads them.)
      delivery.forget(deliveryIds);
      return writer.write({ op: 'cancel', deliveryIds, now: clock.now() }).then(
        (outcome) => {
          if (outcome.changed > 0) announce(deliveryIds);
          return outcome.changed;
        },
        (error: unknown) => {
          delivery.kick(); // not cancelled: they are still due, read them again
          throw error;
        },
      );
    },
    requestDeletion: (request) => {
      const purged = delivery.purging(); // queued deliveries must not send purged messages
      return requestDeletion({ messages, destinations, writer, clock }, request)
        .finally(purged)
        .then((result) => written(result.deliveryIds, result));
    },
    sendTestEvent: (destinationId) =>
      sendTestEvent({ destinations, writer, clock }, destinationId).then((result) => written([result.deliveryId], result)),
    saveDestination: (config, saveOptions) => saveDestination(destinationSettings, config, saveOptions),
    deleteDestination: (id, deleteOptions) => deleteDestination(destinationSettings, id, deleteOptions),
    close() {
      closing ??= (async () => {
        await composer.close(); // its queue goes into the store before ingestion stops
        await audiences.close(); // a sync under way commits
        await ingest.close();
        await receiver.close();
        await delivery.close();
        await writer.close();
        await sender.close();
        await checkpointer.close();
        db.close();
        unlock();
      })();
      return closing;
    },
  };
  if (options.config?.audiences?.length) {
    try {
      await audiences.applyConfig(options.config.audiences);
    } catch (error) {
      await core.close();
      throw new ConfigError('--config', [(error as Error).message]);
    }
  }
  audiences.start();
  return core;
}

/** Which enabled destinations each source's messages go to. */
function routesOf(destinations: DestinationsRepo): Route[] {
  const bySource = new Map<number, number[]>();
  for (const destination of destinations.list()) {
    if (!destination.enabled) continue;
    for (const sourceId of destination.sourceIds) bySource.set(sourceId, [...(bySource.get(sourceId) ?? []), destination.id]);
  }
  return [...bySource].map(([sourceId, destinationIds]) => ({ sourceId, destinationIds }));
}

/** A listening port that is taken: which one, so a host can move that one alone (electron/main/core-ports.ts). */
export type PortInUseError = Error & { code: 'EADDRINUSE'; port: 'ingest' | 'receiver' };

/** Listens, turning "address in use" into a sentence with the fix. */
async function listenOn(listen: () => Promise<unknown>, port: PortInUseError['port'], inUse: string): Promise<void> {
  try {
    await listen();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw Object.assign(new Error(inUse), { code: 'EADDRINUSE', port });
    throw error;
  }
}
