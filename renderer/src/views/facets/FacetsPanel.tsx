// Facets and timeline over the stream's list (issue 29, point 5): for the current filters and search,
// the top values of event, type, source, userId and a payload field of the user's choosing, with
// counts — a value adds its clause to the search — and the messages over time, whose bars set the
// list's time range. Folded by default (remembered); counted in the core's counting thread.
import { useState } from 'react';
import type { FacetView } from '../../../../shared/contract.ts';
import { checkFacetPath, withClause } from '../../../../shared/facets.ts';
import { QueryError } from '../../../../shared/message-query.ts';
import { formatCount, plural } from '../../lib/format.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { Timeline } from './Timeline.tsx';
import { useFacets } from './use-facets.ts';
import './facets.css';

const OPEN_KEY = 'sluice.facets.open';
const FIELD_KEY = 'sluice.facets.field';

export function FacetsPanel() {
  const [open, setOpen] = useState(() => localStorage.getItem(OPEN_KEY) === '1');
  const [field, setField] = useState(() => localStorage.getItem(FIELD_KEY) ?? '');
  const [draft, setDraft] = useState(field);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const state = useFacets(open, field);
  const inspector = useInspector();
  const search = useInspectorState((s) => s.filters.search);

  const toggle = () => {
    localStorage.setItem(OPEN_KEY, open ? '0' : '1');
    setOpen(!open);
  };
  const chooseField = (path: string) => {
    const trimmed = path.trim();
    if (trimmed) {
      try {
        checkFacetPath(trimmed);
      } catch (error) {
        if (!(error instanceof QueryError)) throw error;
        setFieldError(error.message);
        return;
      }
    }
    setFieldError(null);
    localStorage.setItem(FIELD_KEY, trimmed);
    setField(trimmed);
  };

  return (
    <div className="facets-panel">
      <button type="button" className="btn btn-small facets-toggle" aria-expanded={open} aria-controls="facets-body" onClick={toggle}>
        {open ? '▾' : '▸'} Facets and timeline
      </button>
      {open ? (
        <div id="facets-body" className="facets-body" role="region" aria-label="Facets and timeline" aria-busy={state.loading}>
          {state.error ? <p className="error-text">{state.error}</p> : null}
          {state.timeline ? (
            <Timeline timeline={state.timeline} onRange={(from, to) => inspector.setFilters({ time: { kind: 'between', from, to } })} />
          ) : state.loading ? null : (
            <p className="hint">No message matches: nothing to draw.</p>
          )}
          <form
            className="facets-field"
            onSubmit={(event) => {
              event.preventDefault();
              chooseField(draft);
            }}
          >
            <label>
              Payload field
              <input
                type="text"
                className="mono"
                value={draft}
                placeholder="properties.plan"
                aria-invalid={fieldError !== null}
                aria-describedby={fieldError ? 'facets-field-error' : undefined}
                onChange={(e) => setDraft(e.target.value)}
              />
            </label>
            <button type="submit" className="btn btn-small">
              Count values
            </button>
            {fieldError ? (
              <p id="facets-field-error" className="error-text">
                {fieldError}
              </p>
            ) : null}
          </form>
          {state.facets ? (
            <>
              <p className="hint facets-note">
                {state.facets.complete
                  ? `Counted over every match (${plural(state.facets.counted, 'message')}).`
                  : `Counted over the latest ${formatCount(state.facets.counted)} matches only (counting every one would take seconds).`}
              </p>
              <div className="facets-grid">
                {state.facets.facets.map((facet) => (
                  <Facet key={facet.field} facet={facet} onPick={(clause) => inspector.setFilters({ search: withClause(search, clause) })} />
                ))}
              </div>
            </>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

function Facet({ facet, onPick }: { facet: FacetView; onPick: (clause: string) => void }) {
  const top = facet.values[0]?.count ?? 1;
  return (
    <section className="facet" aria-label={`${facet.field} values`}>
      <h3 className="facet-title mono">{facet.field}</h3>
      {facet.values.length === 0 ? <p className="hint">none</p> : null}
      <ul>
        {facet.values.map((v) => {
          const label = v.value === null ? '(none)' : v.value === '' ? '(empty)' : `${v.value}${v.cut ? '…' : ''}`;
          return (
            <li key={`${v.value}`}>
              <button
                type="button"
                className="facet-value"
                disabled={v.clause === null}
                title={v.clause ? `Search ${v.clause}` : 'No search clause picks this value'}
                // The visible text first (label, count), as speech-input users say it; then what it does.
                aria-label={`${label} ${formatCount(v.count)}: ${facet.field}, ${plural(v.count, 'message')}${v.clause ? `; adds ${v.clause} to the search` : ''}`}
                onClick={() => v.clause && onPick(v.clause)}
              >
                <span className="facet-bar" style={{ width: `${Math.round((v.count / top) * 100)}%` }} aria-hidden="true" />
                <span className="facet-label">{label}</span>{' '}
                <span className="facet-count">{formatCount(v.count)}</span>
              </button>
            </li>
          );
        })}
      </ul>
      {facet.others > 0 ? <p className="hint">{`${formatCount(facet.others)} with ${plural(facet.distinct - facet.values.length, 'other value')}`}</p> : null}
    </section>
  );
}
