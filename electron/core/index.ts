import { DEFAULT_HOST, DEFAULT_INGEST_PORT, DEFAULT_RECEIVER_PORT } from '../../shared/limits.ts';
import type { ConfigFile } from '../../shared/settings.ts';
import { ConfigError } from './config/load-config.ts';
import { configProblems, storeConfig, type Declared } from './config/apply-config.ts';
import { BuiltinReceiver, type SigningSecrets } from './receiver/builtin-receiver.ts';
import { adoptReceiverUrls } from './destinations/receiver-urls.ts';
import { Composer } from './composer/composer.ts';
import { AudienceService } from './audiences/audience-service.ts';
import { EventBus } from './bus/event-bus.ts';
import { systemClock, type Clock } from './clock.ts';
import { createOperations, type CoreCommands, type CoreParts, type Operations } from './api/operations/index.ts';
import { DeliveryEngine } from './delivery/delivery-engine.ts';
import { kindOf } from './delivery/kinds/index.ts';
import { WebhookSender } from './delivery/webhook-sender.ts';
import { StoreWriter } from './writer/store-writer.ts';
import type { Route } from './store/delivery-types.ts';
import type { CommittedRequest } from './store/stored-request.ts';
import { IngestServer } from './ingest/ingest-server.ts';
import { IngestFaults } from './faults/ingest-faults.ts';
import { Checkpointer } from './store/checkpointer.ts';
import { MessageCounter } from './store/message-counter.ts';
import { StoreReader } from './queries/store-reader.ts';
import { MessageHeads } from './store/message-heads.ts';
import { MessageTexts } from './store/message-texts.ts';
import { databaseFile, openDatabase } from './store/database.ts';
import { instanceId } from './store/instance-id.ts';
import { TestQueries } from './queries/test-queries.ts';
import { checkpointAutomatically } from './store/connection.ts';
import { lockDataDir } from './store/data-dir-lock.ts';
import { writingDataDir } from './store/data-dir-errors.ts';
import { wasCheckedWhole } from './store/integrity.ts';
import type { StoreCheckTiming } from './store-check/store-check.ts';
import { StoreHealthTracker } from './store-check/store-health.ts';
import { DeliveriesRepo } from './store/deliveries-repo.ts';
import { DeletionRequestsRepo } from './store/deletion-requests-repo.ts';
import { DestinationsRepo, type Destination } from './store/destinations-repo.ts';
import { MessagesRepo } from './store/messages-repo.ts';
import { SourcesRepo } from './store/sources-repo.ts';
import { AudiencesRepo } from './store/audiences-repo.ts';
import { hookOf, resolveHookUrl } from '../../shared/receiver-hooks.ts';
import { TrackingPlans } from './plans/plan-registry.ts';
import { Rechecks } from './plans/recheck.ts';
import { BulkRetries } from './delivery/bulk-retry.ts';
import { IssuesRepo } from './store/issues-repo.ts';
import { PlanStatsRepo } from './store/plan-stats.ts';
import { Pruner } from './retention/pruner.ts';
import type { LoadGate } from './worker-options.ts';
import { createTransformer } from './transforms/index.ts';
import type { Transformer } from './transforms/transformer.ts';

export interface CoreOptions {
  dataDir: string;
  /** Sources and destinations to create or update on start. */
  config?: ConfigFile;
  /** The config file's path, named where the inspector says a source is declared in it (default "--config"). */
  configFile?: string;
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
  /** false: the writer does not index messages for search (the ingestion benchmark measures what it costs). */
  searchIndex?: boolean;
  /** false: retention and clears never merge the search indexes (the retention benchmark measures what it saves). */
  mergeIndexes?: boolean;
  /** Tests only: the pause between two chunks of a bulk retry (delivery/bulk-retry.ts), lengthened to stop a job between two chunks. */
  bulkRetryPauseMs?: number;
  /**
   * Tests only. false: the pruner's timer is not started (its pass 5 s after start and every minute
   * after), so retention prunes only when asked: `pruner.run()`, or a retention saved in Settings. A
   * test that moves an injected clock, or fills the store, and then calls `pruner.run()` itself needs
   * it: a pass of the timer's landing in between would prune first, and the test's own pass would find
   * nothing left to prune. Default true.
   */
  scheduledPrunes?: boolean;
  /** The background check of the whole store: its timing (tests shorten it), or false for none (store-check/). */
  storeCheck?: Partial<StoreCheckTiming> | false;
  /**
   * Tests only: holds the threads close() may cancel (the writer, the checkpointer, the store check)
   * while they load, until it opens (worker-options.ts LoadGate).
   */
  loadGate?: LoadGate;
  /**
   * false: the store is thrown away when the relay stops (sluice/testing's temporary folder), so it is
   * never synced to disk (store/connection.ts Durability). Default true.
   */
  durable?: boolean;
  /**
   * Keep a spare store writer thread loaded for the next relay this process starts (sluice/testing, a
   * relay per test: its first message need not wait for a new thread to load; writer/store-writer.ts).
   */
  spareWriter?: boolean;
}

/**
 * The relay: its parts (the store's repos, the delivery engine, the receiver, the composer, the
 * audiences, the event bus), the operations the hosts call on them, keyed by their channels' names
 * (api/operations/), and the few commands no channel names.
 */
export interface Core extends CoreCommands, Readonly<CoreParts> {
  /** Every channel's operation (shared/contract.ts names them): `core.operations['deliveries.replay'](request)`. */
  readonly operations: Operations;
  /**
   * Stops storing what clients send: the composer's queue goes in, ingestion stops listening and lets the
   * requests it accepted finish. A host calls it before it lets its followers (message streams, --print)
   * hand out the last messages; close() does it too.
   */
  stopIngesting(): Promise<void>;
  /** Stops listening, lets accepted requests finish, commits, checkpoints, closes the store. */
  close(): Promise<void>;
  /** The destinations' transform runtime (transforms/), started on first use; delivery's, the preview's and tests'. */
  transformer(): Transformer;
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
  // A full disk or a read-only folder: a sentence naming the folder and the fix (the lock said so already for its own files).
  const durable = options.durable ?? true;
  const db = writingDataDir(options.dataDir, () => openDatabase(options.dataDir, { durable }));
  const sluiceId = instanceId(db);
  const bus = new EventBus();
  const sources = new SourcesRepo(db);
  const destinations = new DestinationsRepo(db, sources);
  const messages = new MessagesRepo(db);
  const deliveries = new DeliveriesRepo(db);
  const deletionRequests = new DeletionRequestsRepo(db);

  const now = clock.now();
  // The file checked whole against the store before any of it is stored (config/apply-config.ts).
  const problems = options.config ? configProblems(options.config, { sources, destinations, audiences: new AudiencesRepo(db) }) : [];
  if (problems.length > 0) {
    db.close();
    throw new ConfigError(options.configFile ?? '--config', problems);
  }
  /** The config file's sources and destinations: applied from it at each start; read-only, or not renamed, in the inspector. */
  let declared: Declared = { sources: new Set(), destinations: new Set() };

  const gate = options.loadGate?.cells;
  /**
   * WAL checkpoints, in a thread started once the writer has loaded: until then nothing but this
   * thread's start (migrations, settings) is in the WAL, and a relay closed before it (a test's) starts
   * no checkpointer at all. The store's last connection to close checkpoints what is left either way.
   */
  let checkpointer: Checkpointer | undefined;
  let stopping = false;
  const startCheckpointer = () => {
    if (stopping) return;
    checkpointer ??= new Checkpointer(
      databaseFile(options.dataDir),
      (error) => {
        console.error(`sluice: ${error.message}; SQLite's automatic checkpoints take over`);
        checkpointAutomatically(db);
        writer.useAutomaticCheckpoints();
      },
      { gate, durable },
    );
  };
  const writer = new StoreWriter(
    databaseFile(options.dataDir),
    (committed) => {
      bus.emit('messages.stored', withGenerated(committed));
      delivery.added(committed);
    },
    // A writer that died between a commit and its answer left due deliveries nobody announced.
    () => delivery.kick(),
    { searchIndex: options.searchIndex, durable, gate, onReady: startCheckpointer, spare: options.spareWriter },
  );
  // The writer's write keys and routes: at start, and again whenever settings are saved.
  const applyRouting = () => {
    writer.setWriteKeys(sources.list().map((s) => [s.writeKey, s.id, s.allowedOrigins]));
    writer.setRoutes(routesOf(destinations));
  };
  const planStats = new PlanStatsRepo(db);
  const plans = new TrackingPlans({ configs: options.config?.trackingPlans ?? [], configFile: options.configFile, sources, destinations, writer, bus, clock, stats: planStats });
  const sender = new WebhookSender({
    now: () => clock.now(),
    // The built-in receiver by name (sluice://receiver/<hook>): wherever it listens now.
    resolve: (url) => resolveHookUrl(url, receiver.url),
    ...(options.webhookTimeoutMs ? { timeoutMs: options.webhookTimeoutMs } : {}),
  });
  // The destinations' transform runtime (transforms/), one for delivery and the preview: its worker starts
  // with the first transform asked for (a Sluice none of whose destinations has one starts none), and it is
  // closed after the engine. A file reloaded (or refused on reload) is a settings change: the inspector
  // reads the destinations again.
  let transformer: Transformer | undefined;
  const transforms = (): Transformer => (transformer ??= createTransformer({ onChange: () => bus.emit('settings.changed', null) }));
  const delivery = new DeliveryEngine({
    deliveries,
    messages,
    destinations,
    writer,
    bus,
    clock,
    sender,
    instanceId: sluiceId,
    sources,
    transformer: transforms,
    ...(options.random ? { random: options.random } : {}),
  });
  const faults = new IngestFaults(clock, () => bus.emit('faults.changed', null));
  const ingest = new IngestServer({
    instanceId: sluiceId,
    faults,
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
    secretsFor: (hook) => secretsOf(destinations.list().filter((d) => d.webhooks.some((w) => hookOf(w.url, receiver.url) === hook))),
    allSecrets: () => secretsOf(destinations.list()),
    ...(options.random ? { random: options.random } : {}),
  });
  try {
    // The plans load (and are checked) before the file's sources and destinations are stored; the
    // writer has them before the first message can arrive.
    await plans.load(sourceNamesAfter(sources, options.config));
    if (options.config) declared = storeConfig(db, options.config, { sources, destinations }, now);
    sources.ensureDefault(now);
    applyRouting();
    plans.start();
    await listenOn(() => ingest.listen(), 'ingest', `port ${options.ingestPort ?? DEFAULT_INGEST_PORT} is in use; is another Sluice running? Pick another with --ingest-port (0 = any free port)`);
    await listenOn(() => receiver.listen(), 'receiver', `port ${options.receiverPort ?? DEFAULT_RECEIVER_PORT} (the built-in receiver) is in use; pick another with --receiver-port (0 = any free port)`);
    // Before the first delivery: destinations stored with the receiver's address name it (receiver-urls.ts).
    adoptReceiverUrls(db, destinations, receiver.url);
  } catch (error) {
    stopping = true;
    plans.close();
    await ingest.close();
    await writer.close();
    await sender.close();
    await checkpointer?.close();
    db.close();
    throw error;
  }

  const composer = new Composer(ingest.url, sources, bus, options.composer);
  delivery.kick(); // resume what was pending or retrying when Sluice last stopped
  const audiences = new AudienceService({
    db,
    writer,
    sources,
    destinations,
    bus,
    clock,
    onDeliveries: () => delivery.kick(),
    ...(options.random ? { random: options.random } : {}),
  });
  const counter = new MessageCounter(databaseFile(options.dataDir));
  const queries = new TestQueries({ bus, messages, sources, destinations, deliveries, reader: new StoreReader({ db, messages, deliveries, counter }), heads: new MessageHeads(db), texts: new MessageTexts(db) });
  const rechecks = new Rechecks(writer, bus, planStats);
  const issues = new IssuesRepo(db);
  const bulkRetries = new BulkRetries({ issues, deliveries, writer, delivery, bus, clock, chunkPauseMs: options.bulkRetryPauseMs });
  const pruner = new Pruner({ db, writer, bus, clock, configured: options.config?.retention, mergeIndexes: options.mergeIndexes });
  const health = new StoreHealthTracker({
    file: databaseFile(options.dataDir),
    bus,
    clock,
    writer,
    checkedAtStart: wasCheckedWhole(db),
    check: options.storeCheck,
    gate,
  });
  const parts: CoreParts = {
    bus, clock, sources, destinations, messages, deliveries, deletionRequests, delivery, receiver, composer, audiences, queries, plans, rechecks, pruner, counter, health, faults,
    issues, bulkRetries, ingestUrl: ingest.url, dataDir: options.dataDir,
  };
  const { operations, commands } = createOperations({
    ...parts,
    transformer: transforms,
    writer,
    db,
    declaredIn: (sourceId) => (declared.sources.has(sourceId) ? (options.configFile ?? '--config') : null),
    destinationDeclaredIn: (destinationId) => (declared.destinations.has(destinationId) ? (options.configFile ?? '--config') : null),
    settingsApplied() {
      applyRouting();
      plans.apply(); // sources and destinations by name
      bus.emit('settings.changed', null);
      delivery.tryNow(); // edited receivers get a fresh start (and a kick)
    },
  });

  let closing: Promise<void> | undefined;
  let ingestStopped: Promise<void> | undefined;
  const stopIngesting = () =>
    (ingestStopped ??= (async () => {
      await composer.close(); // its queue goes into the store before ingestion stops
      await ingest.close();
    })());
  const core: Core = {
    ...parts,
    ...commands,
    operations,
    transformer: transforms,
    stopIngesting,
    close() {
      closing ??= (async () => {
        stopping = true;
        queries.close(); // pending waits end now, rather than time out later on a closed store
        plans.close();
        rechecks.stop();
        bulkRetries.stop();
        await health.close();
        await pruner.close();
        await counter.close();
        await stopIngesting();
        await audiences.close(); // a sync under way commits
        await receiver.close();
        await delivery.close();
        await transformer?.close();
        await writer.close();
        await sender.close();
        await checkpointer?.close();
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
      throw new ConfigError(options.configFile ?? '--config', [(error as Error).message]);
    }
  }
  audiences.start();
  if (options.scheduledPrunes !== false) pruner.start();
  health.start();
  return core;
}

/** The requests, each followed by the `Violation Generated` events stored with it (as a request of their own). */
function withGenerated(committed: CommittedRequest[]): CommittedRequest[] {
  if (!committed.some((request) => request.generatedIds)) return committed;
  return committed.flatMap((request) => {
    if (!request.generatedIds) return [request];
    const { generatedIds, ...own } = request;
    const ids = Float64Array.from(generatedIds);
    return [own, { ...own, ids, statuses: new Uint8Array(ids.length), rejected: [], deliveries: 0 }];
  });
}

/** The sources' names once the config file's are stored (and the first start's "default" made, when there is none). */
function sourceNamesAfter(sources: SourcesRepo, config: ConfigFile | undefined): Set<string> {
  const names = new Set([...sources.list(), ...(config?.sources ?? [])].map((s) => s.name));
  if (names.size === 0) names.add('default');
  return names;
}

/** Which enabled destinations each source's messages go to. */
function routesOf(destinations: DestinationsRepo): Route[] {
  const bySource = new Map<number, number[]>();
  for (const destination of destinations.list()) {
    if (!destination.enabled) continue;
    for (const sourceId of destination.sourceIds) bySource.set(sourceId, [...(bySource.get(sourceId) ?? []), destination.id]);
  }
  const forwarding = new Set(destinations.list().flatMap((d) => (kindOf(d).obeysIntegrations ? [] : [d.id])));
  return [...bySource].map(([sourceId, destinationIds]) => {
    const forwardIds = destinationIds.filter((id) => forwarding.has(id));
    return { sourceId, destinationIds, ...(forwardIds.length > 0 ? { forwardIds } : {}) };
  });
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

/** The secrets these destinations sign with, by kind (a destination's unused kind is left out). */
function secretsOf(list: Destination[]): SigningSecrets {
  const shared = new Set<string>();
  const standard = new Set<string>();
  for (const d of list) {
    if (d.sharedSecret && d.signing !== 'standard') shared.add(d.sharedSecret);
    if (d.signing !== 'segment') for (const secret of d.signingSecrets ?? []) standard.add(secret);
  }
  return { shared: [...shared], standard: [...standard] };
}
