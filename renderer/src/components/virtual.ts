import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from 'react';

export interface VirtualWindow {
  /** First and one-past-last row index to render. */
  start: number;
  end: number;
  /**
   * The window's fixed size (rows) for this viewport: key rendered rows by `index % size` and a row
   * leaving the window hands its DOM to the row entering it, instead of one being removed and one created.
   * Render them in key order too (see `slotIndex`): then no DOM node is ever moved.
   */
  size: number;
  viewportHeight: number;
}

/** Rows are rendered in chunks of this many, so scrolling re-renders once per chunk, not per pixel. */
const CHUNK = 8;

function windowSize(viewportHeight: number, rowHeight: number, overscan: number): number {
  return Math.ceil((Math.ceil(viewportHeight / rowHeight) + 1 + 2 * overscan + CHUNK) / CHUNK) * CHUNK;
}

/** The window's first row for a scroll position, before it is clamped to the row count. */
function chunkStart(scrollTop: number, rowHeight: number, overscan: number): number {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  return Math.max(0, Math.floor((first - overscan) / CHUNK) * CHUNK);
}

function clampWindow(start: number, size: number, count: number): { start: number; end: number; size: number } {
  const clamped = Math.max(0, Math.min(start, Math.ceil((count - size) / CHUNK) * CHUNK));
  return { start: clamped, end: Math.max(clamped, Math.min(count, clamped + size)), size };
}

/**
 * The row index that slot `slot` (0 ≤ slot < size, the key `index % size`) shows in the window that
 * starts at `start`, or -1 past the end. Rendering the slots in order keeps the children in the same
 * order whatever the window: rows are absolutely positioned, so DOM order is free, and React, seeing
 * the keys in the same order, updates the rows that changed instead of moving nodes around.
 */
export function slotIndex(slot: number, start: number, end: number, size: number): number {
  const index = start + ((slot - (start % size) + size) % size);
  return index < end ? index : -1;
}

/**
 * Which rows [start, end) to render: those in view plus `overscan` rows either side, the start
 * aligned to a chunk, and always the same number of rows (`size`) for a given viewport height.
 */
export function windowFor(scrollTop: number, viewportHeight: number, count: number, rowHeight: number, overscan: number): { start: number; end: number; size: number } {
  return clampWindow(chunkStart(scrollTop, rowHeight, overscan), windowSize(viewportHeight, rowHeight, overscan), count);
}

/**
 * A fixed-row-height virtualizer: the container scrolls a spacer `count × rowHeight` tall, and only
 * the rows in view are rendered, absolutely positioned. Its state is the scroll position rounded to
 * a chunk and the viewport's height: it re-renders only when the window moves by a chunk, and a
 * change of `count` (rows arriving) is applied during render — no effect, no layout read.
 * `scrolledTo(top)` tells it a scroll position the caller has just set (so the rows for it render
 * before the paint, without reading the layout back).
 */
export function useVirtualWindow(
  ref: RefObject<HTMLElement | null>,
  count: number,
  rowHeight: number,
  overscan = 12,
  /** The rows' position for a scroll position (a list taller than an element may be scrolls in scaled pixels: see scroll-scale.ts). */
  toVirtual: (scrollTop: number) => number = (scrollTop) => scrollTop,
): VirtualWindow & { scrolledTo: (scrollTop: number) => void } {
  const [position, setPosition] = useState({ start: 0, viewportHeight: 0 });
  const current = useRef(position);
  current.current = position;
  /** Sets the position; true when it changed. */
  const update = useCallback(
    (scrollTop: number, viewportHeight?: number) => {
      const prev = current.current;
      const start = chunkStart(scrollTop, rowHeight, overscan);
      const height = viewportHeight ?? prev.viewportHeight;
      if (prev.start === start && prev.viewportHeight === height) return false;
      current.current = { start, viewportHeight: height };
      setPosition(current.current);
      return true;
    },
    [rowHeight, overscan],
  );
  const scrolledTo = useCallback((scrollTop: number) => void update(scrollTop), [update]);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    update(toVirtual(el.scrollTop), el.clientHeight);
    // React renders the rows for the new position in a task of its own, after this frame (the
    // overscan covers the frame they are late): the frame's task stays short.
    const onScroll = () => void update(toVirtual(el.scrollTop));
    el.addEventListener('scroll', onScroll, { passive: true });
    const observer = new ResizeObserver((entries) => {
      const entry = entries[entries.length - 1];
      if (entry) update(toVirtual(el.scrollTop), entry.contentRect.height);
    });
    observer.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      observer.disconnect();
    };
  }, [ref, update, toVirtual]);

  const size = windowSize(position.viewportHeight, rowHeight, overscan);
  return { ...clampWindow(position.start, size, count), viewportHeight: position.viewportHeight, scrolledTo };
}
