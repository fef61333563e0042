import { useState } from 'react';
import type { AudienceView, SyncMode } from '../../../../shared/audiences.ts';
import type { SourceView } from '../../../../shared/contract.ts';
import { Tabs } from '../../components/Tabs.tsx';
import { useSecondClock } from '../../lib/clock.ts';
import { absoluteTime, formatCount, plural, relativeTime } from '../../lib/format.ts';
import { countdown } from '../../store/outcome.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { audienceTargets, inputOf } from './audience-form.ts';
import { ModeSwitch } from './SyncTiming.tsx';
import { describeDefinition } from './describe.ts';
import { MembersList } from './MembersList.tsx';
import { SyncHistory } from './SyncHistory.tsx';
import { useSyncHistory } from './use-audiences.ts';

/** One audience: what it is, when it syncs next (and Sync now), its sync history and its members. */
export function AudienceDetail({ audience, sources, onEdit, onDeleted }: {
  audience: AudienceView;
  sources: readonly SourceView[];
  onEdit: () => void;
  onDeleted: () => void;
}) {
  const inspector = useInspector();
  const destinations = useInspectorState((s) => s.destinations);
  const now = useSecondClock();
  const { syncs, error: historyError } = useSyncHistory(audience.id);
  const [tab, setTab] = useState<'history' | 'members'>('history');
  const [busy, setBusy] = useState<'sync' | 'mode' | 'delete' | null>(null);
  const [note, setNote] = useState<{ text: string; bad: boolean } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const source = sources.find((s) => s.id === audience.sourceId)?.name ?? `source ${audience.sourceId}`;
  const isAudience = audience.kind === 'audience';
  const chosen = audience.destinationIds;
  const targets = audienceTargets(destinations, audience.sourceId, chosen);
  const targetNames = targets.map((d) => `${d.name}${d.enabled ? '' : ' (disabled)'}`).join(', ');

  const syncNow = async () => {
    setBusy('sync');
    setNote(null);
    const result = await inspector.call('audiences.syncNow', { id: audience.id });
    setBusy(null);
    if (!result.ok) {
      setNote({ text: `The sync failed: ${result.error.message}`, bad: true });
      return;
    }
    const s = result.value;
    setNote({
      text:
        s.messages === 0
          ? 'Synced: nobody joined or left, so nothing was sent.'
          : `Synced: ${formatCount(s.joined)} ${isAudience ? 'joined' : 'new or changed'}, ${formatCount(s.left)} ${isAudience ? 'left' : 'cleared'}; ${plural(s.messages, 'identify message')} ${s.deliveries > 0 ? 'queued for delivery' : chosen === null ? 'stored (no enabled destination is connected to the source)' : 'stored (none of its destinations is enabled)'}.`,
      bad: false,
    });
  };

  const switchMode = async (mode: SyncMode) => {
    setBusy('mode');
    setNote(null);
    const result = await inspector.call('audiences.save', { ...inputOf(audience), mode });
    setBusy(null);
    if (!result.ok) setNote({ text: `The mode was not changed: ${result.error.message}`, bad: true });
  };

  const remove = async () => {
    setBusy('delete');
    const result = await inspector.call('audiences.delete', { id: audience.id });
    setBusy(null);
    setConfirmDelete(false);
    if (!result.ok) {
      setNote({ text: `Not deleted: ${result.error.message}`, bad: true });
      return;
    }
    onDeleted();
  };

  const next = audience.nextSyncAt;
  const nextText = busy === 'sync' ? 'syncing…' : next === null ? 'not scheduled' : next - now <= 500 ? 'due now' : countdown(next - now);

  return (
    <section className="aud-detail" aria-labelledby="aud-detail-title">
      <header className="aud-detail-head">
        <div className="aud-title-line">
          <h2 id="aud-detail-title">{audience.name}</h2>
          <span className="aud-badge">{isAudience ? 'audience' : 'computed trait'}</span>
        </div>
        <p className="muted">
          Users of <strong>{source}</strong>, sent as the trait <code>{audience.property}</code> · {describeDefinition(audience)}
        </p>
        <p className="aud-targets">
          Sends to{' '}
          {chosen === null ? (
            <>the destinations of {source}: {targetNames || 'none enabled now'}</>
          ) : chosen.length === 0 ? (
            'no destination (chosen in the editor): syncs are stored and shown only'
          ) : (
            <strong>{targetNames}</strong>
          )}
        </p>
      </header>

      <div className="aud-schedule">
        <ModeSwitch mode={audience.mode} disabled={busy !== null} onChange={(mode) => void switchMode(mode)} />
        <span className="muted">{audience.mode === 'demo' ? `every ${formatCount(audience.intervalSeconds)} s` : 'first after 6 h, then every 2–3 h'}</span>
        <span className="aud-next">
          Next sync{' '}
          <strong role="timer" aria-label="Next sync" title={next === null ? undefined : absoluteTime(next)}>
            {nextText}
          </strong>
        </span>
        <span className="muted">
          {audience.lastSyncAt === null ? 'never synced' : <>last <time title={absoluteTime(audience.lastSyncAt)}>{relativeTime(audience.lastSyncAt, now)}</time></>}
        </span>
        <span className="aud-spacer" />
        <button type="button" className="btn btn-primary" disabled={busy !== null} onClick={() => void syncNow()}>
          Sync now
        </button>
        <button type="button" className="btn" disabled={busy !== null} onClick={onEdit}>
          Edit
        </button>
        {confirmDelete ? (
          <span className="aud-confirm" role="group" aria-label="Confirm deletion">
            <span>Delete “{audience.name}”? Destinations keep the trait they were sent.</span>
            <button type="button" className="btn btn-small aud-danger" disabled={busy !== null} onClick={() => void remove()}>
              Delete
            </button>
            <button type="button" className="btn btn-small" onClick={() => setConfirmDelete(false)}>
              Keep it
            </button>
          </span>
        ) : (
          <button type="button" className="btn" disabled={busy !== null} onClick={() => setConfirmDelete(true)}>
            Delete…
          </button>
        )}
      </div>
      <p className={`aud-note${note?.bad ? ' aud-error' : ''}`} role="status">
        {note?.text ?? ''}
      </p>
      {audience.lastError ? (
        <p className="aud-error" role="alert">
          {audience.lastError}
        </p>
      ) : null}

      <Tabs
        label="Audience details"
        active={tab}
        onChange={setTab}
        tabs={[
          { key: 'history', label: 'Sync history', badge: syncs ? formatCount(syncs.length) : undefined },
          { key: 'members', label: isAudience ? 'Members' : 'Values', badge: formatCount(audience.members) },
        ]}
      >
        {tab === 'history' ? (
          historyError ? (
            <p className="aud-error" role="alert">
              {historyError}
            </p>
          ) : syncs === null ? (
            <div className="aud-loading" aria-busy="true" aria-label="Loading the sync history" />
          ) : (
            <SyncHistory syncs={syncs} kind={audience.kind} lastSyncAt={audience.lastSyncAt} />
          )
        ) : (
          <MembersList audienceId={audience.id} kind={audience.kind} />
        )}
      </Tabs>
    </section>
  );
}
