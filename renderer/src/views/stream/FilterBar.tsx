import { useId, type RefObject } from 'react';
import type { MessageType } from '../../../../shared/messages.ts';
import { Field } from '../../components/Field.tsx';
import { SourcePicker } from '../../components/SourcePicker.tsx';
import { MESSAGE_TYPES } from '../../store/filters.ts';
import { OUTCOME_KINDS, OUTCOME_NAMES, type OutcomeKind } from '../../store/outcome.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { BulkReplayButton } from '../replay/BulkReplay.tsx';
import { RetrySearchButton } from '../issues/RetrySearchButton.tsx';
import { StreamStorageActions } from '../storage/StreamStorageActions.tsx';
import { SearchBox } from './SearchBox.tsx';
import { SavedSearches } from './SavedSearches.tsx';
import { CustomTimeRange, TimeRangeSelect } from './TimeRangeFilter.tsx';
import { PINNED_SEARCH } from './pin.ts';

const NO_SOURCES: never[] = [];

/**
 * Type, status, violations, source, time range and the search (SearchBox.tsx: the query language), the
 * event and plan chips, the "Replay…" action for the filtered set or every failed delivery, "Retry
 * failed…" for the filtered set's failed and retrying deliveries (views/issues/), and the
 * storage actions: Export…, Clear these… and Import… (views/storage/).
 */
export function FilterBar({ searchRef }: { searchRef: RefObject<HTMLInputElement | null> }) {
  const inspector = useInspector();
  const filters = useInspectorState((s) => s.filters);
  const sources = useInspectorState((s) => s.info?.sources) ?? NO_SOURCES;

  return (
    <div className="filters" role="search" aria-label="Filter messages">
      <div className="filter-bar">
        <Field label="Type">
          {(control) => (
            <select
              {...control}
              aria-label="Type"
              value={filters.type ?? ''}
              onChange={(e) => inspector.setFilters({ type: (e.target.value || null) as MessageType | null })}
            >
              <option value="">All types</option>
              {MESSAGE_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Status">
          {(control) => (
            <select
              {...control}
              aria-label="Status"
              value={filters.status ?? ''}
              onChange={(e) => inspector.setFilters({ status: (e.target.value || null) as OutcomeKind | null })}
            >
              <option value="">Any status</option>
              {OUTCOME_KINDS.map((k) => (
                <option key={k} value={k}>
                  {OUTCOME_NAMES[k]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <FilterToggle
          label="Plan"
          className="violations-toggle"
          icon="⚠"
          text="Violations"
          whenOn="Showing only messages that break a tracking plan: click to show all"
          whenOff="Show only messages that break a tracking plan"
          on={filters.violations === true}
          onChange={(on) => inspector.setFilters({ violations: on })}
        />
        <FilterToggle
          label="Pins"
          className="pinned-toggle"
          icon="⚑"
          text="Pinned"
          whenOn="Showing only pinned messages (pinned:true): click to show all"
          whenOff="Show only pinned messages (pinned:true)"
          on={filters.search.trim() === PINNED_SEARCH}
          onChange={(on) => inspector.setFilters({ search: on ? PINNED_SEARCH : '' })}
        />
        <Field label="Source">
          {(control) => (
            <SourcePicker
              {...control}
              aria-label="Source"
              sources={sources}
              value={filters.sourceId}
              anyLabel="All sources"
              onChange={(sourceId) => inspector.setFilters({ sourceId })}
            />
          )}
        </Field>
        <TimeRangeSelect />
        <SearchBox searchRef={searchRef} />
        <SavedSearches />
        <BulkReplayButton />
        <RetrySearchButton />
        <StreamStorageActions />
      </div>
      <CustomTimeRange />
      <FilterChips event={filters.event} plan={filters.plan} onRemove={(patch) => inspector.setFilters(patch)} />
    </div>
  );
}

/**
 * The filters with no control of their own (set from the Tracking plans view's counts), each a chip
 * that says why the list is narrowed and removes the filter when pressed. Esc and "Clear filters"
 * clear them with the rest.
 */
function FilterChips({ event, plan, onRemove }: { event: string | undefined; plan: string | undefined; onRemove: (patch: { event?: undefined; plan?: undefined }) => void }) {
  const hint = useId();
  if (!event && !plan) return null;
  return (
    <div className="filter-chips" role="group" aria-label="Also narrowed to">
      <span id={hint} hidden>
        Removes this filter
      </span>
      {event ? (
        <button type="button" className="filter-chip" aria-describedby={hint} title="Only this event, page or screen name: remove" onClick={() => onRemove({ event: undefined })}>
          event: {event}
          <span aria-hidden="true"> ×</span>
        </button>
      ) : null}
      {plan ? (
        <button
          type="button"
          className="filter-chip filter-chip-plan"
          aria-describedby={hint}
          title={`Only messages that break the tracking plan “${plan}”: remove`}
          onClick={() => onRemove({ plan: undefined })}
        >
          plan: {plan}
          <span aria-hidden="true"> ×</span>
        </button>
      ) : null}
    </div>
  );
}

/**
 * A filter that is on or off, as a pressed button beside the selects: only the messages that break a
 * tracking plan (`violations: true` in messages.list and in a filter replay — a toggle beside Status,
 * not one of its options: a message with violations has a delivery outcome of its own), or only the
 * pinned ones (the search `pinned:true`: the box shows it, so the query is learnt).
 */
function FilterToggle(props: { label: string; className: string; icon: string; text: string; whenOn: string; whenOff: string; on: boolean; onChange: (on: boolean) => void }) {
  const { label, className, icon, text, whenOn, whenOff, on, onChange } = props;
  return (
    <div className="field">
      <span className="field-label" aria-hidden="true">
        {label}
      </span>
      <button type="button" className={`btn ${className}`} aria-pressed={on} title={on ? whenOn : whenOff} onClick={() => onChange(!on)}>
        <span aria-hidden="true">{icon} </span>
        {text}
      </button>
    </div>
  );
}
