import { useState } from 'react';
import type { AudienceView } from '../../../../shared/audiences.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { formatCount } from '../../lib/format.ts';
import { countdown } from '../../store/outcome.ts';
import { useInspectorState } from '../../store/react.ts';
import { AudienceDetail } from './AudienceDetail.tsx';
import { AudienceEditor } from './AudienceEditor.tsx';
import { useAudiences } from './use-audiences.ts';
import './audiences.css';

type Pane = { kind: 'detail'; id: number } | { kind: 'edit'; id: number } | { kind: 'new' };

/**
 * Audiences and computed traits (seed §6.3): the list beside the chosen one's detail (schedule, sync
 * now, history, members) or the editor. Everything follows the core's `audiences.changed` events.
 */
export function AudiencesView() {
  const info = useInspectorState((s) => s.info);
  const { audiences, error } = useAudiences();
  const [pane, setPane] = useState<Pane | null>(null);
  // A new editor for each choice, so a form never carries over from another audience.
  const [session, setSession] = useState(0);
  const go = (next: Pane) => {
    setPane(next);
    setSession((n) => n + 1);
  };
  if (!info || audiences === null) {
    return (
      <div className="master-detail aud-view" aria-busy="true">
        {error ? (
          <p className="aud-error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    );
  }
  // Nothing chosen: the first audience, or a new one when there is none.
  const shown: Pane = pane ?? (audiences[0] ? { kind: 'detail', id: audiences[0].id } : { kind: 'new' });
  const current = shown.kind === 'new' ? null : (audiences.find((a) => a.id === shown.id) ?? null);

  return (
    <div className="master-detail aud-view">
      <aside className="master-list" aria-label="Audiences">
        <div className="master-list-head">
          <h2>Audiences</h2>
          <button type="button" className="btn btn-small" aria-pressed={shown.kind === 'new'} onClick={() => go({ kind: 'new' })}>
            + New
          </button>
        </div>
        {error ? (
          <p className="aud-error aud-list-note" role="alert">
            {error}
          </p>
        ) : null}
        {audiences.length === 0 ? (
          <p className="hint aud-list-note">
            No audience yet. Define one over the users Sluice has seen, and watch the identify messages it sends your webhooks as members join and leave.
          </p>
        ) : (
          <ul>
            {audiences.map((a) => (
              <li key={a.id}>
                <AudienceItem audience={a} current={shown.kind !== 'new' && shown.id === a.id} onOpen={() => go({ kind: 'detail', id: a.id })} />
              </li>
            ))}
          </ul>
        )}
      </aside>
      <div className="aud-pane">
        {shown.kind === 'new' || (shown.kind === 'edit' && current) ? (
          <AudienceEditor
            key={session}
            audience={shown.kind === 'edit' ? current : null}
            sources={info.sources}
            onSaved={(id) => go({ kind: 'detail', id })}
            onCancel={() => go(current ? { kind: 'detail', id: current.id } : audiences[0] ? { kind: 'detail', id: audiences[0].id } : { kind: 'new' })}
          />
        ) : current ? (
          <AudienceDetail
            key={current.id}
            audience={current}
            sources={info.sources}
            onEdit={() => go({ kind: 'edit', id: current.id })}
            onDeleted={() => setPane(null)}
          />
        ) : (
          <p className="muted aud-empty">This audience was deleted.</p>
        )}
      </div>
    </div>
  );
}

function AudienceItem({ audience: a, current, onOpen }: { audience: AudienceView; current: boolean; onOpen: () => void }) {
  const now = useSecondClock();
  const next = a.nextSyncAt === null ? 'not scheduled' : a.nextSyncAt - now <= 500 ? 'syncing' : `sync ${countdown(a.nextSyncAt - now)}`;
  return (
    <button type="button" className={`master-item${current ? ' current' : ''}`} aria-current={current ? 'true' : undefined} onClick={onOpen}>
      <span className="master-item-line">
        <span className="master-item-name">{a.name}</span>
        <span className="aud-item-count" title={a.kind === 'audience' ? 'members as of the last sync' : 'users with a value as of the last sync'}>
          {formatCount(a.members)}
        </span>
      </span>
      <span className="master-item-sub mono">{a.property}</span>
      <span className={`master-item-sub${a.lastError ? ' tone-bad' : ''}`}>
        {a.kind === 'audience' ? 'audience' : 'computed trait'} · {a.mode} · {a.lastError ? 'last sync failed' : next}
      </span>
    </button>
  );
}
