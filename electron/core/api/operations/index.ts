// The operations the hosts call, one module per domain, each operation keyed by the name of its channel
// in shared/contract.ts: `deliveries.replay` is that name in the page's transport, the IPC bridge, the
// WebSocket and here. The contract's handlers (../contract-handlers.ts) validate a request and call the
// operation of its channel; the core (`Core`, ../../index.ts) carries them as `operations`, beside the
// few of its own that no channel names (a save by name as the config file applies, a reset, warnings).
import type { ServerResponse } from 'node:http';
import type { SaveOptions } from '../../destinations/destination-settings.ts';
import { openReadOnly } from '../../store/connection.ts';
import { databaseFile } from '../../store/database.ts';
import type { Destination } from '../../store/destinations-repo.ts';
import { storeFailureOf, type StoreFailure } from '../../store/store-failure.ts';
import { streamExport, type ExportFormat } from '../../transfer/export-stream.ts';
import type { HarFilter } from '../../transfer/har.ts';
import { audienceOperations } from './audiences.ts';
import { deletionOperations } from './deletions.ts';
import { deliveryOperations } from './deliveries.ts';
import { facetOperations } from './facets.ts';
import { faultOperations } from './faults.ts';
import { configWarnings, destinationOperations, saveDestinationConfig } from './destinations.ts';
import { messageOperations } from './messages.ts';
import { overviewOperations } from './overview.ts';
import { issueOperations } from './issues.ts';
import { operationContext, type CoreParts, type OperationParts, type Operations } from './parts.ts';
import { planOperations } from './plans.ts';
import { receiverOperations } from './receiver.ts';
import { sourceOperations } from './sources.ts';
import { searchOperations } from './searches.ts';
import { reset, storageOperations } from './storage.ts';
import { transformOperations } from './transforms.ts';

export type { CoreParts, OperationParts, Operations } from './parts.ts';

/** What the core does that no channel names: for its hosts (the config, `sluice serve`, the HTTP API, sluice/testing). */
export interface CoreCommands {
  /**
   * Creates or replaces a destination by name (validated like the config file), or with `id` in the
   * config edits that one, rename included (`destinations.save` is the inspector's: it refuses a taken name).
   */
  saveDestination(config: unknown, options?: SaveOptions): Destination;
  /** What a host says after start about the settings: webhooks that post to this Sluice's own ingestion endpoint. */
  configWarnings(): string[];
  /**
   * Forgets every message, delivery, profile, the receiver's inbox, the injected faults and the record
   * of faulted requests; keeps sources, destinations and audiences. Rounds in flight end first; nothing
   * of what was forgotten is sent afterwards.
   */
  reset(): Promise<{ messages: number }>;
  /** The store failure (a damaged store, a full disk) that `error` is, or null: each host answers it its own way. */
  storeFailureOf(error: unknown): StoreFailure | null;
  /**
   * Streams the messages `filter` picks as NDJSON, or their webhook attempts as HAR, to `res`
   * (transfer/export-stream.ts), read on a read-only connection of its own, opened for the export and
   * closed after: it holds no lock the writer or the checkpointer waits on. Resolves with the count.
   */
  exportTo(res: ServerResponse, format: ExportFormat, filter: HarFilter, stopping: AbortSignal, now: number): Promise<number>;
}

/** What the HTTP API (host/http-api.ts) adapts: the core's commands, the test queries, settings by name, the store's health, the operations of faults. */
export type HttpApiCore = CoreCommands & Readonly<Pick<CoreParts, 'bus' | 'queries' | 'sources' | 'destinations' | 'health'>> & { readonly operations: Operations };

export function createOperations(parts: OperationParts): { operations: Operations; commands: CoreCommands } {
  const p = operationContext(parts);
  const operations: Operations = {
    ...sourceOperations(p),
    ...messageOperations(p),
    ...facetOperations(p),
    ...deliveryOperations(p),
    ...destinationOperations(p),
    ...deletionOperations(p),
    ...receiverOperations(p),
    ...audienceOperations(p),
    ...planOperations(p),
    ...storageOperations(p),
    ...faultOperations(p),
    ...transformOperations(p),
    ...overviewOperations(p),
    ...issueOperations(p),
    ...searchOperations(p),
  };
  const commands: CoreCommands = {
    saveDestination: (config, options) => saveDestinationConfig(p, config, options),
    configWarnings: () => configWarnings(p),
    reset: () => reset(p),
    storeFailureOf: (error) => storeFailureOf(error, databaseFile(parts.dataDir)),
    exportTo: async (res, format, filter, stopping, now) => {
      const db = openReadOnly(databaseFile(parts.dataDir));
      try {
        return await streamExport(res, db, format, filter, stopping, now);
      } finally {
        db.close();
      }
    },
  };
  return { operations, commands };
}
