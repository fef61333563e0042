import { useCallback, useLayoutEffect, useState, type RefObject } from 'react';

export interface VirtualWindow {
  /** First and one-past-last row index to render. */
  start: number;
  end: number;
  /**
   * The window's fixed size (rows) for this viewport: key rendered rows by `index % size` and a row
   * leaving the window hands its DOM to the row entering it, instead of one being removed and one created.
   */
  size: number;
  viewportHeight: number;
}

/** Rows are rendered in chunks of this many, so scrolling re-renders once per chunk, not per pixel. */
const CHUNK = 8;

/**
 * Which rows [start, end) to render: those in view plus `overscan` rows either side, the start
 * aligned to a chunk, and always the same number of rows (`size`) for a given viewport height.
 */
export function windowFor(scrollTop: number, viewportHeight: number, count: number, rowHeight: number, overscan: number): { start: number; end: number; size: number } {
  const size = Math.ceil((Math.ceil(viewportHeight / rowHeight) + 1 + 2 * overscan + CHUNK) / CHUNK) * CHUNK;
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const start = Math.max(0, Math.min(Math.floor((first - overscan) / CHUNK) * CHUNK, Math.ceil((count - size) / CHUNK) * CHUNK));
  const end = Math.min(count, start + size);
  return { start, end: Math.max(start, end), size };
}

/**
 * A fixed-row-height virtualizer: the container scrolls a spacer `count × rowHeight` tall, and only
 * the rows in view are rendered, absolutely positioned. Re-renders only when the window moves by a chunk.
 */
export function useVirtualWindow(ref: RefObject<HTMLElement | null>, count: number, rowHeight: number, overscan = 12): VirtualWindow & { recompute: () => void } {
  const [state, setState] = useState<VirtualWindow>({ start: 0, end: Math.min(count, 40), size: 40, viewportHeight: 0 });
  const recompute = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    const viewportHeight = el.clientHeight;
    const { start, end, size } = windowFor(el.scrollTop, viewportHeight, count, rowHeight, overscan);
    setState((prev) =>
      prev.start === start && prev.end === end && prev.size === size && prev.viewportHeight === viewportHeight ? prev : { start, end, size, viewportHeight },
    );
  }, [ref, count, rowHeight, overscan]);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    recompute();
    el.addEventListener('scroll', recompute, { passive: true });
    const observer = new ResizeObserver(recompute);
    observer.observe(el);
    return () => {
      el.removeEventListener('scroll', recompute);
      observer.disconnect();
    };
  }, [ref, recompute]);

  return { ...state, recompute };
}
