import { useRef, type KeyboardEvent, type PointerEvent } from 'react';

/** A vertical splitter between two panes: drag it, or focus it and use ←/→. */
export function Splitter({ value, min, max, onChange, label }: {
  value: number;
  min: number;
  max: number;
  onChange: (value: number) => void;
  label: string;
}) {
  const drag = useRef<{ x: number; value: number } | null>(null);
  const clamp = (v: number) => Math.round(Math.min(max, Math.max(min, v)));
  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={value}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      className="splitter"
      onPointerDown={(event: PointerEvent<HTMLDivElement>) => {
        drag.current = { x: event.clientX, value };
        event.currentTarget.setPointerCapture(event.pointerId);
      }}
      onPointerMove={(event) => {
        if (drag.current) onChange(clamp(drag.current.value + event.clientX - drag.current.x));
      }}
      onPointerUp={() => (drag.current = null)}
      onPointerCancel={() => (drag.current = null)}
      onKeyDown={(event: KeyboardEvent) => {
        const step = event.shiftKey ? 80 : 20;
        if (event.key === 'ArrowLeft') onChange(clamp(value - step));
        else if (event.key === 'ArrowRight') onChange(clamp(value + step));
        else return;
        event.preventDefault();
        event.stopPropagation();
      }}
    />
  );
}
