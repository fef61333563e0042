import { useCallback, useEffect, useRef, useState } from 'react';
import type { CoreEvent } from '../../../../shared/contract.ts';
import type { PlanStats, TrackingPlanView } from '../../../../shared/tracking-plan.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { mergeProgress } from './plan-words.ts';
import { recheckOf } from './recheck-store.ts';

type Loaded<T> = { ok: true; value: T } | { ok: false; error: { message: string } };

/**
 * Loads something from the core, again when an event batch concerns it (at most once per `everyMs`),
 * after a reconnect and when `key` changes. Answers to an older load are dropped.
 */
function useLive<T>(load: () => Promise<Loaded<T>>, concerns: (events: CoreEvent[]) => boolean, what: string, key: string, everyMs: number) {
  const inspector = useInspector();
  const connected = useInspectorState((s) => s.connection.kind === 'open');
  const [data, setData] = useState<{ key: string; value: T } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const concernsRef = useRef(concerns);
  concernsRef.current = concerns;

  const reload = useCallback(async () => {
    const number = ++generation.current;
    const result = await loadRef.current();
    if (number !== generation.current) return;
    if (result.ok) {
      setData({ key, value: result.value });
      setError(null);
    } else {
      setError(`Could not load ${what}: ${result.error.message}`);
    }
  }, [what, key]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = inspector.subscribe((events) => {
      if (timer !== undefined || !concernsRef.current(events)) return;
      timer = setTimeout(() => {
        timer = undefined;
        void reload();
      }, everyMs);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [inspector, reload, everyMs]);

  useEffect(() => {
    if (connected) void reload();
  }, [connected, reload]);

  // Data of another key (another plan) is not shown while this one loads.
  return { data: data?.key === key ? data.value : null, error, reload };
}

/** The plans in use; read again on `plans.changed` (a file edited, an event added) and when settings change. */
export function usePlans() {
  const inspector = useInspector();
  const { data, error, reload } = useLive(
    () => inspector.call('plans.list', {}),
    (events) => events.some((e) => e.type === 'plans.changed' || e.type === 'settings.changed' || e.type === 'store.reset'),
    'the tracking plans',
    '',
    150,
  );
  const running = data?.recheck ?? null;
  useEffect(() => {
    // A re-check started before this page opened (or in another window): show where it is now.
    if (!running) return;
    const { store } = recheckOf(inspector);
    store.setState({ progress: mergeProgress(store.getState().progress, running) });
  }, [inspector, running]);
  return { plans: (data?.plans ?? null) as TrackingPlanView[] | null, error, reload };
}

/** A plan's counts: read again as messages arrive (at most once a second), and when plans or stored violations change. */
export function usePlanStats(name: string) {
  const inspector = useInspector();
  const { data, error, reload } = useLive(
    () => inspector.call('plans.stats', { name }),
    (events) =>
      events.some(
        (e) =>
          e.type === 'messages.stored' ||
          e.type === 'plans.changed' ||
          e.type === 'store.reset' ||
          e.type === 'plans.recheck',
      ),
    `the counts of ${name}`,
    name,
    1000,
  );
  return { stats: data as PlanStats | null, error, reload };
}
