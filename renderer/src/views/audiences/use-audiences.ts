import type { AudienceMemberView, AudienceSyncMessageView, AudienceSyncView, AudienceView } from '../../../../shared/audiences.ts';
import type { CoreEvent } from '../../../../shared/contract.ts';
import { useLive } from '../../store/use-live.ts';
import { useInspector } from '../../store/react.ts';

/** A burst of events costs one reload at most this often (store/use-live.ts: one load at a time, the wait grows with a slow core). */
const RELOAD_MS = 300;

const audiencesChanged = (events: CoreEvent[], id?: number) =>
  events.some((e) => e.type === 'audiences.changed' && (id === undefined || e.audienceId === id));

export function useAudiences() {
  const inspector = useInspector();
  const { data, error, reload } = useLive({
    load: () => inspector.call('audiences.list', {}),
    concerns: (events) => audiencesChanged(events) || events.some((e) => e.type === 'settings.changed'),
    what: 'audiences',
    everyMs: RELOAD_MS,
  });
  return { audiences: data?.audiences ?? null, error, reload };
}

/** Deliveries of these counts are not final yet: their status will change. */
const unsettled = (counts: Partial<Record<string, number>>) => (counts.pending ?? 0) + (counts.retrying ?? 0) > 0;

export function useSyncHistory(audienceId: number) {
  const inspector = useInspector();
  const { data, error, reload } = useLive({
    load: () => inspector.call('audiences.history', { id: audienceId, limit: 50 }),
    concerns: (events, current) =>
      audiencesChanged(events, audienceId) ||
      (events.some((e) => e.type === 'deliveries.changed') && (current?.syncs.some((s) => unsettled(s.deliveryStatus)) ?? false)),
    what: 'the sync history',
    key: String(audienceId),
    everyMs: RELOAD_MS,
  });
  return { syncs: (data?.syncs ?? null) as AudienceSyncView[] | null, error, reload };
}

export function useSyncMessages(syncId: number) {
  const inspector = useInspector();
  const { data, error } = useLive({
    load: () => inspector.call('audiences.syncMessages', { syncId, limit: 200 }),
    concerns: (events, current) => {
      if (!current) return false;
      const ids = new Set(current.messages.map((m) => m.id));
      return events.some((e) => e.type === 'deliveries.changed' && e.changes.some((c) => c.messageId !== null && ids.has(c.messageId)));
    },
    what: 'the messages of this sync',
    key: String(syncId),
    everyMs: RELOAD_MS,
  });
  return { messages: (data?.messages ?? null) as AudienceSyncMessageView[] | null, more: data?.next != null, total: data?.sync.messages ?? 0, error };
}

export function useMembers(audienceId: number, search: string) {
  const inspector = useInspector();
  const { data, error } = useLive({
    load: () => inspector.call('audiences.members', { id: audienceId, limit: 200, ...(search ? { search } : {}) }),
    concerns: (events) => events.some((e) => e.type === 'audiences.changed' && e.audienceId === audienceId && e.reason === 'synced'),
    what: 'the members',
    key: search,
    everyMs: RELOAD_MS,
    // The members found so far stay shown while a search being typed loads.
    keepAcrossKeys: true,
  });
  return { members: (data?.members ?? null) as AudienceMemberView[] | null, total: data?.total ?? 0, error };
}

export type { AudienceView };
