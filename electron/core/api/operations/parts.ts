// What the operations work with: the core's parts (index.ts of the core builds them), and what several
// domains' operations share — announcing deliveries made on request, and work done one at a time.
import type { DatabaseSync } from 'node:sqlite';
import type { Channel, ParsedRequestOf, Responses } from '../../../../shared/contract.ts';
import type { AudienceService } from '../../audiences/audience-service.ts';
import type { EventBus } from '../../bus/event-bus.ts';
import type { Clock } from '../../clock.ts';
import type { Composer } from '../../composer/composer.ts';
import type { IngestFaults } from '../../faults/ingest-faults.ts';
import { announceStored } from '../../delivery/announce.ts';
import type { BulkRetries } from '../../delivery/bulk-retry.ts';
import type { DeliveryEngine } from '../../delivery/delivery-engine.ts';
import type { TrackingPlans } from '../../plans/plan-registry.ts';
import type { Rechecks } from '../../plans/recheck.ts';
import type { TestQueries } from '../../queries/test-queries.ts';
import type { BuiltinReceiver } from '../../receiver/builtin-receiver.ts';
import type { Pruner } from '../../retention/pruner.ts';
import type { StoreHealthTracker } from '../../store-check/store-health.ts';
import type { DeliveriesRepo } from '../../store/deliveries-repo.ts';
import type { DeletionRequestsRepo } from '../../store/deletion-requests-repo.ts';
import type { DestinationsRepo } from '../../store/destinations-repo.ts';
import type { IssuesRepo } from '../../store/issues-repo.ts';
import type { MessageCounter } from '../../store/message-counter.ts';
import type { MessagesRepo } from '../../store/messages-repo.ts';
import type { SourcesRepo } from '../../store/sources-repo.ts';
import type { Transformer } from '../../transforms/transformer.ts';
import type { StoreWriter } from '../../writer/store-writer.ts';

/** One operation: a channel's validated request (shared/contract.ts) to its response. */
export type Operation<C extends Channel> = (request: ParsedRequestOf<C>) => Responses[C] | Promise<Responses[C]>;

/** Every operation the hosts call, keyed by its channel's name: one name from the page to the core. */
export type Operations = { [C in Channel]: Operation<C> };

/** The operations of the channels named `<domain>.…` (and any others listed): one domain's module. */
export type OperationsOf<C extends Channel> = { [K in C]: Operation<K> };

/** The core's parts (the core's index.ts builds them); `Core` exposes them, less the last two of OperationParts. */
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
  /** Faults a test injected into ingestion, and the requests they were applied to (faults/ingest-faults.ts). */
  faults: IngestFaults;
  /** Issues: groups of failed and retrying deliveries (store/issues-repo.ts), and their bulk retries (delivery/bulk-retry.ts). */
  issues: IssuesRepo;
  bulkRetries: BulkRetries;
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
  /** Where a destination is declared: the config file's path for the config's destinations (not renamed in the inspector), else null. */
  destinationDeclaredIn(destinationId: number): string | null;
  /** The destinations' transform runtime (transforms/), started on first use: previews, reads and saves of transforms. */
  transformer(): Transformer;
}

/** The parts, with what the domains' operations share. */
export interface OperationContext extends OperationParts {
  /** Deliveries created, moved or cancelled on request, announced as stored (delivery/announce.ts), like the engine's attempts. */
  announce(ids: readonly number[]): void;
  /** After deliveries were created or moved on request: announce them as stored, and look for due ones. */
  written<T>(ids: readonly number[], result: T): T;
  /** Deliveries a person asked to send now (a retry, a replay, a test): their receivers get a try whatever their breakers say. */
  sendNow<T>(ids: readonly number[], result: T): T;
  /** Work that takes the engine's queue away for a while (a reset, a clear): one at a time. */
  removing: Serial;
}

/** Runs tasks one after another: each starts once the one before has ended, however it ended. */
export type Serial = <T>(task: () => Promise<T>) => Promise<T>;

export function serial(): Serial {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = last.then(task);
    last = run.catch(() => undefined);
    return run;
  };
}

export function operationContext(p: OperationParts): OperationContext {
  const announce = (ids: readonly number[]) => announceStored(p.deliveries, p.bus, ids);
  const written = <T,>(ids: readonly number[], result: T): T => {
    announce(ids);
    p.delivery.kick();
    return result;
  };
  return {
    ...p,
    announce,
    written,
    sendNow: (ids, result) => {
      if (ids.length > 0) p.delivery.tryNow([...new Set(p.deliveries.byIds(ids).map((d) => d.destinationId))]);
      return written(ids, result);
    },
    removing: serial(),
  };
}
