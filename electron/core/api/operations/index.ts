// The operations the hosts call, one module per domain, each operation keyed by the name of its channel
// in shared/contract.ts: `deliveries.replay` is that name in the page's transport, the IPC bridge, the
// WebSocket and here. The contract's handlers (../contract-handlers.ts) validate a request and call the
// operation of its channel; the core (`Core`, ../../index.ts) carries them as `operations`, beside the
// few of its own that no channel names (a save by name as the config file applies, a reset, warnings).
import type { SaveOptions } from '../../destinations/destination-settings.ts';
import type { Destination } from '../../store/destinations-repo.ts';
import { audienceOperations } from './audiences.ts';
import { deletionOperations } from './deletions.ts';
import { deliveryOperations } from './deliveries.ts';
import { configWarnings, destinationOperations, saveDestinationConfig } from './destinations.ts';
import { messageOperations } from './messages.ts';
import { operationContext, type OperationParts, type Operations } from './parts.ts';
import { planOperations } from './plans.ts';
import { receiverOperations } from './receiver.ts';
import { sourceOperations } from './sources.ts';
import { reset, storageOperations } from './storage.ts';

export type { CoreParts, Operation, OperationParts, Operations } from './parts.ts';

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
   * Forgets every message, delivery, profile and the receiver's inbox; keeps sources, destinations and
   * audiences. Rounds in flight end first; nothing of what was forgotten is sent afterwards.
   */
  reset(): Promise<{ messages: number }>;
}

export function createOperations(parts: OperationParts): { operations: Operations; commands: CoreCommands } {
  const p = operationContext(parts);
  const operations: Operations = {
    ...sourceOperations(p),
    ...messageOperations(p),
    ...deliveryOperations(p),
    ...destinationOperations(p),
    ...deletionOperations(p),
    ...receiverOperations(p),
    ...audienceOperations(p),
    ...planOperations(p),
    ...storageOperations(p),
  };
  const commands: CoreCommands = {
    saveDestination: (config, options) => saveDestinationConfig(p, config, options),
    configWarnings: () => configWarnings(p),
    reset: () => reset(p),
  };
  return { operations, commands };
}
