import { useCallback, useEffect, useRef, useState } from 'react';
import type { AudienceMemberView, AudienceSyncMessageView, AudienceSyncView, AudienceView } from '../../../../shared/audiences.ts';
import type { CoreEvent } from '../../../../shared/contract.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';

/** A burst of events costs one reload at most this often. */
const RELOAD_MS = 300;

/**
 * Loads something from the core, again when `shouldReload` says an event batch concerns it (at most
 * once per RELOAD_MS) and after a reconnect. Answers to an older load are dropped.
 */
function useLive<T>(
  load: () => Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>,
  shouldReload: (events: CoreEvent[], current: T | null) => boolean,
  what: string,
  /** Loads again when this changes (e.g. a search). */
  key = '',
) {
  const inspector = useInspector();
  const connected = useInspectorState((s) => s.connection.kind === 'open');
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const current = useRef<T | null>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  const shouldReloadRef = useRef(shouldReload);
  shouldReloadRef.current = shouldReload;

  const reload = useCallback(async () => {
    const number = ++generation.current;
    const result = await loadRef.current();
    if (number !== generation.current) return;
    if (result.ok) {
      current.current = result.value;
      setData(result.value);
      setError(null);
    } else {
      setError(`Could not load ${what}: ${result.error.message}`);
    }
  }, [what]);

  useEffect(() => {
    const off = inspector.subscribe((events) => {
      if (timer.current !== undefined || !shouldReloadRef.current(events, current.current)) return;
      timer.current = setTimeout(() => {
        timer.current = undefined;
        void reload();
      }, RELOAD_MS);
    });
    return () => {
      off();
      clearTimeout(timer.current);
      timer.current = undefined;
    };
  }, [inspector, reload]);

  useEffect(() => {
    if (connected) void reload();
  }, [connected, reload, key]);

  return { data, error, reload };
}

const audiencesChanged = (events: CoreEvent[], id?: number) =>
  events.some((e) => e.type === 'audiences.changed' && (id === undefined || e.audienceId === id));

export function useAudiences() {
  const inspector = useInspector();
  const { data, error, reload } = useLive(
    () => inspector.call('audiences.list', {}),
    (events) => audiencesChanged(events) || events.some((e) => e.type === 'settings.changed'),
    'audiences',
  );
  return { audiences: data?.audiences ?? null, error, reload };
}

/** Deliveries of these counts are not final yet: their status will change. */
const unsettled = (counts: Partial<Record<string, number>>) => (counts.pending ?? 0) + (counts.retrying ?? 0) > 0;

export function useSyncHistory(audienceId: number) {
  const inspector = useInspector();
  const { data, error, reload } = useLive(
    () => inspector.call('audiences.history', { id: audienceId, limit: 50 }),
    (events, current) =>
      audiencesChanged(events, audienceId) ||
      (events.some((e) => e.type === 'deliveries.changed') && (current?.syncs.some((s) => unsettled(s.deliveryStatus)) ?? false)),
    'the sync history',
    String(audienceId),
  );
  return { syncs: (data?.syncs ?? null) as AudienceSyncView[] | null, error, reload };
}

export function useSyncMessages(syncId: number) {
  const inspector = useInspector();
  const { data, error } = useLive(
    () => inspector.call('audiences.syncMessages', { syncId, limit: 200 }),
    (events, current) => {
      if (!current) return false;
      const ids = new Set(current.messages.map((m) => m.id));
      return events.some((e) => e.type === 'deliveries.changed' && e.changes.some((c) => c.messageId !== null && ids.has(c.messageId)));
    },
    'the messages of this sync',
    String(syncId),
  );
  return { messages: (data?.messages ?? null) as AudienceSyncMessageView[] | null, more: data?.next != null, total: data?.sync.messages ?? 0, error };
}

export function useMembers(audienceId: number, search: string) {
  const inspector = useInspector();
  const { data, error } = useLive(
    () => inspector.call('audiences.members', { id: audienceId, limit: 200, ...(search ? { search } : {}) }),
    (events) => events.some((e) => e.type === 'audiences.changed' && e.audienceId === audienceId && e.reason === 'synced'),
    'the members',
    search,
  );
  return { members: (data?.members ?? null) as AudienceMemberView[] | null, total: data?.total ?? 0, error };
}

export type { AudienceView };
