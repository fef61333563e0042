import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { slotIndex, useVirtualWindow } from '../../components/virtual.ts';
import { formatCount } from '../../lib/format.ts';
import { newerThan } from '../../store/model.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { ROW_HEIGHT, StreamRow } from './StreamRow.tsx';
import { JumpControls, StreamCounts } from './StreamCounts.tsx';

/**
 * The virtualized stream. Newest first: following the tail means staying at the top. Scrolled away,
 * the rows that arrive are held above the view, out of the layout: the rows in view keep their
 * positions (a live batch changes nothing on screen but the "N new" pill, which offers the way back),
 * and going back to the top shows them. Row positions count from the first row shown.
 */
export function StreamList() {
  const inspector = useInspector();
  const order = useInspectorState((s) => s.list.order);
  const selectedId = useInspectorState((s) => s.selectedId);
  const openId = useInspectorState((s) => s.detail?.id ?? null);
  const next = useInspectorState((s) => s.list.next);
  const loadingOlder = useInspectorState((s) => s.loadingOlder);
  const loadingFirst = useInspectorState((s) => s.loadingFirst);
  const paused = useInspectorState((s) => s.paused);
  const held = useInspectorState((s) => s.held);
  const sources = useInspectorState((s) => s.info?.sources);
  const jumped = useInspectorState((s) => s.jumped);
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
  /** Rows shown: row i of the view is order[i + hidden]. */
  const count = order.length - hidden;
  const { start, end, size, viewportHeight, scrolledTo } = useVirtualWindow(scrollRef, count, ROW_HEIGHT);

  const anchor = useRef<{ id: number; offset: number } | null>(null);
  const orderRef = useRef(order);
  orderRef.current = order;
  const hiddenRef = useRef(hidden);
  hiddenRef.current = hidden;
  /** The scroll position as last seen in a scroll event or set here: known without reading the layout. */
  const lastTop = useRef(0);
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
    const index = Math.min(Math.floor(top / ROW_HEIGHT), Math.max(0, shown - 1));
    const id = orderRef.current[index + hiddenRef.current];
    anchor.current = id === undefined ? null : { id, offset: top - index * ROW_HEIGHT };
  }, []);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const top = el.scrollTop;
    if (jumpedRef.current) {
      // Away from the newest: the top of the view asks for the page above, it does not follow the tail.
      if (top < ROW_HEIGHT * 10 && jumpedRef.current.newer !== null) inspector.loadNewer();
    } else if (top < 4 && lastTop.current >= 4) setFollow(true);
    else if (top >= 4 && followRef.current) setFollow(false);
    lastTop.current = top;
    remember(top);
  }, [remember, setFollow, inspector]);

  // The rows shown changed (usually: a batch arrived, held above the view, and nothing moved). Keep the
  // row at the top of the view where it is — rows may have come or gone below the held ones — or, when
  // following, stay at the top. The layout is not read: the scroll position is known.
  const previous = useRef({ order, hidden });
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const before = previous.current;
    previous.current = { order, hidden };
    if (!el || (before.order === order && before.hidden === hidden)) return;
    if (followRef.current) {
      if (lastTop.current !== 0) {
        el.scrollTop = 0;
        lastTop.current = 0;
        scrolledTo(0);
      }
      return;
    }
    const a = anchor.current;
    if (!a) return;
    const at = newerThan(order, a.id);
    if (order[at] !== a.id) return;
    const target = (at - hidden) * ROW_HEIGHT + a.offset;
    if (Math.abs(lastTop.current - target) >= 1) {
      el.scrollTop = target;
      lastTop.current = target;
      scrolledTo(target);
    }
  }, [order, hidden, scrolledTo]);

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
    if (!loadingFirst && jumped && lastTop.current === 0) {
      followRef.current = false;
      scrolledToSelection.current = inspector.store.getState().selectedId;
      const target = jumped.to === 'oldest' ? Math.max(0, order.length * ROW_HEIGHT - el.clientHeight) : 0;
      el.scrollTop = target;
      lastTop.current = target;
      scrolledTo(target);
      remember(target);
      // At a time, its message is the view's first row: the newer ones load above it (the view stays).
      if (target < ROW_HEIGHT * 10 && jumped.newer !== null) inspector.loadNewer();
      return;
    }
    if (!loadingFirst || followRef.current || jumped) return;
    setFollow(true);
    el.scrollTop = 0;
    lastTop.current = 0;
    scrolledTo(0);
  }, [loadingFirst, jumped, setFollow, scrolledTo, remember, order.length, inspector]);

  // Keep the selected row in view when it moves (keyboard). A row held above the view is shown first
  // (the held rows join the view, which stays still), then scrolled to.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || selectedId === null || scrolledToSelection.current === selectedId) return;
    const at = newerThan(orderRef.current, selectedId);
    if (orderRef.current[at] !== selectedId) return;
    const index = at - hidden;
    if (index < 0) {
      setLeftAt(orderRef.current[0] ?? null);
      return;
    }
    scrolledToSelection.current = selectedId;
    const top = index * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
  }, [selectedId, hidden]);

  // Near the end: page in older rows.
  useEffect(() => {
    if (next !== null && !loadingOlder && count > 0 && end >= count - 30) inspector.loadOlder();
  }, [end, count, next, loadingOlder, inspector]);

  // Tell the store which rows are in view: it loads those it has let go, and keeps those around them.
  useEffect(() => {
    inspector.showing(start + hidden, end + hidden);
  }, [inspector, start, end, hidden, order]);

  const sourceName = useMemo(() => {
    const names = new Map((sources ?? []).map((s) => [s.id, s.name]));
    return (id: number) => names.get(id) ?? `source ${id}`;
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
  const setSize = next === null ? count : -1;
  for (let slot = 0; slot < size; slot++) {
    const i = slotIndex(slot, start, end, size);
    if (i < 0) continue;
    const id = order[i + hidden]!;
    if (id === selectedId) selectedInView = true;
    rows.push(
      <StreamRow
        key={slot}
        id={id}
        index={i}
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
    <div className="stream-list-wrap">
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
        <div className="stream-spacer" style={{ height: (count + (next !== null ? 1 : 0)) * ROW_HEIGHT }}>
          {rows}
          {next !== null ? (
            <div className="row row-more" style={{ transform: `translateY(${count * ROW_HEIGHT}px)` }} aria-hidden="true">
              {loadingOlder ? 'Loading older messages…' : 'Older messages'}
            </div>
          ) : null}
        </div>
      </div>
      {paused && held > 0 ? (
        <button type="button" className="pill" onClick={() => inspector.setPaused(false)}>
          Paused · {formatCount(held)} new — resume
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
        <div className="stream-jumped" role="status">
          <span>
            {jumped.to === 'oldest' ? 'Showing the oldest messages' : `Showing messages received at or before ${new Date(jumped.to).toLocaleString()}`}
            {loadingNewer ? ' · loading newer…' : jumped.newer !== null ? ' · scroll up for newer' : ''}
          </span>
          <button type="button" className="btn btn-small" onClick={() => inspector.backToNewest()}>
            Back to newest
          </button>
        </div>
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
      </div>
    </div>
  );
}
