import { useEffect, useId, useState } from 'react';
import type { ReplayOutcome, RequestOf } from '../../../../shared/contract.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { absoluteTime, plural } from '../../lib/format.ts';
import { hasFilters, listQuery, type Filters } from '../../store/filters.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { countProgress, describeProgress } from './bulk-progress.ts';
import { confirmation, defaultScope, describeFilters, type BulkScope } from './bulk-plan.ts';
import { useReplayState, useReplayStore } from './replay-store.ts';
import { ReplayTarget, targetRequest, type TargetChoice } from './ReplayTarget.tsx';
import './replay.css';

/** The stream's "Replay…" action: the filtered set or all failed, confirmed with a count, then live progress. */
export function BulkReplayButton() {
  const store = useReplayStore();
  const open = useReplayState((s) => s.dialogOpen);
  const bulk = useReplayState((s) => s.bulk);
  useReplayState((s) => s.rev);
  const progress = bulk ? countProgress(bulk.deliveryIds, store.getState().deliveries) : null;
  return (
    <>
      <button
        type="button"
        className="btn replay-button"
        aria-haspopup="dialog"
        title="Replay the messages matching these filters, or every failed delivery"
        onClick={() => store.setState({ dialogOpen: true })}
      >
        Replay…{progress && !progress.done ? ` ${progress.finished}/${progress.total}` : ''}
      </button>
      {open ? <BulkReplayDialog onClose={() => store.setState({ dialogOpen: false, ...(progress?.done ? { bulk: null } : {}) })} /> : null}
    </>
  );
}

function BulkReplayDialog({ onClose }: { onClose: () => void }) {
  const inspector = useInspector();
  const store = useReplayStore();
  const bulk = useReplayState((s) => s.bulk);

  return (
    <Dialog title="Replay messages" className="bulk-replay" onClose={onClose}>
      {bulk ? <BulkProgress onClose={onClose} /> : <BulkChoice inspectorFilters={inspector.store.getState().filters} onClose={onClose} onStarted={(job) => store.setState({ bulk: job })} />}
    </Dialog>
  );
}

function BulkChoice({ inspectorFilters, onClose, onStarted }: {
  inspectorFilters: Filters;
  onClose: () => void;
  onStarted: (job: { label: string; messages: number; deliveryIds: number[] }) => void;
}) {
  const inspector = useInspector();
  const destinations = useInspectorState((s) => s.destinations);
  const sources = useInspectorState((s) => s.info?.sources);
  const scopeName = useId();
  // The filtered set as it is now: the count and the replay use the same bounds (a sliding window does not move between them).
  const [snapshot] = useState(() => ({ filters: inspectorFilters, query: listQuery(inspectorFilters, Date.now()) }));
  const filtered = hasFilters(inspectorFilters);
  // While a filter is set, its set is what the user is looking at: the default. "All failed" stays a choice.
  const [scope, setScope] = useState<BulkScope>(defaultScope(filtered));
  const [choice, setChoice] = useState<TargetChoice>({ destinationId: null, sendTo: 'webhooks', url: '' });
  const [count, setCount] = useState<{ outcome: ReplayOutcome } | { error: string } | null>(null);
  const [starting, setStarting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const target = targetRequest(choice);

  const request = (): RequestOf<'deliveries.replay'> | null => {
    if (!target.ok) return null;
    const { ok: _ok, ...fields } = target;
    return scope === 'failed' ? { allFailed: true, ...fields } : { filter: snapshot.query, ...fields };
  };
  const requestKey = JSON.stringify(request());

  useEffect(() => {
    const base = request();
    setCount(null);
    if (!base) return;
    let current = true;
    const timer = setTimeout(async () => {
      const result = await inspector.call('deliveries.replay', { ...base, dryRun: true });
      if (!current) return;
      setCount(result.ok ? { outcome: result.value } : { error: result.error.message });
    }, 150);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [requestKey]);

  const sourceName = (id: number) => sources?.find((s) => s.id === id)?.name ?? `#${id}`;
  const confirm = count && 'outcome' in count ? confirmation(count.outcome, scope, filtered) : null;
  const start = async () => {
    const base = request();
    if (!base || !confirm?.button || !count || !('outcome' in count)) return;
    setStarting(true);
    setProblem(null);
    const result = await inspector.call('deliveries.replay', base);
    setStarting(false);
    if (!result.ok) {
      setProblem(`The replay was refused: ${result.error.message}.`);
      return;
    }
    const label = scope === 'failed' ? `all failed deliveries${result.value.truncated ? ' (the oldest 10,000; replay all failed again for the rest)' : ''}` : `the messages matching: ${describeFilters(snapshot.filters, sourceName, absoluteTime)}`;
    onStarted({ label, messages: result.value.messages, deliveryIds: result.value.deliveryIds });
  };

  return (
    <div className="bulk-choice">
      <fieldset className="send-to">
        <legend className="field-label">What to replay</legend>
        <label className="radio">
          <input type="radio" name={scopeName} checked={scope === 'filtered'} onChange={() => setScope('filtered')} />
          {filtered ? (
            <span>
              The messages matching the current filter <span className="muted">({describeFilters(snapshot.filters, sourceName, absoluteTime)})</span>
            </span>
          ) : (
            <span>
              Every stored message <span className="muted">(no filter is set)</span>
            </span>
          )}
        </label>
        <label className="radio">
          <input type="radio" name={scopeName} checked={scope === 'failed'} onChange={() => setScope('failed')} />
          <span>All failed deliveries, whatever the filter</span>
        </label>
      </fieldset>
      <ReplayTarget destinations={destinations} choice={choice} onChange={setChoice} eachOwn />
      <p className="bulk-count" aria-live="polite">
        {!target.ok
          ? 'Fix the URL above to count the messages.'
          : count === null
            ? 'Counting…'
            : 'error' in count
              ? `Could not count the messages: ${count.error}.`
              : confirm!.text}
      </p>
      {problem ? (
        <p role="alert" className="error-text">
          {problem}
        </p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" disabled={!confirm?.button || starting} onClick={() => void start()}>
          {starting ? 'Starting…' : (confirm?.button ?? 'Replay')}
        </button>
      </div>
    </div>
  );
}

function BulkProgress({ onClose }: { onClose: () => void }) {
  const store = useReplayStore();
  const bulk = useReplayState((s) => s.bulk)!;
  useReplayState((s) => s.rev);
  const progress = countProgress(bulk.deliveryIds, store.getState().deliveries);
  const line = describeProgress(progress);
  return (
    <div className="bulk-progress">
      <p>
        Replaying {bulk.messages > 0 ? plural(bulk.messages, 'message') : plural(bulk.deliveryIds.length, 'delivery', 'deliveries')} —{' '}
        {bulk.label}.
      </p>
      <progress className="bulk-bar" aria-label="Replay progress" max={Math.max(1, progress.total)} value={progress.finished} />
      <p role="status" className={progress.done ? (progress.failed > 0 ? 'tone-warn' : 'tone-ok') : undefined}>
        {progress.done ? `Done: ${line}.` : `${line}.`}
      </p>
      {!progress.done && progress.pending > 0 ? (
        <p className="hint">Deliveries that fail with a retryable error go on retrying on the usual schedule (up to 4 hours); you can close this and keep working.</p>
      ) : null}
      <div className="dialog-actions">
        <button type="button" className="btn btn-primary" onClick={onClose}>
          {progress.done ? 'Done' : 'Close'}
        </button>
      </div>
    </div>
  );
}
