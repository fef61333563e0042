import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualWindow } from '../components/virtual.ts';
import { formatCount } from '../lib/format.ts';
import { newerThan } from '../store/model.ts';
import { useInspector, useInspectorState } from '../store/react.ts';
import { ROW_HEIGHT, StreamRow } from './StreamRow.tsx';

/**
 * The virtualized stream. Newest first: following the tail means staying at the top. Scrolled away,
 * the rows in view stay put when new ones arrive above them (the scroll position is moved by exactly
 * the rows inserted), and an "N new" pill offers the way back.
 */
export function StreamList() {
  const inspector = useInspector();
  const order = useInspectorState((s) => s.list.order);
  const selectedId = useInspectorState((s) => s.selectedId);
  const openId = useInspectorState((s) => s.detail?.id ?? null);
  const next = useInspectorState((s) => s.list.next);
  const loadingOlder = useInspectorState((s) => s.loadingOlder);
  const paused = useInspectorState((s) => s.paused);
  const held = useInspectorState((s) => s.held);
  const sources = useInspectorState((s) => s.info?.sources);
  const scrollRef = useRef<HTMLDivElement>(null);
  const { start, end, size, viewportHeight, recompute } = useVirtualWindow(scrollRef, order.length, ROW_HEIGHT);

  const [follow, setFollowState] = useState(true);
  const followRef = useRef(true);
  /** The newest row when the user stopped following: rows newer than it are "new". */
  const [leftAt, setLeftAt] = useState<number | null>(null);
  const anchor = useRef<{ id: number; offset: number } | null>(null);
  const orderRef = useRef(order);
  orderRef.current = order;
  const lastTop = useRef(0);

  const setFollow = useCallback((value: boolean) => {
    followRef.current = value;
    setFollowState(value);
    setLeftAt(value ? null : (orderRef.current[0] ?? 0));
  }, []);

  const remember = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const index = Math.min(Math.floor(el.scrollTop / ROW_HEIGHT), Math.max(0, orderRef.current.length - 1));
    const id = orderRef.current[index];
    anchor.current = id === undefined ? null : { id, offset: el.scrollTop - index * ROW_HEIGHT };
  }, []);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const top = el.scrollTop;
    if (top < 4 && lastTop.current >= 4) setFollow(true);
    else if (top >= 4 && followRef.current) setFollow(false);
    lastTop.current = top;
    remember();
  }, [remember, setFollow]);

  // New rows above the ones in view: keep the view still unless following the tail.
  const previousOrder = useRef(order);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const before = previousOrder.current;
    previousOrder.current = order;
    if (!el || before === order) return;
    if (followRef.current) {
      if (el.scrollTop !== 0) el.scrollTop = 0;
      lastTop.current = 0;
      return;
    }
    const a = anchor.current;
    if (!a) return;
    // Usually rows were added at the top only: try that guess before searching.
    const guess = Math.floor(el.scrollTop / ROW_HEIGHT) + order.length - before.length;
    const index = order[guess] === a.id ? guess : order.indexOf(a.id);
    if (index < 0) return;
    const target = index * ROW_HEIGHT + a.offset;
    if (Math.abs(el.scrollTop - target) >= 1) {
      el.scrollTop = target;
      lastTop.current = el.scrollTop;
      recompute();
    }
  }, [order, recompute]);

  // Keep the selected row in view when it moves (keyboard).
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || selectedId === null) return;
    const index = orderRef.current.indexOf(selectedId);
    if (index < 0) return;
    const top = index * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
  }, [selectedId]);

  // Near the end: page in older rows.
  useEffect(() => {
    if (next !== null && !loadingOlder && order.length > 0 && end >= order.length - 30) inspector.loadOlder();
  }, [end, order.length, next, loadingOlder, inspector]);

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

  const unseen = !follow && leftAt !== null ? newerThan(order, leftAt) : 0;
  const rows = [];
  let selectedInView = false;
  for (let i = start; i < end && i < order.length; i++) {
    const id = order[i]!;
    if (id === selectedId) selectedInView = true;
    rows.push(
      <StreamRow
        key={i % size}
        id={id}
        index={i}
        count={order.length}
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
        <div className="stream-spacer" style={{ height: (order.length + (next !== null ? 1 : 0)) * ROW_HEIGHT }}>
          {rows}
          {next !== null ? (
            <div className="row row-more" style={{ transform: `translateY(${order.length * ROW_HEIGHT}px)` }} aria-hidden="true">
              {loadingOlder ? 'Loading older messages…' : 'Older messages'}
            </div>
          ) : null}
        </div>
      </div>
      {paused && held > 0 ? (
        <button type="button" className="pill" onClick={() => inspector.setPaused(false)}>
          Paused · {formatCount(held)} new — resume
        </button>
      ) : unseen > 0 ? (
        <button
          type="button"
          className="pill"
          onClick={() => {
            setFollow(true);
            const el = scrollRef.current;
            if (el) el.scrollTop = 0;
          }}
        >
          ↑ {formatCount(unseen)} new
        </button>
      ) : null}
      <div className="stream-footer" aria-live="off">
        <span>{formatCount(order.length)} loaded{next === null ? '' : ' · more when you scroll'}</span>
        <button
          type="button"
          className={`btn btn-small follow${follow ? ' on' : ''}`}
          aria-pressed={follow}
          onClick={() => {
            if (follow) {
              setFollow(false);
              remember();
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
