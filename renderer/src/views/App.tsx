import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { Splitter } from '../components/Splitter.tsx';
import { countdown } from '../store/outcome.ts';
import { hasFilters } from '../store/model.ts';
import { useInspector, useInspectorState } from '../store/react.ts';
import { useSecondClock } from '../lib/clock.ts';
import { ConnectionPage } from './ConnectionPage.tsx';
import { EmptyState, NoMatches } from './stream/EmptyState.tsx';
import { FilterBar } from './stream/FilterBar.tsx';
import { MessageDetailPane } from './stream/MessageDetail.tsx';
import { NavRail } from './NavRail.tsx';
import { StreamList } from './stream/StreamList.tsx';
import { TopBar } from './TopBar.tsx';
import { VIEWS } from './nav/registry.tsx';
import { HoldBanner } from './settings/HoldBanner.tsx';
import { useView } from './nav/route.ts';

const LIST_WIDTH_KEY = 'sluice.listWidth';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

export function App({ transport }: { transport: string }) {
  const inspector = useInspector();
  const connection = useInspectorState((s) => s.connection);
  const problem = useInspectorState((s) => s.problem);
  const searchRef = useRef<HTMLInputElement>(null);
  const [sourceId, setSourceId] = useState<number | null>(null);
  const [listWidth, setListWidth] = useState(() => Number(localStorage.getItem(LIST_WIDTH_KEY)) || 560);
  const view = useView();
  const View = view === 'stream' ? undefined : VIEWS[view];
  const streamShown = View === undefined;

  useEffect(() => {
    localStorage.setItem(LIST_WIDTH_KEY, String(listWidth));
  }, [listWidth]);
  const streamShownRef = useRef(streamShown);
  streamShownRef.current = streamShown;

  // Keys that work anywhere: / searches, Esc clears the filters, and the list's keys when nothing else has focus.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (!streamShownRef.current) return;
      const editable = isEditable(event.target);
      if (event.key === 'Escape') {
        if (editable && event.target !== searchRef.current) return;
        if (hasFilters(inspector.store.getState().filters)) {
          event.preventDefault();
          inspector.clearFilters();
        }
        return;
      }
      if (editable) return;
      if (event.key === '/') {
        event.preventDefault();
        searchRef.current?.focus();
        searchRef.current?.select();
        return;
      }
      const onPage = event.target === document.body || event.target === document.documentElement;
      if (!onPage) return;
      if (event.key === 'ArrowDown' || event.key === 'j') inspector.moveSelection(1);
      else if (event.key === 'ArrowUp' || event.key === 'k') inspector.moveSelection(-1);
      else if (event.key === 'Enter') {
        const id = inspector.store.getState().selectedId;
        if (id === null) return;
        inspector.open(id);
      } else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [inspector]);

  if (connection.kind === 'unauthorized') return <ConnectionPage title="This inspector link is not valid" reason={connection.reason} />;

  return (
    <div className="app" style={{ '--list-width': `${listWidth}px` } as CSSProperties}>
      <NavRail transport={transport} />
      <div className="main">
        <TopBar sourceId={sourceId} onSourceChange={setSourceId} />
        <HoldBanner />
        <ConnectionBanner />
        {problem ? (
          <p className="banner banner-bad" role="alert">
            {problem}
          </p>
        ) : null}
        {View ? (
          <div className="view-pane">
            <View />
          </div>
        ) : (
          <div className="panes">
            <section className="list-pane" aria-label="Stream">
              <FilterBar searchRef={searchRef} />
              <StreamBody sourceId={sourceId} />
            </section>
            <Splitter value={listWidth} min={360} max={1200} onChange={setListWidth} label="Resize the list" />
            <MessageDetailPane />
          </div>
        )}
      </div>
    </div>
  );
}

function StreamBody({ sourceId }: { sourceId: number | null }) {
  const loaded = useInspectorState((s) => s.list.loaded);
  const empty = useInspectorState((s) => s.list.order.length === 0);
  const filtered = useInspectorState((s) => hasFilters(s.filters));
  const more = useInspectorState((s) => s.list.next !== null);
  // Nothing yet, but older messages are still being searched (the store asks for them page by page).
  if (loaded && empty && more) return <div className="stream-loading" aria-busy="true" aria-label="Searching older messages" />;
  if (loaded && empty) return filtered ? <NoMatches /> : <EmptyState sourceId={sourceId} />;
  if (!loaded && empty) return <div className="stream-loading" aria-busy="true" aria-label="Loading messages" />;
  return <StreamList />;
}

function ConnectionBanner() {
  const connection = useInspectorState((s) => s.connection);
  const now = useSecondClock();
  if (connection.kind === 'reconnecting') {
    return (
      <p className="banner banner-warn" role="status">
        Connection to Sluice lost ({connection.reason}). Reconnecting {countdown(connection.retryAt - now)}… Sluice keeps relaying meanwhile; the
        list reloads when the connection is back.
      </p>
    );
  }
  if (connection.kind === 'connecting') {
    return (
      <p className="banner banner-info" role="status">
        Connecting to Sluice…
      </p>
    );
  }
  return null;
}
