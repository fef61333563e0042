// The operations the hosts call, reads and writes, in one place — as httptoolkit-server's api-model.ts is
// the one place for its operations. The contract's handlers (contract-handlers.ts: the inspector, over
// IPC or a WebSocket) validate a request and call one of these; the core's own API (`Core`, index.ts)
// is these operations over its parts; an HTTP API would be one more thin adapter.
import { jumpedPage } from '../jumped-page.ts';
import type { MessageCounter } from '../../store/message-counter.ts';
import pkg from '../../../../package.json' with { type: 'json' };
import type { MessageSummary, ParsedRequestOf, Responses } from '../../../../shared/contract.ts';
import type { ReplayOutcome } from '../../../../shared/channels/deliveries.ts';
import { pointsAtIngest, selfLoopWarning } from '../../../../shared/loop-guard.ts';
import type { AudienceService } from '../../audiences/audience-service.ts';
import type { EventBus } from '../../bus/event-bus.ts';
import type { Clock } from '../../clock.ts';
import type { Composer } from '../../composer/composer.ts';
import { connectBuiltinReceiver, sendSamples } from '../../composer/samples.ts';
import { previewDeletion, requestDeletion, type DeletionResult } from '../../deletions/deletion-requests.ts';
import { announceStored, storedChanges } from '../../delivery/announce.ts';
import type { DeliveryEngine } from '../../delivery/delivery-engine.ts';
import { deliveryHoldState, setDeliveriesHeld } from '../../delivery/delivery-hold.ts';
import { replay } from '../../delivery/replay.ts';
import { sendTestEvent } from '../../delivery/test-event.ts';
import { deleteDestination, saveDestination, type DestinationSettingsDeps, type SaveOptions } from '../../destinations/destination-settings.ts';
import { OperationError } from '../../operation-error.ts';
import { saveSource, sourceView } from '../../sources/source-settings.ts';
import type { BuiltinReceiver } from '../../receiver/builtin-receiver.ts';
import type { DeliveriesRepo } from '../../store/deliveries-repo.ts';
import type { DeletionRequestsRepo } from '../../store/deletion-requests-repo.ts';
import type { Destination, DestinationsRepo } from '../../store/destinations-repo.ts';
import type { MessagesRepo, StoredMessage } from '../../store/messages-repo.ts';
import type { SourcesRepo } from '../../store/sources-repo.ts';
import type { StoreWriter } from '../../writer/store-writer.ts';
import type { TestQueries } from '../../queries/test-queries.ts';
import type { TrackingPlans } from '../../plans/plan-registry.ts';
import type { Rechecks } from '../../plans/recheck.ts';
import type { Pruner } from '../../retention/pruner.ts';
import { clearMessages } from '../../retention/clear.ts';
import type { StoreHealthTracker } from '../../store-check/store-health.ts';
import type { ClearScope } from '../../../../shared/storage.ts';
import type { DatabaseSync } from 'node:sqlite';
import { storageFigures } from '../../store/storage-figures.ts';
import { exportForDownload, importDropped } from '../../transfer/inspector-transfer.ts';
import { destinationView, mostTelling, summaryFields, summaryOf, viewWithAttempts, withBodyPreview } from '../views.ts';
import { receiverHookUrl } from '../../../../shared/receiver-hooks.ts';

/** The core's parts (index.ts builds them); `Core` exposes them, less the last two. */
export interface CoreParts {
  bus: EventBus;
  clock: Clock;
  sources: SourcesRepo;
  destinations: DestinationsRepo;
  messages: MessagesRepo;
  deliveries: DeliveriesRepo;
  /** Deletion requests made so far (their notifications are deliveries). */
  deletionRequests: DeletionRequestsRepo;
  delivery: DeliveryEngine;
  receiver: BuiltinReceiver;
  /** Sends messages built in the inspector through Sluice's client library. */
  composer: Composer;
  /** Audiences and computed traits: definitions, previews, the sync scheduler (audiences/). */
  audiences: AudienceService;
  ingestUrl: string;
  dataDir: string;
  /** What tests ask: stored messages, waits, deliveries (queries/test-queries.ts). */
  queries: TestQueries;
  /** The tracking plans at work (plans/plan-registry.ts). */
  plans: TrackingPlans;
  /** Re-checks of stored messages against them (plans/recheck.ts). */
  rechecks: Rechecks;
  /** Retention: what the store keeps, pruned every minute (retention/pruner.ts). */
  pruner: Pruner;
  /** Counts and positions in the stream, in a thread of their own (store/message-counter.ts). */
  counter: MessageCounter;
  /** The store's soundness: the background check, and damage found while running (store-check/store-health.ts). */
  health: StoreHealthTracker;
}

/** What the operations work with: the core's parts, its writer, and what follows a settings change. */
export interface OperationParts extends CoreParts {
  writer: StoreWriter;
  /** The main thread's connection (storage figures, clearing's reads). */
  db: DatabaseSync;
  /** Sources or destinations were saved: the writer's write keys and routes, and the engine, follow. */
  settingsApplied(): void;
  /** Where a source is declared: the config file's path for the config's sources (read-only in the inspector), else null. */
  declaredIn(sourceId: number): string | null;
}

type Ask<C extends keyof Responses> = (request: ParsedRequestOf<C>) => Responses[C] | Promise<Responses[C]>;

export interface Operations {
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
  /**
   * Creates a source, or with `id` edits one (name, write key, kind); a source the config file declares
   * is refused (source-settings.ts). Ingestion takes a new key, and refuses a replaced one, once it resolves.
   */
  saveSource(input: unknown): Promise<Responses['sources.save']>;
  /** Deletes a destination, cancelling its pending and retrying deliveries (their count); history stays. */
  deleteDestination(id: number, options?: { dryRun?: boolean }): Promise<number>;
  /** Sends one signed test track message to this destination's webhooks (a delivery with trigger `test`). */
  sendTestEvent(destinationId: number): Promise<{ deliveryId: number; body: string }>;
  /** What a host says after start about the settings: webhooks that post to this Sluice's own ingestion endpoint. */
  configWarnings(): string[];
  /**
   * Forgets every message, delivery, profile and the receiver's inbox; keeps sources, destinations and
   * audiences. Rounds in flight end first; nothing of what was forgotten is sent afterwards.
   */
  reset(): Promise<{ messages: number }>;

  // What the inspector asks, each as the contract's view (shared/contract.ts names them).
  appInfo: Ask<'app.info'>;
  deliveryHold: Ask<'delivery.state'>;
  holdDeliveries: Ask<'delivery.hold'>;
  listMessages: Ask<'messages.list'>;
  /** How many messages there are, and how many match (store/message-counter.ts: off the core's thread). */
  countMessages: Ask<'messages.count'>;
  messagesByIds: Ask<'messages.byIds'>;
  messageDetail: Ask<'messages.get'>;
  deliveryDetail: Ask<'deliveries.get'>;
  deliveryStates: Ask<'deliveries.states'>;
  listDestinations: Ask<'destinations.list'>;
  reenableUrl: Ask<'destinations.reenableUrl'>;
  revealSecret: Ask<'destinations.revealSecret'>;
  listDeletions: Ask<'deletions.list'>;
  /** What a deletion request for a user would do (deletions/deletion-requests.ts); input is validated. */
  previewDeletion: Ask<'deletions.preview'>;
  /** A delivery's whole body (a message's detail carries only the start of a big one). */
  deliveryBody: Ask<'deliveries.body'>;
  revealAttemptHeader: Ask<'deliveries.revealHeader'>;
  receiverInbox: Ask<'receiver.inbox'>;
  setReceiverBehaviour: Ask<'receiver.setBehaviour'>;
  connectReceiver: Ask<'receiver.connect'>;
  sendSamples: Ask<'samples.send'>;
  composerSend: Ask<'composer.send'>;
  composerFlush: Ask<'composer.flush'>;
  composerState: Ask<'composer.state'>;
  listAudiences: Ask<'audiences.list'>;
  saveAudience: Ask<'audiences.save'>;
  deleteAudience: Ask<'audiences.delete'>;
  previewAudience: Ask<'audiences.preview'>;
  syncAudienceNow: Ask<'audiences.syncNow'>;
  audienceHistory: Ask<'audiences.history'>;
  audienceSyncMessages: Ask<'audiences.syncMessages'>;
  audienceMembers: Ask<'audiences.members'>;
  listPlans: Ask<'plans.list'>;
  planStats: Ask<'plans.stats'>;
  addPlanEvent: Ask<'plans.addEvent'>;
  recheckPlans: Ask<'plans.recheck'>;
  storageStats: Ask<'storage.stats'>;
  storageHealth: Ask<'storage.health'>;
  setRetention: Ask<'storage.setRetention'>;
  exportMessages: Ask<'messages.export'>;
  importMessages: Ask<'messages.import'>;
  /** Removes the scope's messages with their deliveries and attempts (open ones too), then shrinks the file; `dryRun` counts. */
  clear(scope: ClearScope, dryRun?: boolean): Promise<Responses['storage.clear']>;
}

/** How many messages one `messages.list` call with a `delivery` filter reads at most, and per chunk. */
const DELIVERY_SCAN_LIMIT = 20_000;
const DELIVERY_SCAN_CHUNK = 1000;

export function createOperations(p: OperationParts): Operations {
  const { clock, writer, delivery, deliveries, destinations, messages } = p;
  // Deliveries created, moved or cancelled on request are announced as stored (delivery/announce.ts),
  // like the engine's attempts: new rows show at once and a cancelled one counts as finished.
  const announce = (ids: readonly number[]) => announceStored(deliveries, p.bus, ids);
  /** After deliveries were created or moved on request: announce them as stored, and look for due ones. */
  const written = <T,>(ids: readonly number[], result: T): T => {
    announce(ids);
    delivery.kick();
    return result;
  };
  /** Deliveries a person asked to send now (a retry, a replay, a test): their receivers get a try whatever their breakers say. */
  const sendNow = <T,>(ids: readonly number[], result: T): T => {
    if (ids.length > 0) delivery.tryNow([...new Set(deliveries.byIds(ids).map((d) => d.destinationId))]);
    return written(ids, result);
  };
  let replays: Promise<unknown> = Promise.resolve();
  let resets: Promise<unknown> = Promise.resolve();

  /** Messages as rows of the stream: each with the delivery its row shows, and its audience tag. */
  const summarize = (page: StoredMessage[]): MessageSummary[] => {
    const byMessage = deliveries.forMessages(page.map((m) => m.id));
    const tags = p.audiences.repo.tags(page.filter((m) => m.origin === 'audience').map((m) => m.id));
    const shown = new Map(page.map((m) => [m.id, mostTelling(byMessage.get(m.id) ?? [])]));
    // The error codes of the shown deliveries that have one, read for the whole page at once.
    const erring = [...shown.values()].flatMap((d) => (d && (d.status === 'retrying' || d.status === 'failed') ? [d.id] : []));
    const lastAttempts = deliveries.lastAttempts(erring);
    // What titles the identify, group and alias rows (their payloads are not in the page's columns).
    const names = messages.names(page.filter((m) => m.type === 'identify' || m.type === 'group' || m.type === 'alias').map((m) => m.id));
    return page.map((m) => {
      const own = byMessage.get(m.id) ?? [];
      const audience = tags.get(m.id);
      const d = shown.get(m.id);
      const named = names.get(m.id);
      return { ...m, delivery: d ? summaryOf(d, lastAttempts.get(d.id)) : null, deliveryCount: own.length, ...(audience ? { audience } : {}), ...(named ? { names: named } : {}) };
    });
  };

  const operations: Operations = {
    replay: (request) => {
      // One replay at a time: each plans from the store (e.g. "what is failed now") and writes
      // later, so two planned together would both replay the same deliveries.
      const run = replays.then(() => replay({ messages, deliveries, destinations, writer, clock }, request));
      replays = run.catch(() => undefined);
      return run.then((outcome) => sendNow(outcome.deliveryIds, outcome));
    },
    retryNow: (deliveryIds) =>
      writer.write({ op: 'retryNow', deliveryIds, now: clock.now() }).then((outcome) => sendNow(outcome.changed > 0 ? deliveryIds : [], outcome.changed)),
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
      const inbox = p.receiver;
      return requestDeletion({ messages, destinations, writer, clock, inbox, roundsEnded: () => delivery.roundsEnded(), bus: p.bus }, request)
        .finally(purged)
        .then((result) => {
          p.pruner.purged(result.purgedMessages);
          return written(result.deliveryIds, result);
        });
    },
    sendTestEvent: (destinationId) =>
      sendTestEvent({ destinations, writer, clock }, destinationId).then((result) => sendNow([result.deliveryId], result)),
    saveDestination: (config, saveOptions) => saveDestination(destinationSettings, config, saveOptions),
    deleteDestination: (id, deleteOptions) => deleteDestination(destinationSettings, id, deleteOptions),
    saveSource: (input) =>
      saveSource(
        { sources: p.sources, clock, declaredIn: p.declaredIn, retireClient: (id) => p.composer.retire(id), applied: () => p.settingsApplied() },
        input,
      ),

    reset: () => {
      // One at a time: two overlapping would let the engine go again while the second one writes.
      const run = resets.then(async () => {
        await p.composer.flushAll(); // what the inspector's composer queued goes in first, then is forgotten too
        const outcome = await delivery.whileRemoving(() => writer.write({ op: 'reset', now: clock.now() }));
        p.receiver.clearInbox();
        p.queries.forget();
        p.bus.emit('store.reset', null);
        return { messages: outcome.changed };
      });
      resets = run.catch(() => undefined);
      return run;
    },

    configWarnings: () =>
      destinations.list().flatMap((d) => [
        ...d.webhooks.flatMap((w, i) => (pointsAtIngest(w.url, p.ingestUrl) ? [selfLoopWarning(`destination "${d.name}", webhook ${i + 1} (${w.url})`)] : [])),
        ...(d.trackingApi && pointsAtIngest(d.trackingApi.url, p.ingestUrl) ? [selfLoopWarning(`destination "${d.name}" (forwards to ${d.trackingApi.url})`)] : []),
      ]),

    appInfo: () => ({
      // pkg.version, not the whole manifest: the bundler keeps only the fields read this way.
      version: pkg.version,
      ingestUrl: p.ingestUrl,
      receiverUrl: p.receiver.url,
      dataDir: p.dataDir,
      sources: p.sources.list().map((source) => sourceView(source, p.declaredIn(source.id))),
    }),
    deliveryHold: () => deliveryHoldState(p),
    holdDeliveries: ({ held }) => setDeliveriesHeld(p, held),
    listMessages: async (request) => {
      const query = {
        ...(request.type !== undefined ? { type: request.type } : {}),
        ...(request.status !== undefined ? { status: request.status } : {}),
        ...(request.sourceId !== undefined ? { sourceId: request.sourceId } : {}),
        ...(request.search ? { search: request.search } : {}),
        ...(request.from !== undefined ? { from: request.from } : {}),
        ...(request.to !== undefined ? { to: request.to } : {}),
        ...(request.violations !== undefined ? { violations: request.violations } : {}),
        ...(request.event !== undefined ? { event: request.event } : {}),
        ...(request.plan !== undefined ? { plan: request.plan } : {}),
      };
      const page = (beforeId: number | undefined, limit: number) =>
        summarize(messages.list({ ...query, limit, ...(beforeId !== undefined ? { beforeId } : {}) }));
      const wanted = request.delivery;
      if (request.afterId !== undefined || request.offset !== undefined || request.at !== undefined) {
        return jumpedPage({ ...p, summarize }, { ...query, ...(wanted !== undefined ? { delivery: wanted } : {}) }, request);
      }
      if (wanted === undefined) {
        const found = page(request.beforeId, request.limit);
        return { messages: found, next: found.length === request.limit ? found[found.length - 1]!.id : null };
      }
      // The row's delivery state is derived from its deliveries, so scan older pages until enough
      // match, bounded per call so one request never holds the core for long.
      const found: MessageSummary[] = [];
      let cursor = request.beforeId;
      for (let scanned = 0; scanned < DELIVERY_SCAN_LIMIT; ) {
        const chunk = page(cursor, DELIVERY_SCAN_CHUNK);
        scanned += chunk.length;
        for (const m of chunk) {
          if ((m.delivery?.status ?? 'none') !== wanted) continue;
          found.push(m);
          if (found.length === request.limit) return { messages: found, next: m.id };
        }
        if (chunk.length < DELIVERY_SCAN_CHUNK) return { messages: found, next: null };
        cursor = chunk[chunk.length - 1]!.id;
      }
      return { messages: found, next: cursor ?? null };
    },
    countMessages: (request) => p.counter.count(request),
    messagesByIds: ({ ids, search }) => {
      const found = summarize(messages.byIds(ids).reverse());
      if (!search?.trim()) return { messages: found };
      const matching = messages.matchingIds(found.map((m) => m.id), search);
      return { messages: found.map((m) => ({ ...m, matchesSearch: matching.has(m.id) })) };
    },
    messageDetail: ({ id }) => {
      const record = messages.get(id);
      if (!record) throw new OperationError('not_found', `there is no message ${id}`);
      const own = deliveries.forMessage(id).map((d) => viewWithAttempts(d, deliveries.attempts(d.id)));
      const shown = mostTelling(own);
      const audience = record.origin === 'audience' ? p.audiences.repo.tags([id]).get(id) : undefined;
      const named = messages.names([id]).get(id);
      return {
        ...record,
        delivery: shown ? summaryFields(shown) : null,
        deliveryCount: own.length,
        deliveries: own.map(withBodyPreview),
        ...(audience ? { audience } : {}),
        ...(named ? { names: named } : {}),
      };
    },
    deliveryDetail: ({ id }) => {
      const found = deliveries.get(id);
      if (!found) throw new OperationError('not_found', `there is no delivery ${id}`);
      return viewWithAttempts(found, deliveries.attempts(id));
    },
    deliveryBody: ({ id }) => {
      const found = deliveries.get(id);
      if (!found) throw new OperationError('not_found', `there is no delivery ${id}`);
      return { body: found.body };
    },
    revealAttemptHeader: ({ deliveryId, attemptId, name }) => {
      const attempt = deliveries.attempts(deliveryId).find((a) => a.id === attemptId);
      if (!attempt) throw new OperationError('not_found', `there is no attempt ${attemptId} of delivery ${deliveryId}; it may have been cleared — reload the message`);
      const header = Object.entries(attempt.requestHeaders).find(([key]) => key.toLowerCase() === name.toLowerCase());
      if (!header) throw new OperationError('not_found', `attempt ${attemptId} sent no ${name} header`);
      return { value: header[1] };
    },
    deliveryStates: ({ ids }) => ({ changes: storedChanges(deliveries, ids) }),
    listDestinations: () => ({ destinations: destinations.list().map((d) => destinationView(d, (url) => delivery.breaker(url))) }),
    reenableUrl: ({ id, url }) => {
      if (!destinations.reenable(id, url)) {
        const destination = destinations.byId(id);
        if (!destination) throw new OperationError('not_found', `there is no destination ${id}`);
        throw new OperationError('not_gone', `${url} is not a disabled webhook of "${destination.name}"`);
      }
      p.bus.emit('settings.changed', null);
      delivery.tryNow([id]);
      return destinationView(destinations.byId(id)!, (u) => delivery.breaker(u));
    },
    revealSecret: ({ id }) => {
      const destination = destinations.byId(id);
      if (!destination) throw new OperationError('not_found', `there is no destination ${id}`);
      return { secret: destination.sharedSecret ?? null, signingSecrets: destination.signingSecrets ?? [], writeKey: destination.trackingApi?.writeKey ?? null };
    },
    listDeletions: ({ limit }) => ({
      requests: p.deletionRequests.recent(limit).map((request) => ({
        ...request,
        deliveries: deliveries.forDeletionRequest(request.id).map((d) => viewWithAttempts(d, deliveries.attempts(d.id))),
      })),
    }),
    previewDeletion: (request) =>
      previewDeletion({ deletionRequests: p.deletionRequests, destinations, inboxRequests: (userId) => p.receiver.countUser(userId) }, request),
    receiverInbox: ({ hook, limit }) => ({
      entries: limit === undefined ? p.receiver.inbox(hook) : p.receiver.inbox(hook).slice(-limit),
      behaviours: p.receiver.behaviours(),
    }),
    setReceiverBehaviour: ({ hook, behaviour }) => {
      p.receiver.setBehaviour(hook, behaviour);
      return { hook, behaviour };
    },
    sendSamples: ({ sourceId }) => sendSamples({ ...receiverDestination, composer: p.composer }, sourceId),
    connectReceiver: ({ sourceId }) => ({ destination: connectBuiltinReceiver(receiverDestination, sourceId) }),
    composerSend: ({ sourceId, type, fields }) => p.composer.send(sourceId, type, fields),
    composerFlush: ({ sourceId }) => p.composer.flush(sourceId),
    composerState: ({ sourceId }) => p.composer.state(sourceId),
    listAudiences: () => ({ audiences: p.audiences.list() }),
    saveAudience: (input) => p.audiences.save(input),
    deleteAudience: async ({ id }) => {
      await p.audiences.delete(id);
      return { deleted: true };
    },
    previewAudience: (request) => p.audiences.preview(request),
    syncAudienceNow: async ({ id }) => {
      const sync = await p.audiences.syncNow(id);
      return p.audiences.repo.sync(sync.syncId!)!; // "Sync now" is recorded whatever it finds
    },
    audienceHistory: ({ id, limit, beforeId }) => {
      p.audiences.view(id); // not_found for an unknown audience
      const syncs = p.audiences.repo.syncs(id, limit, beforeId);
      return { syncs, next: syncs.length === limit ? syncs[syncs.length - 1]!.id : null };
    },
    audienceSyncMessages: ({ syncId, afterId, limit }) => {
      const sync = p.audiences.repo.sync(syncId);
      if (!sync) throw new OperationError('not_found', `there is no audience sync ${syncId}; its audience may have been deleted`);
      const found = p.audiences.repo.syncMessages(syncId, afterId, limit);
      return { sync, messages: found, next: found.length === limit ? found[found.length - 1]!.id : null };
    },
    audienceMembers: ({ id, search, after, limit }) => {
      p.audiences.view(id);
      const page = p.audiences.repo.members(id, { limit, ...(search ? { search } : {}), ...(after !== undefined ? { after } : {}) });
      return { ...page, next: page.members.length === limit ? page.members[page.members.length - 1]!.userId : null };
    },
    listPlans: () => ({ plans: p.plans.views(), recheck: p.rechecks.running }),
    planStats: ({ name }) => p.plans.stats(name),
    addPlanEvent: ({ name, type, event, dryRun, schema }) => p.plans.addEvent(name, type, event, { dryRun, schema }),
    recheckPlans: () => p.rechecks.start(),
    storageStats: () => storageView(),
    storageHealth: () => p.health.view(),
    setRetention: async ({ retention }) => {
      await p.pruner.setRetention(retention);
      return storageView();
    },
    exportMessages: ({ filter, format }) => exportForDownload(p.db, filter, format, clock.now()),
    importMessages: ({ sourceId, fileName, text }) => {
      const source = p.sources.byId(sourceId);
      if (!source) throw new OperationError('not_found', `there is no source ${sourceId}`);
      return importDropped(p.ingestUrl, source.writeKey, fileName, text);
    },
    clear: (scope, dryRun = false) => {
      // One at a time, and not beside a reset: both take the engine's queue away for a while.
      const run = resets.then(() => clearMessages({ db: p.db, messages, writer, delivery, pruner: p.pruner, counter: p.counter }, scope, dryRun));
      resets = run.catch(() => undefined);
      return run;
    },
  };

  /** Settings' storage figures: the store's (store/storage-figures.ts) with the retention in use and the last prune. */
  function storageView(): Responses['storage.stats'] {
    const { retention, from } = p.pruner.retention();
    return { ...storageFigures(p.db, p.dataDir), retention, retentionFrom: from, configured: p.pruner.configured, lastPrune: p.pruner.lastPrune() };
  }

  const destinationSettings: DestinationSettingsDeps = {
    sources: p.sources,
    destinations,
    writer,
    clock,
    applied: () => p.settingsApplied(),
    cancelDeliveries: (ids) => operations.cancelDeliveries(ids),
  };
  /** The "Built-in receiver" destination's parts (composer/samples.ts), by name: it keeps reaching the receiver after a start on another port. */
  const receiverDestination = {
    sources: p.sources,
    destinations,
    hookUrl: receiverHookUrl,
    saveDestination: (config: unknown) => operations.saveDestination(config),
  };
  return operations;
}
