import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { slotIndex, useVirtualWindow } from '../../components/virtual.ts';
import { formatCount } from '../../lib/format.ts';
import { hasFilters } from '../../store/filters.ts';
import { newerThan } from '../../store/model.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { StreamRow } from './StreamRow.tsx';
import { ROW_HEIGHTS, setDensity, useDensity } from './density.ts';
import { JumpControls, JumpedBanner, StreamCounts } from './StreamCounts.tsx';
import { MAX_SPACER_PX, scrollScale } from '../../components/scroll-scale.ts';
import { sourceLabel } from '../../../../shared/refused-request.ts';

/** The spacer's most pixels (a test may lower it: window.__sluiceMaxScrollPx). */
const maxSpacerPx = (): number => (globalThis as { __sluiceMaxScrollPx?: number }).__sluiceMaxScrollPx ?? MAX_SPACER_PX;
/** Rows from the ones loaded past which the view jumps rather than pages. */
const FAR_ROWS = 150;

/**
 * The virtualized stream. Newest first: following the tail means staying at the top. Scrolled away,
 * the rows that arrive are held above the view, out of the layout: the rows in view keep their
 * positions (a live batch changes nothing on screen but the "N new" pill, which offers the way back),
 * and going back to the top shows them. Row positions count from the first row shown.
 *
 * The scrollbar stands for every matching message (the footer's count; past what an element's height
 * allows, its pixels are scaled: components/scroll-scale.ts, and positions here are the rows'): the rows loaded
 * sit at their place among them (`base`: the first one's position, after a jump), the others are
 * placeholders. Scrolling next to the rows loaded pages in more (older below, newer above, after a
 * jump); dragging the scrollbar far from them jumps there (`messages.list` at that offset).
 */
export function StreamList() {
  const density = useDensity();
  // A new density is a new list: every position here is counted in rows of one height.
  return <DenseList key={density} compact={density === 'compact'} ROW_HEIGHT={ROW_HEIGHTS[density]} />;
}

function DenseList({ compact, ROW_HEIGHT }: { compact: boolean; ROW_HEIGHT: number }) {
  const inspector = useInspector();
  const order = useInspectorState((s) => s.list.order);
  const selectedId = useInspectorState((s) => s.selectedId);
  const openId = useInspectorState((s) => s.detail?.id ?? null);
  const next = useInspectorState((s) => s.list.next);
  const loadingOlder = useInspectorState((s) => s.loadingOlder);
  const loadingFirst = useInspectorState((s) => s.loadingFirst);
  const paused = useInspectorState((s) => s.paused);
  const held = useInspectorState((s) => s.held);
  const heldFiltered = useInspectorState((s) => hasFilters(s.filters));
  const sources = useInspectorState((s) => s.info?.sources);
  const jumped = useInspectorState((s) => s.jumped);
  const matching = useInspectorState((s) => s.counts?.matching ?? null);
  const loadingNewer = useInspectorState((s) => s.loadingNewer);
  const scrollRef = useRef<HTMLDivElement>(null);
  const jumpedRef = useRef(jumped);
  jumpedRef.current = jumped;

  // After a jump the list does not follow the tail (it is mounted again when its page arrives).
  const [follow, setFollowState] = useState(() => inspector.store.getState().jumped === null);
  const followRef = useRef(follow);
  /** The newest row when the user stopped following: rows newer than it are "new", held above the view. */
  const [leftAt, setLeftAt] = useState<number | null>(null);
  const hidden = !follow && leftAt !== null ? newerThan(order, leftAt) : 0;
  /** Rows loaded and shown: row base + i of the view is order[i + hidden]. */
  const count = order.length - hidden;
  const base = jumped?.base ?? 0;
  /** The rows the scrollbar stands for: every match once counted (bounded), else those loaded (and one for "older"). */
  const span = Math.max(base + count + (next !== null ? 1 : 0), matching === null ? 0 : jumped ? matching : matching - hidden);
  /** The rows' position for a scroll position (the same unless the list is taller than an element may be); read in events and effects. */
  const scaleRef = useRef({ ratio: 1, spacerPx: 0 });
  const toVirtual = useCallback((scrollTop: number) => scrollTop * scaleRef.current.ratio, []);
  const { start, end, size, viewportHeight, scrolledTo } = useVirtualWindow(scrollRef, span, ROW_HEIGHT, 12, toVirtual);
  const scale = scrollScale(span * ROW_HEIGHT, viewportHeight, maxSpacerPx());
  scaleRef.current = scale;
  const rowsRef = useRef<HTMLDivElement>(null);
  const baseRef = useRef(base);
  baseRef.current = base;

  const anchor = useRef<{ id: number; offset: number } | null>(null);
  const orderRef = useRef(order);
  orderRef.current = order;
  const hiddenRef = useRef(hidden);
  hiddenRef.current = hidden;
  /** The view's position (the rows', in pixels) as last seen in a scroll event or set here: known without reading the layout. */
  const lastTop = useRef(0);
  /** Sets the view's position (the rows'); the rows are drawn shifted by what the scaling adds. */
  const scrollToRows = useCallback((el: HTMLElement, top: number) => {
    el.scrollTop = top / scaleRef.current.ratio;
    lastTop.current = top;
    shiftRows(rowsRef.current, top, scaleRef.current.ratio);
  }, []);
  /** The selected row this list last scrolled to (a jump's position wins over an older selection). */
  const scrolledToSelection = useRef<number | null>(null);

  const setFollow = useCallback((value: boolean) => {
    followRef.current = value;
    setFollowState(value);
    setLeftAt(value ? null : (orderRef.current[0] ?? 0));
  }, []);

  /** Remembers the row at the top of the view and how far into it the view starts. */
  const remember = useCallback((top: number) => {
    const shown = orderRef.current.length - hiddenRef.current;
    const index = Math.max(0, Math.min(Math.floor(top / ROW_HEIGHT) - baseRef.current, shown - 1));
    const id = orderRef.current[index + hiddenRef.current];
    anchor.current = id === undefined ? null : { id, offset: top - (baseRef.current + index) * ROW_HEIGHT };
  }, []);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const top = el.scrollTop * scaleRef.current.ratio;
    shiftRows(rowsRef.current, top, scaleRef.current.ratio);
    if (jumpedRef.current) {
      // Away from the newest the view does not follow the tail (the pages above load as it reaches them).
    } else if (top < 4 && lastTop.current >= 4) setFollow(true);
    else if (top >= 4 && followRef.current) setFollow(false);
    lastTop.current = top;
    remember(top);
  }, [remember, setFollow]);

  // The rows shown changed (usually: a batch arrived, held above the view, and nothing moved). Keep the
  // row at the top of the view where it is — rows may have come or gone below the held ones — or, when
  // following, stay at the top. The layout is not read: the scroll position is known.
  const previous = useRef({ order, hidden, base });
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const before = previous.current;
    previous.current = { order, hidden, base };
    if (!el || (before.order === order && before.hidden === hidden && before.base === base)) return;
    if (followRef.current) {
      if (lastTop.current !== 0) {
        scrollToRows(el, 0);
        scrolledTo(0);
      }
      return;
    }
    const a = anchor.current;
    if (!a) return;
    const at = newerThan(order, a.id);
    if (order[at] !== a.id) return;
    const target = (base + at - hidden) * ROW_HEIGHT + a.offset;
    if (Math.abs(lastTop.current - target) >= 1) {
      scrollToRows(el, target);
      scrolledTo(target);
    }
  }, [order, hidden, base, scrolledTo, scrollToRows]);

  // The scaling changed (more or fewer matches past what an element's height allows): the view stays
  // on the rows it shows — its scroll position follows the new scale.
  const ratio = scale.ratio;
  const previousRatio = useRef(ratio);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || previousRatio.current === ratio) return;
    previousRatio.current = ratio;
    scrollToRows(el, lastTop.current);
  }, [ratio, scrollToRows]);

  // A new query (the filters changed, or a reconnect reloads the list): its newest rows, from the top.
  // A jump: not following; the oldest are at the bottom of their page, a time's at the top of its.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    if (loadingFirst && jumped) {
      followRef.current = false;
      setFollowState(false);
      setLeftAt(null);
      return;
    }
    if (!loadingFirst && jumped && jumped.to !== 'position' && lastTop.current === 0) {
      followRef.current = false;
      scrolledToSelection.current = inspector.store.getState().selectedId;
      const first = (jumped.base ?? 0) * ROW_HEIGHT;
      const target = jumped.to === 'oldest' ? Math.max(0, first + order.length * ROW_HEIGHT - el.clientHeight) : first;
      scrollToRows(el, target);
      scrolledTo(target);
      remember(target);
      // At a time, its message is the view's first row: the newer ones load above it (the view stays).
      if (jumped.to !== 'oldest' && jumped.newer !== null) inspector.loadNewer();
      return;
    }
    if (!loadingFirst || followRef.current || jumped) return;
    setFollow(true);
    scrollToRows(el, 0);
    scrolledTo(0);
  }, [loadingFirst, jumped, setFollow, scrolledTo, remember, order.length, inspector, scrollToRows]);

  // Keep the selected row in view when it moves (keyboard). A row held above the view is shown first
  // (the held rows join the view, which stays still), then scrolled to.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || selectedId === null || scrolledToSelection.current === selectedId) return;
    const at = newerThan(orderRef.current, selectedId);
    if (orderRef.current[at] !== selectedId) return;
    const index = base + at - hidden;
    if (at - hidden < 0) {
      setLeftAt(orderRef.current[0] ?? null);
      return;
    }
    scrolledToSelection.current = selectedId;
    const top = index * ROW_HEIGHT;
    // Only the scroll position: its scroll event then tells the list where it is (back at the top, it follows again).
    const ratio = scaleRef.current.ratio;
    const viewTop = el.scrollTop * ratio;
    if (top < viewTop) el.scrollTop = top / ratio;
    else if (top + ROW_HEIGHT > viewTop + el.clientHeight) el.scrollTop = (top + ROW_HEIGHT - el.clientHeight) / ratio;
  }, [selectedId, hidden, base]);

  // Next to the rows loaded: page in more (older below; newer above, after a jump). Far from them (the
  // scrollbar dragged): once the view rests, jump to where it is.
  // (The rows in view from the scroll position as last set or seen: `start` and `end` include the
  // overscan, and lag a render behind a scroll set here.)
  const loadedEnd = base + count;
  const rowsInView = (top: number, height: number) => ({ top: Math.floor(top / ROW_HEIGHT), bottom: Math.ceil((top + height) / ROW_HEIGHT) });
  const isFar = (view: { top: number; bottom: number }) =>
    matching !== null && !loadingFirst && (view.top >= loadedEnd + FAR_ROWS || (base > 0 && view.bottom <= base - FAR_ROWS));
  const far = isFar(rowsInView(lastTop.current, viewportHeight));
  /** A jump waiting for the view to rest there (live rows re-render the list meanwhile: it is not restarted by them). */
  const pendingJump = useRef<{ offset: number; timer: ReturnType<typeof setTimeout> } | null>(null);
  useEffect(() => {
    // Read here, not in render: a jump's scroll is set in a layout effect after this render was made.
    const el = scrollRef.current;
    if (!el || loadingFirst) return;
    const view = rowsInView(lastTop.current, el.clientHeight);
    if (isFar(view)) {
      if (pendingJump.current?.offset === view.top) return;
      if (pendingJump.current) clearTimeout(pendingJump.current.timer);
      const offset = view.top;
      pendingJump.current = {
        offset,
        timer: setTimeout(() => {
          pendingJump.current = null;
          inspector.jump({ offset });
        }, 150),
      };
      return;
    }
    if (pendingJump.current) clearTimeout(pendingJump.current.timer);
    pendingJump.current = null;
    if (next !== null && !loadingOlder && count > 0 && view.bottom >= loadedEnd - 30 && view.top < loadedEnd + FAR_ROWS) inspector.loadOlder();
    if (jumped && jumped.newer !== null && view.top <= base + 10 && view.bottom >= base - FAR_ROWS) inspector.loadNewer();
  });
  useEffect(() => () => void (pendingJump.current && clearTimeout(pendingJump.current.timer)), []);

  // Tell the store which rows are in view: it loads those it has let go, and keeps those around them.
  useEffect(() => {
    const from = Math.max(0, start - base);
    const to = Math.max(from, Math.min(count, end - base));
    inspector.showing(from + hidden, to + hidden);
  }, [inspector, start, end, hidden, order, base, count]);

  const sourceName = useMemo(() => {
    const names = new Map((sources ?? []).map((s) => [s.id, s.name]));
    return (id: number) => sourceLabel(names.get(id), id);
  }, [sources]);

  const activate = useCallback((id: number) => inspector.open(id), [inspector]);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const page = Math.max(1, Math.floor(viewportHeight / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: page, PageUp: -page, End: Infinity, Home: -Infinity };
    const move = moves[event.key];
    if (move !== undefined && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      event.stopPropagation();
      if (move === Infinity) inspector.select(order[order.length - 1] ?? null);
      else if (move === -Infinity) inspector.select(order[0] ?? null);
      else inspector.moveSelection(move);
    } else if (event.key === 'Enter' && selectedId !== null) {
      event.preventDefault();
      event.stopPropagation();
      inspector.open(selectedId);
    }
  };

  const rows = [];
  let selectedInView = false;
  // More rows than listed may exist (older pages): then the set's size is unknown (-1). It is also
  // what keeps a live batch, held above the view, from re-rendering every row in it.
  const setSize = next === null && base === 0 ? count : matching !== null ? span : -1;
  for (let slot = 0; slot < size; slot++) {
    const i = slotIndex(slot, start, end, size);
    if (i < 0) continue;
    const j = i - base;
    if (j < 0 || j >= count) {
      // Not loaded: a placeholder of the same height (the scrollbar stands for it).
      if (j === count && next !== null && span === loadedEnd + 1) continue; // the "Older messages" row below
      rows.push(
        <div key={slot} className="row row-missing row-placeholder" style={{ transform: `translateY(${i * ROW_HEIGHT}px)` }} aria-hidden="true">
          {loadingFirst || loadingOlder || far ? 'Loading…' : ''}
        </div>,
      );
      continue;
    }
    const id = order[j + hidden]!;
    if (id === selectedId) selectedInView = true;
    rows.push(
      <StreamRow
        key={slot}
        id={id}
        index={i}
        rowHeight={ROW_HEIGHT}
        count={setSize}
        selected={id === selectedId}
        open={id === openId}
        sourceName={sourceName}
        onActivate={activate}
      />,
    );
  }
  const activeDescendant = selectedInView ? `msg-${selectedId}` : undefined;

  return (
    <div className={`stream-list-wrap${compact ? ' rows-compact' : ''}`}>
      <div
        ref={scrollRef}
        className="stream-list"
        role="listbox"
        aria-label="Messages"
        aria-activedescendant={activeDescendant}
        tabIndex={0}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
      >
        <div className="stream-spacer" style={{ height: scale.spacerPx }}>
          <div className="stream-rows" ref={rowsRef} style={{ transform: shift(lastTop.current, scale.ratio) }}>
          {rows}
          {next !== null && span === loadedEnd + 1 ? (
            <div className="row row-more" style={{ transform: `translateY(${loadedEnd * ROW_HEIGHT}px)` }} aria-hidden="true">
              {loadingOlder ? 'Loading older messages…' : 'Older messages'}
            </div>
          ) : null}
          </div>
        </div>
      </div>
      {paused && held > 0 ? (
        <button type="button" className="pill" onClick={() => inspector.setPaused(false)}>
          {/* Under filters the arrivals are counted before they are read: some may not match (they are tested on resume). */}
          Paused · {formatCount(held)} {heldFiltered ? 'arrived (filters apply)' : 'new'} — resume
        </button>
      ) : hidden > 0 ? (
        <button
          type="button"
          className="pill"
          onClick={() => {
            setFollow(true);
            const el = scrollRef.current;
            if (el) el.scrollTop = 0;
          }}
        >
          ↑ {formatCount(hidden)} new
        </button>
      ) : null}
      {jumped ? (
        <JumpedBanner>
          {jumpedWords(jumped, matching)}
          {loadingNewer ? ' · loading newer…' : jumped.newer !== null ? ' · scroll up for newer' : ''}
        </JumpedBanner>
      ) : null}
      <div className="stream-footer" aria-live="off">
        <StreamCounts loaded={order.length} more={next !== null} />
        <JumpControls />
        <button
          type="button"
          className={`btn btn-small follow${follow ? ' on' : ''}`}
          aria-pressed={follow}
          disabled={jumped !== null}
          onClick={() => {
            if (follow) {
              setFollow(false);
              remember(lastTop.current);
            } else {
              setFollow(true);
              const el = scrollRef.current;
              if (el) el.scrollTop = 0;
            }
          }}
          title="Keep the newest messages in view"
        >
          ⟳ Follow tail
        </button>
        <button
          type="button"
          className={`btn btn-small${compact ? ' on' : ''}`}
          aria-pressed={compact}
          onClick={() => setDensity(compact ? 'comfortable' : 'compact')}
          title="One line per message (remembered in this browser)"
        >
          Compact rows
        </button>
      </div>
    </div>
  );
}

/** Where a list away from the newest is, in words. */
export function jumpedWords(jumped: { to: 'oldest' | 'position' | number; base: number | null }, matching: number | null): string {
  if (jumped.to === 'oldest') return 'Showing the oldest messages';
  if (jumped.to === 'position') {
    const at = jumped.base === null ? '' : ` ${formatCount(jumped.base + 1)}`;
    return `Showing from message${at}${matching !== null ? ` of ${formatCount(matching)}` : ''}`;
  }
  return `Showing messages received at or before ${new Date(jumped.to).toLocaleString()}`;
}

/** The rows' shift at a view position: they sit at their own place, the spacer scrolls in scaled pixels. */
function shift(top: number, ratio: number): string {
  return ratio === 1 ? 'none' : `translateY(${top / ratio - top}px)`;
}

function shiftRows(rows: HTMLDivElement | null, top: number, ratio: number): void {
  if (rows) rows.style.transform = shift(top, ratio);
}
