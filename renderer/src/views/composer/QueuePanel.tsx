import { useState } from 'react';
import type { ComposerState } from '../../../../shared/contract.ts';
import { formatCount, formatDuration, relativeTime, plural } from '../../lib/format.ts';
import { useNow } from '../../store/react.ts';
import type { QueueSnapshot } from './use-composer-queue.ts';
import { ErrorText } from '../../components/ErrorText.tsx';

/** At most this many squares picture the queue; more are summed up in the number. */
const MAX_DOTS = 60;

/**
 * The composer client's queue as it changes: what waits, its size, when the timed flush fires, what is
 * being sent, and how the last batch went — so batching (flushAt / flushAfter) can be watched.
 */
export function QueuePanel({ queue, error, onFlush }: { queue: QueueSnapshot | null; error: string | null; onFlush: () => Promise<string | null> }) {
  const [flushing, setFlushing] = useState(false);
  const [flushError, setFlushError] = useState<string | null>(null);
  const state = queue?.state;
  return (
    <section className="queue-panel" aria-labelledby="queue-title">
      <h3 id="queue-title" className="section-title">
        Client queue
      </h3>
      <p className="hint">
        The client batches: it sends when enough messages wait (<code>flushAt</code>), when the timer runs out (<code>flushAfter</code>), or
        when you flush.
      </p>
      <ErrorText error={error} />
      <dl className="queue-stats">
        <Stat label="Queued messages" value={state ? String(state.queued) : '–'} />
        <Stat label="Queued bytes" value={state ? formatBytes(state.queuedBytes) : '–'} />
        <Stat label="Batches in flight" value={state ? `${state.inFlightBatches}${state.inFlightMessages ? ` (${state.inFlightMessages} msg)` : ''}` : '–'} />
      </dl>
      <div className="queue-dots" aria-hidden="true">
        {Array.from({ length: Math.min(state?.queued ?? 0, MAX_DOTS) }, (_, i) => (
          <span key={i} className="queue-dot" />
        ))}
        {(state?.queued ?? 0) > MAX_DOTS ? <span className="muted">+{formatCount(state!.queued - MAX_DOTS)}</span> : null}
      </div>
      <FlushTimer queue={queue} />
      <div className="toolbar">
        <button
          type="button"
          className="btn"
          disabled={!state || state.queued === 0 || flushing}
          onClick={async () => {
            setFlushing(true);
            setFlushError(await onFlush());
            setFlushing(false);
          }}
        >
          {flushing ? 'Flushing…' : 'Flush now'}
        </button>
        <span className="muted queue-totals" aria-label="Totals">
          {state ? `${state.sent} sent · ${state.failed} failed · ${state.dropped} dropped` : ''}
        </span>
      </div>
      <ErrorText error={flushError} />
      <LastResult state={state} />
    </section>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="queue-stat">
      <dt>{label}</dt>
      <dd aria-label={label}>{value}</dd>
    </div>
  );
}

function FlushTimer({ queue }: { queue: QueueSnapshot | null }) {
  const running = queue !== null && queue.state.nextFlushInMs !== null && queue.state.queued > 0;
  const now = useNow(running ? 100 : 1000);
  let text = 'No timer: nothing waits.';
  if (running) {
    const left = Math.max(0, queue.at + queue.state.nextFlushInMs! - now);
    text = left > 0 ? `Timed flush in ${(left / 1000).toFixed(1)} s` : 'Timed flush now…';
  } else if (queue && queue.state.queued > 0) {
    text = 'Waiting to be sent.';
  }
  return (
    <p className="queue-timer" aria-label="Timed flush">
      {text}
    </p>
  );
}

function LastResult({ state }: { state: ComposerState | undefined }) {
  const now = useNow(1000);
  const last = state?.lastResult;
  if (!last) return <p className="queue-last muted">No batch sent yet.</p>;
  const what = plural(last.messages, 'message');
  const attempts = last.attempts > 1 ? ` · ${last.attempts} attempts` : '';
  return (
    <p className={`queue-last ${last.ok ? 'tone-ok' : 'tone-bad'}`} aria-label="Last batch">
      {last.ok
        ? `✓ Last batch: ${what} · HTTP ${last.status ?? '?'} · ${formatDuration(last.durationMs)}${attempts} · ${relativeTime(last.at, now)}`
        : `✗ Last batch: ${what} not sent — ${last.error?.message ?? 'unknown error'}${attempts}`}
    </p>
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  return `${(bytes / 1024).toFixed(1)} KB`;
}
