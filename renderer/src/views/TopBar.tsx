import { CopyButton } from '../components/CopyButton.tsx';
import { SourcePicker } from '../components/SourcePicker.tsx';
import { formatRate } from '../lib/format.ts';
import { hasFilters } from '../store/filters.ts';
import { useInspector, useInspectorState } from '../store/react.ts';
import { useView } from '../lib/route.ts';

/**
 * Ingest URL and write key (with copy) and the live rate, on every view; on the stream only, the
 * controls that act on the stream alone: Pause live view (freezes the list, not the relay: Hold
 * deliveries in Settings stops sending) and Clear filters.
 */
export function TopBar({ sourceId, onSourceChange }: { sourceId: number | null; onSourceChange: (id: number) => void }) {
  const inspector = useInspector();
  const info = useInspectorState((s) => s.info);
  const rate = useInspectorState((s) => s.rate);
  const paused = useInspectorState((s) => s.paused);
  const connected = useInspectorState((s) => s.connection.kind === 'open');
  const filtered = useInspectorState((s) => hasFilters(s.filters));
  const onStream = useView() === 'stream';
  const sources = info?.sources ?? [];
  const source = sources.find((s) => s.id === sourceId) ?? sources[0];

  return (
    <header className="top-bar">
      <div className="top-item">
        <span className="top-label" id="ingest-label">
          Ingest URL
        </span>
        <code className="top-value" aria-labelledby="ingest-label">
          {info?.ingestUrl ?? '…'}
        </code>
        <CopyButton text={info?.ingestUrl ?? ''} label="Copy ingest URL" />
      </div>
      <div className="top-item">
        {sources.length > 1 ? (
          <SourcePicker
            aria-label="Source for the write key"
            className="top-select"
            sources={sources}
            value={source?.id ?? null}
            onChange={(id) => id !== null && onSourceChange(id)}
          />
        ) : (
          <span className="top-label">{source ? `Write key · ${source.name}` : 'Write key'}</span>
        )}
        <code className="top-value top-key" aria-label="Write key">
          {source?.writeKey ?? '…'}
        </code>
        <CopyButton text={source?.writeKey ?? ''} label="Copy write key" />
      </div>
      <div className="top-spacer" />
      <div
        className={`live${paused && onStream ? ' live-paused' : ''}${connected ? '' : ' live-off'}`}
        aria-label="Live rate"
        role="status"
        aria-live="off"
        title="Messages Sluice receives per second"
      >
        <span className="live-dot" aria-hidden="true">●</span>
        <span className="live-text">{!connected ? 'offline' : paused && onStream ? 'paused' : 'live'}</span>
        <span className="live-rate">{formatRate(rate)} ev/s</span>
      </div>
      {onStream ? (
        <>
          <button
            type="button"
            className="btn btn-small pause"
            aria-pressed={paused}
            aria-label="Pause live view"
            aria-describedby="pause-explained"
            title={
              paused
                ? 'Resume live view: show the messages that arrived meanwhile'
                : 'Freezes this list only: Sluice keeps receiving and delivering messages. To stop deliveries, hold them in Settings.'
            }
            onClick={() => inspector.setPaused(!paused)}
          >
            {paused ? '▶ Resume live view' : '❚❚ Pause live view'}
          </button>
          <span id="pause-explained" className="sr-only">
            Freezes the stream’s list only; Sluice keeps receiving and delivering messages.
          </span>
          <button type="button" className="btn btn-small" disabled={!filtered} onClick={() => inspector.clearFilters()}>
            Clear filters
          </button>
        </>
      ) : null}
    </header>
  );
}
