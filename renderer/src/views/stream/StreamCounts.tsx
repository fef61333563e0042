import { useId, useState, type ReactNode } from 'react';
import { formatCount, absoluteTime, plural } from '../../lib/format.ts';
import { fromLocalInput, toLocalInput } from '../../lib/local-time.ts';
import { hasFilters } from '../../store/filters.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';

/**
 * The footer's counts: "12,481 of 1,034,227 messages" under filters, "1,034,227 messages" without,
 * and how many rows are loaded (more load as the view reaches them).
 */
export function StreamCounts({ loaded, more }: { loaded: number; more: boolean }) {
  const counts = useInspectorState((s) => s.counts);
  const filtered = useInspectorState((s) => hasFilters(s.filters));
  const counting = useInspectorState((s) => s.counting);
  const words = !counts
    ? counting
      ? 'Counting…'
      : ''
    : filtered
      ? `${formatCount(counts.matching)} of ${plural(counts.total, 'message')} ${counts.matching === 1 ? 'matches' : 'match'}`
      : plural(counts.total, 'message');
  return (
    <span className="stream-counts" data-testid="stream-counts">
      <span>{words}</span>
      <span className="muted">
        {words ? ' · ' : ''}
        {formatCount(loaded)} loaded{more ? ', more as you scroll' : ''}
      </span>
    </span>
  );
}

/** Jump to the oldest matches, or to a time; the list then waits there (StreamList's banner goes back). */
export function JumpControls() {
  const inspector = useInspector();
  const jumped = useInspectorState((s) => s.jumped);
  const [open, setOpen] = useState(false);
  const [when, setWhen] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const ids = { input: useId(), error: useId() };
  return (
    <span className="stream-jump">
      <button type="button" className="btn btn-small" aria-pressed={jumped?.to === 'oldest'} onClick={() => inspector.jump('oldest')} title="Show the oldest messages that match">
        ⤓ Oldest
      </button>
      <button type="button" className="btn btn-small" aria-expanded={open} onClick={() => (setOpen(!open), setWhen(when || toLocalInput(Date.now() - 3_600_000)))}>
        Go to time…
      </button>
      {open ? (
        <form
          className="stream-jump-form"
          onSubmit={(e) => {
            e.preventDefault();
            const at = fromLocalInput(when);
            if (at === null) return setProblem('Give a date and time, e.g. 2026-11-27 14:30');
            setProblem(null);
            setOpen(false);
            inspector.jump(at);
          }}
        >
          <label htmlFor={ids.input}>Messages received at or before</label>
          <input
            id={ids.input}
            type="datetime-local"
            step={1}
            value={when}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? ids.error : undefined}
            onChange={(e) => setWhen(e.target.value)}
          />
          <button type="submit" className="btn btn-small btn-primary">
            Go
          </button>
          {problem ? (
            <span className="field-error" id={ids.error} role="alert">
              {problem}
            </span>
          ) : null}
        </form>
      ) : null}
      {typeof jumped?.to === 'number' ? <span className="muted"> at {absoluteTime(jumped.to)}</span> : null}
    </span>
  );
}

/** Away from the newest (a jump): what the list shows, and the way back. */
export function JumpedBanner({ children }: { children: ReactNode }) {
  const inspector = useInspector();
  return (
    <div className="stream-jumped" role="status">
      <span>{children}</span>
      <button type="button" className="btn btn-small" onClick={() => inspector.backToNewest()}>
        Back to newest
      </button>
    </div>
  );
}
