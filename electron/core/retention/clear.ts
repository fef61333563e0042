// Clearing, on request: every unpinned message, one source's, or the stream filter's set — with their
// deliveries (open ones too: the delivery engine lets go of them first) and attempts — in slices, then
// the freed pages go back to the disk. A dry run counts what would go, for the question asked first,
// in the counting thread (store/message-counter.ts): counting a filter's set may read every message.
import type { ClearScope } from '../../../shared/storage.ts';
import type { StorageResponses } from '../../../shared/channels/storage.ts';
import { bulkFilter, type MessagesRepo } from '../store/messages-repo.ts';
import type { DatabaseSync } from 'node:sqlite';
import type { StoreWriter } from '../writer/store-writer.ts';
import type { EventBus } from '../bus/event-bus.ts';
import type { CountQuery } from '../store/message-counts.ts';
import type { MessageCounter } from '../store/message-counter.ts';
import { SLICE, type Pruner } from './pruner.ts';

/**
 * What a clear needs of whatever sends the deliveries it removes: to hold its rounds and forget what it
 * read while `remove` runs (the root hands it the delivery engine; retention knows no engine).
 */
export interface DeliveryPause {
  whileRemoving<T>(remove: () => Promise<T>, options?: { keepBreakers?: boolean }): Promise<T>;
}

export interface ClearParts {
  db: DatabaseSync;
  messages: MessagesRepo;
  writer: StoreWriter;
  delivery: DeliveryPause;
  pruner: Pruner;
  counter: Pick<MessageCounter, 'count'>;
  bus: Pick<EventBus, 'emit'>;
}

type Cleared = StorageResponses['storage.clear'];

/**
 * The next slice of the scope's message ids after `afterId`, oldest first, up to the newest message
 * stored when the clear began: what arrives meanwhile is not what the user was asked about.
 */
function sliceOf(parts: ClearParts, scope: ClearScope): (afterId: number) => number[] {
  const upTo = (parts.db.prepare('SELECT coalesce(max(id), 0) AS id FROM messages').get() as { id: number }).id;
  if ('filter' in scope) return (afterId) => parts.messages.findIds(unpinned(scope.filter), SLICE, afterId).filter((id) => id <= upTo);
  const bySource = 'sourceId' in scope;
  const next = parts.db.prepare(`SELECT id FROM messages WHERE id > ? AND id <= ? AND pinned IS NULL ${bySource ? 'AND source_id = ?' : ''} ORDER BY id LIMIT ?`);
  return (afterId) => (next.all(afterId, upTo, ...(bySource ? [scope.sourceId] : []), SLICE) as { id: number }[]).map((r) => r.id);
}

/**
 * A clear passes over pinned messages (migration 23): the user asked to keep them. (A deletion request's
 * purge and a reset do remove them: one is the law's, the other forgets every id, which restart from 1.)
 */
const UNPINNED = '-pinned:true';

/** The filter without the pinned messages: its search with `-pinned:true` added. */
function unpinned<F extends { search?: string | undefined }>(filter: F): F {
  return { ...filter, search: filter.search?.trim() ? `${filter.search} ${UNPINNED}` : UNPINNED };
}

/** The scope as the counting thread's query: the messages a clear begun now would remove. */
function countQueryOf(scope: ClearScope): CountQuery {
  if ('all' in scope) return { search: UNPINNED };
  if ('sourceId' in scope) return { sourceId: scope.sourceId, search: UNPINNED };
  return bulkFilter(unpinned(scope.filter)); // as findIds reads it
}

export async function clearMessages(parts: ClearParts, scope: ClearScope, dryRun: boolean): Promise<Cleared> {
  const out: Cleared = { messages: 0, deliveries: 0, attempts: 0, bytesFreed: 0, dryRun };
  if (dryRun) {
    out.messages = (await parts.counter.count(countQueryOf(scope), 'clear')).matching;
    return out;
  }
  const next = sliceOf(parts, scope);
  const started = Date.now();
  // The engine holds its rounds and forgets what it read: nothing of what goes is sent afterwards.
  await parts.delivery.whileRemoving(
    async () => {
      for (let ids = next(0); ids.length > 0; ids = next(ids.at(-1)!)) {
        const { removed } = await parts.writer.write({ op: 'removeMessages', ids });
        if (removed?.messages) parts.bus.emit('messages.removed', { topId: removed.topId });
        out.messages += removed?.messages ?? 0;
        out.deliveries += removed?.deliveries ?? 0;
        out.attempts += removed?.attempts ?? 0;
      }
    },
    { keepBreakers: true },
  );
  out.bytesFreed = await parts.pruner.cleared({ messages: out.messages, deliveries: out.deliveries, attempts: out.attempts }, Date.now() - started);
  return out;
}
