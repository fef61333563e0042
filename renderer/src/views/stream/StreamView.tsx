import { JumpedBanner, StreamCounts } from './StreamCounts.tsx';
import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { Splitter } from '../../components/Splitter.tsx';
import { hasFilters } from '../../store/filters.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { EmptyState, NoMatches } from './EmptyState.tsx';
import { FilterBar } from './FilterBar.tsx';
import { FacetsPanel } from '../facets/FacetsPanel.tsx';
import { MessageDetailPane } from './MessageDetail.tsx';
import { StreamList } from './StreamList.tsx';
import { useStreamKeys } from './stream-keys.ts';
import { KeyboardHelp } from './KeyboardHelp.tsx';
import { importController } from '../storage/import-store.ts';
import { useFileDrop } from '../storage/use-file-drop.ts';

const LIST_WIDTH_KEY = 'sluice.listWidth';

/**
 * The stream: the filter bar over the live list, beside the message's detail (the splitter between
 * them keeps its width; while no message is open the list takes the width and the detail pane only
 * its hints). Its keys work anywhere while it is shown (stream-keys.ts: the map, which `?`
 * shows in KeyboardHelp). A file dropped on the list is imported
 * (views/storage/: the same as the filter bar's Import…).
 */
export function StreamView({ sourceId }: {
  /** The source whose write key the top bar shows: the empty stream's snippets use it too. */
  sourceId: number | null;
}) {
  const inspector = useInspector();
  const searchRef = useRef<HTMLInputElement>(null);
  const [listWidth, setListWidth] = useState(() => Number(localStorage.getItem(LIST_WIDTH_KEY)) || 560);
  const drop = useFileDrop((files) => void importController(inspector).take(files));

  useEffect(() => {
    localStorage.setItem(LIST_WIDTH_KEY, String(listWidth));
  }, [listWidth]);

  useStreamKeys(inspector, searchRef);

  // Nothing open: the list takes the window's width, beside a narrow column of hints; a message opened,
  // the detail takes its share again (the splitter's width, kept).
  const opened = useInspectorState((s) => s.detail !== null);

  return (
    <div className={opened ? 'panes' : 'panes panes-unselected'} style={{ '--list-width': `${listWidth}px` } as CSSProperties}>
      <section className="list-pane drop-target" aria-label="Stream" {...drop.handlers}>
        <FilterBar searchRef={searchRef} />
        <FacetsPanel />
        <StreamBody sourceId={sourceId} />
        {drop.dragging ? (
          <div className="drop-overlay">
            <p>Drop to import: NDJSON messages, or a HAR file of Tracking API calls</p>
          </div>
        ) : null}
      </section>
      {opened ? <Splitter value={listWidth} min={360} max={1200} onChange={setListWidth} label="Resize the list" /> : null}
      <MessageDetailPane />
      <KeyboardHelp />
    </div>
  );
}

function StreamBody({ sourceId }: { sourceId: number | null }) {
  const loaded = useInspectorState((s) => s.list.loaded);
  const empty = useInspectorState((s) => s.list.order.length === 0);
  const filtered = useInspectorState((s) => hasFilters(s.filters));
  const more = useInspectorState((s) => s.list.next !== null);
  const jumped = useInspectorState((s) => s.jumped);
  // Nothing yet, but older messages are still being searched (the store asks for them page by page).
  if (loaded && empty && more) return <div className="stream-loading" aria-busy="true" aria-label="Searching older messages" />;
  // Dragged to a position: the list stays (its scrollbar where it was dragged) while that page loads.
  if (jumped?.to === 'position' && !loaded) return <StreamList />;
  if (loaded && empty && jumped) {
    return (
      <JumpedBanner>
        {typeof jumped.to === 'number' ? `No message that matches was received at or before ${new Date(jumped.to).toLocaleString()}.` : 'No messages match there.'}
      </JumpedBanner>
    );
  }
  if (loaded && empty && filtered) {
    // "0 of 1,034,227 match": the counts stay in view when nothing matches.
    return (
      <>
        <NoMatches />
        <div className="stream-footer">
          <StreamCounts loaded={0} more={false} />
        </div>
      </>
    );
  }
  if (loaded && empty) return <EmptyState sourceId={sourceId} />;
  if (!loaded && empty) return <div className="stream-loading" aria-busy="true" aria-label="Loading messages" />;
  return <StreamList />;
}
