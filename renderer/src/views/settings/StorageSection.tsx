import { useRef, useState } from 'react';
import type { ClearScope, StorageView } from '../../../../shared/storage.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { ErrorText } from '../../components/ErrorText.tsx';
import { useSecondClock } from '../../lib/clock.ts';
import { useShown } from '../../lib/use-shown.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { useLive } from '../../store/use-live.ts';
import { ClearDialog } from '../storage/ClearDialog.tsx';
import { ResetDialog } from '../storage/ResetDialog.tsx';
import { clearDone, formatBytes, formatFigure, messageTime, pruneWords, resetDone, type ClearWhat } from '../storage/storage-words.ts';
import { RetentionForm } from './RetentionForm.tsx';

/** The figures are read again this often while the section is on screen (and on every prune or clear). */
export const STORAGE_POLL_MS = 5000;

const NO_SOURCES: never[] = [];

/**
 * Settings › Storage: what the store holds and weighs, how much it keeps (retention), the last prune,
 * and clearing everything or one source's messages (each asked first, with the count).
 */
export function StorageSection() {
  const inspector = useInspector();
  const sources = useInspectorState((s) => s.info?.sources) ?? NO_SOURCES;
  const section = useRef<HTMLElement>(null);
  const shown = useShown(section);
  const now = useSecondClock();
  const [clearing, setClearing] = useState<{ scope: ClearScope; what: ClearWhat } | null>(null);
  const [cleared, setCleared] = useState<string | null>(null);
  const [resetting, setResetting] = useState(false);
  const { data: stats, error, reload } = useLive<StorageView>({
    load: () => inspector.call('storage.stats', {}),
    concerns: (events) => events.some((e) => e.type === 'storage.pruned' || e.type === 'store.reset'),
    what: 'the storage figures',
    pollMs: shown ? STORAGE_POLL_MS : null,
  });

  return (
    <section ref={section} className="settings-card storage-section" aria-labelledby="settings-storage">
      <h3 id="settings-storage">Storage</h3>
      <ErrorText error={error} />
      <StorageFigures stats={stats} now={now} />

      <h4 className="storage-subhead">Last prune</h4>
      <p className="storage-outcome">
        {stats === null ? '…' : stats.lastPrune ? capitalised(pruneWords(stats.lastPrune, stats.retention, now)) : 'None yet: the store has not been over a limit.'}
      </p>

      <h4 className="storage-subhead">Retention</h4>
      {stats ? <RetentionForm stats={stats} onSaved={reload} /> : <p className="hint">Reading the retention…</p>}

      <h4 className="storage-subhead">Clear</h4>
      <p className="hint">Removes stored messages with their deliveries and attempts, asking first with the count. Pending deliveries of theirs are cancelled.</p>
      <div className="storage-clear">
        <button type="button" className="btn btn-danger" aria-haspopup="dialog" onClick={() => setClearing({ scope: { all: true }, what: { kind: 'all' } })}>
          Clear all messages…
        </button>
        {sources.map((source) => (
          <button
            key={source.id}
            type="button"
            className="btn"
            aria-haspopup="dialog"
            onClick={() => setClearing({ scope: { sourceId: source.id }, what: { kind: 'source', name: source.name } })}
          >
            Clear {source.name}…
          </button>
        ))}
      </div>
      <p className="storage-outcome" role="status">
        {cleared ?? ''}
      </p>
      <h4 className="storage-subhead">Reset</h4>
      <p className="hint">
        Forgets everything received — messages, deliveries, refused requests, profiles, the receiver’s inbox — as a test’s reset does,
        asking first; sources, destinations, audiences, plans and saved searches stay.
      </p>
      <div className="storage-clear">
        <button type="button" className="btn btn-danger" aria-haspopup="dialog" onClick={() => setResetting(true)}>
          Reset…
        </button>
      </div>
      {resetting ? (
        <ResetDialog
          onClose={() => setResetting(false)}
          onReset={(result) => {
            setCleared(resetDone(result));
            reload();
          }}
        />
      ) : null}
      {clearing ? (
        <ClearDialog
          scope={clearing.scope}
          what={clearing.what}
          onClose={() => setClearing(null)}
          onCleared={(result) => {
            setCleared(clearDone(result));
            reload();
          }}
        />
      ) : null}
    </section>
  );
}

function capitalised(text: string): string {
  return text ? `${text[0]!.toUpperCase()}${text.slice(1)}.` : text;
}

function StorageFigures({ stats, now }: { stats: StorageView | null; now: number }) {
  const count = (n: number) => (stats ? formatFigure(n, stats.approximate) : '…');
  return (
    <>
      <dl className="storage-figures">
        <Figure label="Messages" value={count(stats?.messages ?? 0)} />
        <Figure label="Deliveries" value={count(stats?.deliveries ?? 0)} />
        <Figure label="Attempts" value={count(stats?.attempts ?? 0)} />
        <Figure label="Database" value={stats ? formatBytes(stats.databaseBytes) : '…'} />
        <Figure label="Write-ahead log" value={stats ? formatBytes(stats.walBytes) : '…'} note="kept short by checkpoints" />
        <Figure label="Free inside the file" value={stats ? formatBytes(stats.freeBytes) : '…'} note="reused before the file grows" />
        <Figure label="Oldest message" value={stats ? messageTime(stats.oldestMessageAt, now) : '…'} />
        <Figure label="Newest message" value={stats ? messageTime(stats.newestMessageAt, now) : '…'} />
      </dl>
      {stats?.approximate ? <p className="hint">≈: estimated from the ids (counting millions of rows would take a while).</p> : null}
      {stats ? (
        <p className="storage-command hint">
          <span>Database file</span>
          <code>{stats.databaseFile}</code>
          <CopyButton text={stats.databaseFile} label="Copy database file path" />
        </p>
      ) : null}
    </>
  );
}

function Figure({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd>
        {value}
        {note ? <span className="muted">({note})</span> : null}
      </dd>
    </div>
  );
}
