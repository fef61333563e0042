import { useEffect, useState } from 'react';
import type { DestinationView } from '../../../../shared/contract.ts';
import { fileName } from '../../lib/format.ts';
import { useInspectorState } from '../../store/react.ts';
import { deletedNote } from './delete-wording.ts';
import { DestinationEditor } from './DestinationEditor.tsx';
import { HealthLine } from './HealthLine.tsx';
import { targetOf } from './health.ts';
import './destinations.css';

/**
 * Destinations (webhooks, or a Tracking API to forward to): the list (refreshed on `settings.changed`
 * by the store), each with its receivers' health, beside the editor of the one chosen, or of a new one.
 */
export function DestinationsView() {
  const info = useInspectorState((s) => s.info);
  const listed = useInspectorState((s) => s.destinations);
  const [chosen, setChosen] = useState<number | 'new' | null>(null);
  // A new editor for each choice; a save keeps the editor (and its "Saved" note) while the list catches up.
  const [session, setSession] = useState(0);
  // Deleted here: left out at once, before settings.changed refreshes the list.
  const [deleted, setDeleted] = useState<ReadonlySet<number>>(new Set());
  const [note, setNote] = useState<string | null>(null);
  const destinations = deleted.size === 0 ? listed : listed.filter((d) => !deleted.has(d.id));
  // The implicit choice (the first destination, or a new one) is pinned once known: a list that
  // changes later (a destination deleted or created elsewhere) never swaps what the editor holds.
  const implicit = destinations[0]?.id ?? 'new';
  useEffect(() => {
    if (info && chosen === null) setChosen(implicit);
  }, [info, chosen, implicit]);
  if (!info) return <div className="master-detail" aria-busy="true" />;
  const choose = (next: number | 'new' | null) => {
    setChosen(next);
    setSession((n) => n + 1);
  };
  // Nothing chosen: the first destination, or a new one when there is none.
  const editing: number | 'new' = chosen ?? destinations[0]?.id ?? 'new';
  const selected = editing === 'new' ? null : (destinations.find((d) => d.id === editing) ?? null);
  const sourceNames = new Map(info.sources.map((s) => [s.id, s.name]));

  return (
    <div className="master-detail">
      <aside className="master-list" aria-label="Destinations">
        <div className="master-list-head">
          <h2>Destinations</h2>
          <button type="button" className="btn btn-small" aria-pressed={editing === 'new'} onClick={() => { setNote(null); choose('new'); }}>
            + New destination
          </button>
        </div>
        <p className="dst-list-note" role="status">
          {note ?? ''}
        </p>
        {destinations.length === 0 ? (
          <p className="hint dst-list-empty">
            No destinations yet. Add one to post every message of your sources to webhook URLs, signed, or to forward them to a Tracking API (Segment, RudderStack, another Sluice).
          </p>
        ) : (
          <ul>
            {destinations.map((d) => (
              <li key={d.id} className="dst-item">
                <DestinationItem
                  destination={d}
                  sources={sourceNames}
                  current={editing === d.id}
                  onOpen={() => {
                    setNote(null);
                    choose(d.id);
                  }}
                />
                {/* Outside the item's button: Re-enable is a button of its own. */}
                {d.health.map((h) => (
                  <HealthLine key={h.url} destinationId={d.id} health={h} named={d.health.length > 1} compact />
                ))}
              </li>
            ))}
          </ul>
        )}
      </aside>
      <div className="dst-editor-pane">
        <DestinationEditor
          key={session}
          destination={selected}
          sources={info.sources}
          takenNames={destinations.filter((d) => d.id !== editing).map((d) => d.name)}
          onSaved={(id) => setChosen(id)}
          onDeleted={(id, name, cancelled) => {
            setDeleted((gone) => new Set([...gone, id]));
            setNote(deletedNote(name, cancelled));
            choose(null);
          }}
        />
      </div>
    </div>
  );
}

function DestinationItem({ destination: d, sources, current, onOpen }: {
  destination: DestinationView;
  sources: Map<number, string>;
  current: boolean;
  onOpen: () => void;
}) {
  const connected = d.sourceIds.map((id) => sources.get(id) ?? `#${id}`);
  return (
    <button type="button" className={`master-item${current ? ' current' : ''}`} aria-current={current ? 'true' : undefined} onClick={onOpen}>
      <span className="master-item-line">
        <span className="master-item-name">{d.name}</span>
        <span className={`dst-badge ${d.enabled ? 'tone-ok' : 'tone-muted'}`}>{d.enabled ? 'enabled' : 'disabled'}</span>
        {d.fromConfig ? (
          <span className="dst-origin" title={d.fromConfig}>
            from {fileName(d.fromConfig)}
          </span>
        ) : null}
      </span>
      <span className="master-item-sub">
        {targetOf(d)} · {connected.length > 0 ? connected.join(', ') : 'no source'}
      </span>
      <span className="master-item-sub">
        {d.kind === 'tracking-api' && d.trackingApi ? (
          <>
            Tracking API · batches of ≤ {d.trackingApi.batchSize}
            {d.trackingApi.gzip ? ' · gzip' : ''}
          </>
        ) : (
          <>
            {signingOf(d)} · {d.options.bodyShape === 'full' ? 'full body' : 'mapped body'}
          </>
        )}
      </span>
    </button>
  );
}

/** "X-Signature · ••••••••", "Standard Webhooks · ••••••••" (no character of the secret), "both · rotating" (two Standard Webhooks secrets), or "unsigned". */
function signingOf(d: DestinationView) {
  const standard = d.signing === 'segment' ? [] : d.maskedSigningSecrets;
  const shared = d.signing === 'standard' ? null : d.maskedSecret;
  if (standard.length === 0 && !shared) return 'unsigned';
  const scheme = d.signing === 'both' ? 'both' : d.signing === 'standard' ? 'Standard Webhooks' : 'X-Signature';
  const masked = standard.length > 1 ? null : (shared ?? standard[0]);
  return (
    <>
      {scheme} · {masked ? <span className="mono">{masked}</span> : 'rotating'}
    </>
  );
}
