// The facets and timeline of the stream's current filters and search (messages.facets,
// messages.timeline: counted in the core's counting thread). Asked again when the filters change,
// and when the footer's counts change (they follow arrivals, settled and throttled: inspector/counts.ts),
// at most once per MIN_GAP_MS; an answer to an older ask is dropped.
import { useEffect, useRef, useState } from 'react';
import type { FacetsView, TimelineView } from '../../../../shared/contract.ts';
import { listQuery } from '../../store/filters.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';

const MIN_GAP_MS = 2000;

export interface FacetsState {
  facets: FacetsView | null;
  timeline: TimelineView | null;
  loading: boolean;
  error: string | null;
}

export function useFacets(open: boolean, field: string): FacetsState {
  const inspector = useInspector();
  const filters = useInspectorState((s) => s.filters);
  const total = useInspectorState((s) => s.counts?.total ?? null);
  const [state, setState] = useState<FacetsState>({ facets: null, timeline: null, loading: false, error: null });
  const asked = useRef(0);
  const last = useRef({ key: '', at: 0 });

  useEffect(() => {
    if (!open) return;
    const query = listQuery(filters);
    const key = JSON.stringify([filters, field]);
    const sameQuery = key === last.current.key;
    const wait = sameQuery ? Math.max(0, last.current.at + MIN_GAP_MS - Date.now()) : 0;
    const timer = setTimeout(() => {
      const n = ++asked.current;
      last.current = { key, at: Date.now() };
      setState((s) => ({ ...s, loading: true, ...(sameQuery ? {} : { facets: null, timeline: null }) }));
      void Promise.all([inspector.call('messages.facets', { ...query, ...(field ? { field } : {}) }), inspector.call('messages.timeline', query)]).then(([facets, timeline]) => {
        if (n !== asked.current) return;
        const failed = [facets, timeline].find((r) => !r.ok && r.error.code !== 'superseded');
        setState({
          facets: facets.ok ? facets.value : null,
          timeline: timeline.ok ? timeline.value : null,
          loading: false,
          error: failed && !failed.ok ? failed.error.message : null,
        });
      });
    }, wait);
    return () => clearTimeout(timer);
  }, [inspector, open, filters, field, total]);

  return state;
}
