// The stream's operations (`messages.*` of shared/channels/messages.ts): its pages, counts, live rows
// and a message's detail.
import type { MessageSummary } from '../../../../shared/contract.ts';
import { shownDelivery } from '../../../../shared/shown-delivery.ts';
import { OperationError } from '../../operation-error.ts';
import type { StoredMessage } from '../../store/messages-repo.ts';
import { jumpedPage } from '../jumped-page.ts';
import { summaryFields, summaryOf, viewWithAttempts, withBodyPreview } from '../views.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

/** How many messages one `messages.list` call with a `delivery` filter reads at most, and per chunk. */
const DELIVERY_SCAN_LIMIT = 20_000;
const DELIVERY_SCAN_CHUNK = 1000;

export function messageOperations(p: OperationContext): OperationsOf<'messages.list' | 'messages.count' | 'messages.byIds' | 'messages.get' | 'messages.pin'> {
  const { deliveries, messages } = p;

  /** Messages as rows of the stream: each with the delivery its row shows, and its audience tag. */
  const summarize = (page: StoredMessage[]): MessageSummary[] => {
    const byMessage = deliveries.forMessages(page.map((m) => m.id));
    const tags = p.audiences.repo.tags(page.filter((m) => m.origin === 'audience').map((m) => m.id));
    const shown = new Map(page.map((m) => [m.id, shownDelivery(byMessage.get(m.id) ?? [])]));
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

  return {
    'messages.list': async (request) => {
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
    /** How many messages there are, and how many match (store/message-counter.ts: off the core's thread). */
    'messages.count': (request) => p.counter.count(request),
    'messages.byIds': ({ ids, search }) => {
      const found = summarize(messages.byIds(ids).reverse());
      if (!search?.trim()) return { messages: found };
      const matching = messages.matchingIds(found.map((m) => m.id), search);
      return { messages: found.map((m) => ({ ...m, matchesSearch: matching.has(m.id) })) };
    },
    'messages.get': ({ id }) => {
      const record = messages.get(id);
      if (!record) throw new OperationError('not_found', `there is no message ${id}`);
      const own = deliveries.forMessage(id, { bodies: true }).map((d) => viewWithAttempts(d, deliveries.attempts(d.id)));
      const shown = shownDelivery(own);
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
    'messages.pin': async ({ ids, pinned }) => {
      const { changed } = await p.writer.write({ op: 'pin', ids, pinned });
      if (changed > 0) p.bus.emit('messages.pinned', { ids, pinned });
      return { changed };
    },
  };
}
