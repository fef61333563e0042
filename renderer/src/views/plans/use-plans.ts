import { useEffect } from 'react';
import { useStore } from 'zustand';
import type { PlanStats, RecheckProgress, TrackingPlanView } from '../../../../shared/tracking-plan.ts';
import { useLive } from '../../store/use-live.ts';
import { useInspector } from '../../store/react.ts';
import { recheckOf } from './recheck-store.ts';

/**
 * The plans in use; read again on `plans.changed` (a file edited, an event added) and when settings
 * change. Its answer also says which re-check is under way: the re-check store follows it (a re-check
 * started before this page opened shows where it is; one the store thinks is running but the core no
 * longer runs has ended without its last event reaching this page).
 */
export function usePlans() {
  const inspector = useInspector();
  const recheck = recheckOf(inspector);
  const { data, error, reload } = useLive({
    load: async () => {
      const seen = recheck.seen();
      const answer = await inspector.call('plans.list', {});
      return answer.ok ? { ok: true as const, value: { ...answer.value, seen } } : answer;
    },
    concerns: (events) => events.some((e) => e.type === 'plans.changed' || e.type === 'settings.changed' || e.type === 'store.reset'),
    what: 'the tracking plans',
    everyMs: 150,
  });
  useEffect(() => {
    if (data) recheck.follow(data.recheck as RecheckProgress | null, data.seen);
  }, [recheck, data]);
  return { plans: (data?.plans ?? null) as TrackingPlanView[] | null, error, reload };
}

/**
 * A plan's counts: read again as messages arrive (at most about once a second, one request at a
 * time), when plans or stored violations change, and when a re-check's end was missed. Every `messages.stored` batch counts: it carries
 * ids only, and which source they came from is not known without reading them.
 */
export function usePlanStats(name: string) {
  const inspector = useInspector();
  const { data, error, reload } = useLive({
    load: () => inspector.call('plans.stats', { name }),
    concerns: (events) =>
      events.some((e) => e.type === 'messages.stored' || e.type === 'plans.changed' || e.type === 'store.reset' || e.type === 'plans.recheck'),
    what: `the counts of ${name}`,
    key: name,
    everyMs: 1000,
  });
  // A re-check that ended without its last event reaching the page: read the counts again.
  const lost = useStore(recheckOf(inspector).store, (s) => s.lost);
  useEffect(() => {
    if (lost) reload();
  }, [lost, reload]);
  return { stats: data as PlanStats | null, error, reload };
}
