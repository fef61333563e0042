import { useEffect, useId, useState } from 'react';
import { Field } from '../../components/Field.tsx';
import { fromLocalInput, toLocalInput } from '../../lib/local-time.ts';
import { TIME_PRESETS, type TimeRange } from '../../store/filters.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';

const HOUR = 3_600_000;

function selectValue(range: TimeRange): string {
  if (range.kind === 'last') return `last:${range.ms}`;
  return range.kind === 'between' ? 'custom' : 'all';
}

/**
 * The stream's time range: presets that slide with the clock (last 5 min, 1 h, 24 h), all time, or a
 * custom from/to (either may stay empty). A custom range applies as soon as it is valid.
 */
export function TimeRangeSelect() {
  const inspector = useInspector();
  const time = useInspectorState((s) => s.filters.time);
  return (
    <Field label="Time">
      {(control) => (
        <select
          {...control}
          aria-label="Time range"
          value={selectValue(time)}
          onChange={(e) => {
            const value = e.target.value;
            if (value === 'all') inspector.setFilters({ time: { kind: 'all' } });
            else if (value === 'custom') {
              // Start from what was shown: the preset's window, or the last hour.
              const from = time.kind === 'last' ? Date.now() - time.ms : Date.now() - HOUR;
              inspector.setFilters({ time: { kind: 'between', from: Math.floor(from / 1000) * 1000, to: null } });
            } else inspector.setFilters({ time: { kind: 'last', ms: Number(value.slice('last:'.length)) } });
          }}
        >
          <option value="all">All time</option>
          {TIME_PRESETS.map((p) => (
            <option key={p.ms} value={`last:${p.ms}`}>
              {p.label}
            </option>
          ))}
          <option value="custom">Custom range…</option>
        </select>
      )}
    </Field>
  );
}

/** The custom range's from/to inputs, shown under the filter bar while a custom range is chosen. */
export function CustomTimeRange() {
  const inspector = useInspector();
  const time = useInspectorState((s) => s.filters.time);
  const errorId = useId();
  const applied = time.kind === 'between' ? time : null;
  const [from, setFrom] = useState(applied?.from != null ? toLocalInput(applied.from) : '');
  const [to, setTo] = useState(applied?.to != null ? toLocalInput(applied.to) : '');
  const [problem, setProblem] = useState<string | null>(null);

  // The range changed elsewhere (chosen in the select): show it.
  useEffect(() => {
    if (!applied) return;
    if (fromLocalInput(from) !== applied.from) setFrom(applied.from !== null ? toLocalInput(applied.from) : '');
    if (fromLocalInput(to) !== applied.to) setTo(applied.to !== null ? toLocalInput(applied.to) : '');
  }, [applied?.from, applied?.to]);

  if (!applied) return null;

  const apply = (nextFrom: string, nextTo: string) => {
    const a = nextFrom.trim() === '' ? null : fromLocalInput(nextFrom);
    const b = nextTo.trim() === '' ? null : fromLocalInput(nextTo);
    if ((nextFrom.trim() !== '' && a === null) || (nextTo.trim() !== '' && b === null)) {
      setProblem('Enter a complete date and time (or leave the field empty for no bound).');
      return;
    }
    if (a !== null && b !== null && a > b) {
      setProblem('The start is after the end: pick a start before the end.');
      return;
    }
    setProblem(null);
    // "To" covers its whole second: a message at 12:00:00.500 is "until 12:00:00".
    inspector.setFilters({ time: { kind: 'between', from: a, to: b === null ? null : b + 999 } });
  };

  return (
    <div className="filter-range" role="group" aria-label="Custom time range">
      <Field label="From">
        {(control) => (
          <input
            {...control}
            type="datetime-local"
            step={1}
            aria-label="From"
            aria-invalid={problem !== null}
            aria-describedby={errorId}
            value={from}
            onChange={(e) => {
              setFrom(e.target.value);
              apply(e.target.value, to);
            }}
          />
        )}
      </Field>
      <Field label="To">
        {(control) => (
          <input
            {...control}
            type="datetime-local"
            step={1}
            aria-label="To"
            aria-invalid={problem !== null}
            aria-describedby={errorId}
            value={to}
            onChange={(e) => {
              setTo(e.target.value);
              apply(from, e.target.value);
            }}
          />
        )}
      </Field>
      <p id={errorId} className="filter-range-note" aria-live="polite">
        {problem ? <span className="error-text">{problem}</span> : <span className="muted">Leave a field empty for an open end.</span>}
      </p>
    </div>
  );
}
