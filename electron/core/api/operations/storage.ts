// The store's operations (`storage.*`, `messages.export`, `messages.import` of shared/channels/storage.ts):
// retention, storage figures, clearing, a download and a dropped file — and the core's reset, which
// forgets every message as a clear does.
import type { Responses } from '../../../../shared/contract.ts';
import { OperationError } from '../../operation-error.ts';
import { clearMessages } from '../../retention/clear.ts';
import { storageFigures } from '../../store/storage-figures.ts';
import { exportForDownload, importDropped } from '../../transfer/inspector-transfer.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

type StorageChannel = 'storage.stats' | 'storage.health' | 'storage.setRetention' | 'storage.clear' | 'storage.reset' | 'messages.export' | 'messages.import';

export function storageOperations(p: OperationContext): OperationsOf<StorageChannel> {
  return {
    'storage.stats': () => storageView(p),
    'storage.health': () => p.health.view(),
    'storage.setRetention': async ({ retention }) => {
      await p.pruner.setRetention(retention);
      return storageView(p);
    },
    /** Removes the scope's messages with their deliveries and attempts (open ones too), then shrinks the file; `dryRun` counts. */
    'storage.clear': ({ scope, dryRun }) =>
      // One at a time, and not beside a reset: both take the engine's queue away for a while.
      p.removing(() => clearMessages({ db: p.db, messages: p.messages, writer: p.writer, delivery: p.delivery, pruner: p.pruner, counter: p.counter, bus: p.bus }, scope, dryRun)),
    /** The inspector's Reset (Settings › Storage): the core's reset below. */
    'storage.reset': () => reset(p),
    'messages.export': ({ filter, format }) => exportForDownload(p.db, filter, format, p.clock.now()),
    'messages.import': ({ sourceId, fileName, text }) => {
      const source = p.sources.byId(sourceId);
      if (!source) throw new OperationError('not_found', `there is no source ${sourceId}`);
      return importDropped(p.ingestUrl, source.writeKey, fileName, text);
    },
  };
}

/**
 * Forgets every message, delivery, profile, Issues group and the receiver's inbox; keeps sources,
 * destinations and audiences. Rounds in flight and Issues' bulk retries end first (cancelled); nothing of
 * what was forgotten is sent afterwards. Faults end first (a test's fault must not reach the next test):
 * their record is forgotten, and a request a delay holds is refused, not stored after the reset.
 */
export function reset(p: OperationContext): Promise<{ messages: number }> {
  // One at a time: two overlapping would let the engine go again while the second one writes.
  p.faults.reset();
  return p.removing(async () => {
    await p.composer.flushAll(); // what the inspector's composer queued goes in first, then is forgotten too
    await p.bulkRetries.cancelAll(); // Issues' retry jobs end first: they walk groups and deliveries the reset forgets
    const outcome = await p.delivery.whileRemoving(() => p.writer.write({ op: 'reset', now: p.clock.now() }));
    p.receiver.clearInbox();
    p.queries.forget();
    p.bus.emit('store.reset', null);
    return { messages: outcome.changed };
  });
}

/** Settings' storage figures: the store's (store/storage-figures.ts) with the retention in use and the last prune. */
function storageView(p: OperationContext): Responses['storage.stats'] {
  const { retention, from } = p.pruner.retention();
  return { ...storageFigures(p.db, p.dataDir), retention, retentionFrom: from, configured: p.pruner.configured, lastPrune: p.pruner.lastPrune() };
}
