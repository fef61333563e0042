import { RECEIVER_URL_PREFIX } from '../../../../shared/receiver-hooks.ts';
import { ClientSnippets } from '../../components/ClientSnippets.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { SampleEventsButton } from './SampleEventsButton.tsx';

/** The stream with no messages: what to send, where, with which key — ready to paste. */
export function EmptyState({ sourceId }: { sourceId: number | null }) {
  const info = useInspectorState((s) => s.info);
  if (!info) return <div className="empty" aria-busy="true" />;
  const source = info.sources.find((s) => s.id === sourceId) ?? info.sources[0];
  const writeKey = source?.writeKey ?? 'YOUR_WRITE_KEY';
  return (
    <section className="empty" aria-labelledby="empty-title">
      <h2 id="empty-title">No messages yet</h2>
      <p>
        Point an analytics client at Sluice. Every message it sends shows up here, live, with what happened to its webhook
        delivery.
      </p>
      <dl className="empty-facts">
        <dt>Ingestion endpoint</dt>
        <dd>
          <code>{info.ingestUrl}</code> <CopyButton text={info.ingestUrl} label="Copy endpoint URL" />
        </dd>
        <dt>Write key{source ? ` (source “${source.name}”)` : ''}</dt>
        <dd>
          <code>{writeKey}</code> <CopyButton text={writeKey} label="Copy write key for the snippet" />
        </dd>
      </dl>
      <SampleEventsButton sourceId={source?.id ?? null} />
      <ClientSnippets ingestUrl={info.ingestUrl} writeKey={writeKey} />
      <p className="hint">
        Add webhook destinations, with their URLs and shared secret, under <a href="#/destinations">Destinations</a> (or with{' '}
        <code>sluice serve --config</code>). A destination pointed at the built-in receiver (<code>{RECEIVER_URL_PREFIX}demo</code>) shows a
        signed delivery end to end.
      </p>
    </section>
  );
}

export function NoMatches() {
  const inspector = useInspector();
  return (
    <section className="empty empty-small" aria-labelledby="nomatch-title">
      <h2 id="nomatch-title">No messages match these filters</h2>
      <p>New messages that match will appear here as they arrive.</p>
      <button type="button" className="btn" onClick={() => inspector.clearFilters()}>
        Clear filters
      </button>
    </section>
  );
}
