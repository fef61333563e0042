// The timeline: the current search's messages over time, one bar per bucket. Drag across bars (the
// brush) to set the list's time range to them; by keyboard, the bars are one stop (←/→ move, Home/End,
// Shift+←/→ widen the selection, Enter or Space applies it: one bucket, or the widened range).
import { useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { TimelineView } from '../../../../shared/contract.ts';
import { formatCount, plural } from '../../lib/format.ts';

/** Local "hh:mm:ss" (and the date when the span crosses days). */
function when(at: number, withDate: boolean): string {
  const d = new Date(at);
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  return withDate ? `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}` : time;
}

export function Timeline({ timeline, onRange }: { timeline: TimelineView; onRange: (from: number, to: number) => void }) {
  const { from, bucketMs, counts } = timeline;
  const max = Math.max(1, ...counts);
  const [focus, setFocus] = useState(counts.length - 1);
  const [selection, setSelection] = useState<{ anchor: number; end: number } | null>(null);
  const dragging = useRef(false);
  const bars = useRef<(HTMLButtonElement | null)[]>([]);
  const days = new Date(from).toDateString() !== new Date(from + counts.length * bucketMs).toDateString();
  const start = (i: number) => from + i * bucketMs;
  const low = selection ? Math.min(selection.anchor, selection.end) : -1;
  const high = selection ? Math.max(selection.anchor, selection.end) : -1;

  const apply = (a: number, b: number) => {
    setSelection(null);
    onRange(start(Math.min(a, b)), start(Math.max(a, b) + 1) - 1);
  };
  const move = (i: number, widen: boolean) => {
    const next = Math.max(0, Math.min(counts.length - 1, i));
    setFocus(next);
    setSelection(widen ? { anchor: selection?.anchor ?? focus, end: next } : null);
    bars.current[next]?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') move(focus + (event.key === 'ArrowLeft' ? -1 : 1), event.shiftKey);
    else if (event.key === 'Home') move(0, event.shiftKey);
    else if (event.key === 'End') move(counts.length - 1, event.shiftKey);
    else if (event.key === 'Enter' || event.key === ' ') apply(selection?.anchor ?? focus, selection?.end ?? focus);
    else if (event.key === 'Escape' && selection) setSelection(null);
    else return;
    event.preventDefault();
    event.stopPropagation();
  };
  const barAt = (event: PointerEvent) => {
    const index = (event.target as HTMLElement).closest<HTMLElement>('[data-bucket]')?.dataset.bucket;
    return index === undefined ? null : Number(index);
  };

  return (
    <div className="timeline">
      <div
        className="timeline-bars"
        role="group"
        aria-label={`Messages over time, ${plural(Math.round(bucketMs / 1000), 'second')} a bar: drag across bars, or use the arrow keys and Enter (Shift widens), to show only that time`}
        onKeyDown={onKeyDown}
        onPointerDown={(event) => {
          const i = barAt(event);
          if (i === null || event.button !== 0) return;
          dragging.current = true;
          (event.currentTarget as HTMLElement).setPointerCapture?.(event.pointerId);
          setSelection({ anchor: i, end: i });
          event.preventDefault();
        }}
        onPointerMove={(event) => {
          if (!dragging.current || !selection) return;
          const under = document.elementFromPoint(event.clientX, event.clientY)?.closest<HTMLElement>('[data-bucket]')?.dataset.bucket;
          if (under !== undefined) setSelection({ anchor: selection.anchor, end: Number(under) });
        }}
        onPointerUp={() => {
          if (!dragging.current || !selection) return;
          dragging.current = false;
          apply(selection.anchor, selection.end);
        }}
      >
        {counts.map((n, i) => (
          <button
            key={i}
            ref={(el) => {
              bars.current[i] = el;
            }}
            type="button"
            className="timeline-bar"
            data-bucket={i}
            tabIndex={i === focus ? 0 : -1}
            aria-pressed={i >= low && i <= high}
            aria-label={`${when(start(i), days)} – ${when(start(i + 1), days)}: ${plural(n, 'message')}`}
            title={`${when(start(i), days)} – ${when(start(i + 1), days)}: ${formatCount(n)}`}
            onFocus={() => setFocus(i)}
            onClick={(event) => event.preventDefault()}
          >
            <span className="timeline-fill" style={{ height: `${n === 0 ? 0 : Math.max(4, Math.round((n / max) * 100))}%` }} />
          </button>
        ))}
      </div>
      <div className="timeline-axis" aria-hidden="true">
        <span>{when(from, days)}</span>
        <span>{when(start(counts.length), days)}</span>
      </div>
      <p className="hint timeline-note">
        {timeline.exact
          ? `Every match, ${plural(Math.round(bucketMs / 1000), 'second')} a bar.`
          : `The latest matches only, since ${when(timeline.since ?? from, true)} (older ones are not drawn), ${plural(Math.round(bucketMs / 1000), 'second')} a bar.`}
      </p>
    </div>
  );
}
