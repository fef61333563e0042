import { useState } from 'react';
import type { AttemptView, DeliveryView, DestinationView, MessageDetail } from '../../../../shared/contract.ts';
import { absoluteTime, clockTime, formatDuration, plural } from '../../lib/format.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { loopExplanation, loopRefusalOf } from '../../lib/loop-refusal.ts';
import { deliveryName, nextAttemptWords, stateWords } from '../../store/delivery-words.ts';
import { useInspector } from '../../store/react.ts';

/** The webhook timeout (DESIGN.md §5.6): the line every attempt's bar is drawn against. */
export const TIMEOUT_MS = 5000;

/** Width of the waterfall's scale: the timeout plus a margin, or the longest attempt. */
export function scaleFor(attempts: readonly AttemptView[]): number {
  return Math.max(TIMEOUT_MS * 1.2, ...attempts.map((a) => a.durationMs * 1.05));
}

export function AttemptsTab({ message, delivery, destinations }: {
  message: MessageDetail;
  delivery: DeliveryView | null;
  destinations: readonly DestinationView[];
}) {
  const inspector = useInspector();
  const now = useSecondClock();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!delivery) return <div className="tab-empty"><p>No delivery, so no attempts{message.status !== 'accepted' ? ` (the message is ${message.status})` : ''}.</p></div>;
  const act = async (what: 'deliveries.retryNow' | 'deliveries.cancel') => {
    setBusy(true);
    setProblem(null);
    const result = await inspector.call(what, { ids: [delivery.id] });
    setBusy(false);
    if (!result.ok) setProblem(result.error.message);
    inspector.refreshDetail();
  };
  const open = delivery.status === 'pending' || delivery.status === 'retrying';

  return (
    <div className="attempts-tab">
      <dl className="facts">
        <div className="fact">
          <dt>delivery</dt>
          <dd>{deliveryName(delivery, message.deliveries, destinations)}</dd>
        </div>
        <div className="fact">
          <dt>status</dt>
          <dd className={`status-${delivery.status}`}>{stateWords(delivery, now)}</dd>
        </div>
        {delivery.lastError ? (
          <div className="fact">
            <dt>last error</dt>
            <dd>{delivery.lastError}</dd>
          </div>
        ) : null}
        <div className="fact">
          <dt>first attempt</dt>
          <dd>{delivery.firstAttemptAt === null ? '—' : absoluteTime(delivery.firstAttemptAt)}</dd>
        </div>
        {/* Only a delivery still open has a next attempt and a time it retries until; a final one says why it ended (status). */}
        {open ? (
          <div className="fact">
            <dt>next attempt</dt>
            <dd>
              {nextAttemptWords(delivery, now)}
              {delivery.nextAttemptAt === null ? '' : ` (${clockTime(delivery.nextAttemptAt)})`}
            </dd>
          </div>
        ) : null}
        {open ? (
          <div className="fact">
            <dt>retries until</dt>
            <dd>{delivery.deadlineAt === null ? '4 h after the first attempt' : `${absoluteTime(delivery.deadlineAt)} (4 h after the first attempt)`}</dd>
          </div>
        ) : null}
      </dl>
      {open ? (
        <div className="toolbar">
          <button type="button" className="btn" disabled={busy} onClick={() => void act('deliveries.retryNow')}>
            Retry now
          </button>
          <button type="button" className="btn" disabled={busy} onClick={() => void act('deliveries.cancel')}>
            Cancel delivery
          </button>
          {problem ? <span role="alert" className="error-text">{problem}</span> : null}
        </div>
      ) : null}
      <AttemptsWaterfall attempts={delivery.attempts} />
    </div>
  );
}

/** A delivery's attempts drawn against the 5 s timeout, each with its result, error and response (also used by the destination's test panel). */
export function AttemptsWaterfall({ attempts }: { attempts: readonly AttemptView[] }) {
  if (attempts.length === 0) return <p className="muted">No attempt yet.</p>;
  const scale = scaleFor(attempts);
  const timeoutAt = (TIMEOUT_MS / scale) * 100;
  return (
    <ol className="waterfall" aria-label="Attempts">
      <li className="waterfall-axis" aria-hidden="true">
        <span className="axis-label" style={{ left: `${timeoutAt}%` }}>
          5 s timeout
        </span>
      </li>
      {attempts.map((attempt, i) => (
        <AttemptRow key={attempt.id} attempt={attempt} next={attempts[i + 1]} n={i + 1} scale={scale} timeoutAt={timeoutAt} />
      ))}
    </ol>
  );
}

function attemptSummary(a: AttemptView): { text: string; tone: string } {
  if (a.errorCode === 'timeout') return { text: `timed out after ${formatDuration(a.durationMs)}`, tone: 'bad' };
  if (a.responseStatus !== null) {
    const ok = a.responseStatus >= 200 && a.responseStatus < 300;
    return { text: `HTTP ${a.responseStatus} in ${formatDuration(a.durationMs)}`, tone: ok ? 'ok' : 'bad' };
  }
  return { text: `${a.errorCode ?? 'error'} after ${formatDuration(a.durationMs)}`, tone: 'bad' };
}

function AttemptRow({ attempt, next, n, scale, timeoutAt }: { attempt: AttemptView; next: AttemptView | undefined; n: number; scale: number; timeoutAt: number }) {
  const summary = attemptSummary(attempt);
  const width = Math.max(0.5, Math.min(100, (attempt.durationMs / scale) * 100));
  const timedOut = attempt.errorCode === 'timeout';
  const refusal = loopRefusalOf(attempt);
  return (
    <li className={`attempt attempt-${summary.tone}${timedOut ? ' attempt-timeout' : ''}`} aria-label={`Attempt ${n}: ${summary.text}`}>
      <div className="attempt-head">
        <span className="attempt-n">#{n}</span>
        <time title={absoluteTime(attempt.startedAt)}>{clockTime(attempt.startedAt)}</time>
        <code className="attempt-url" title={attempt.url}>
          {attempt.url}
        </code>
        <span className={`attempt-result tone-${summary.tone}`}>{summary.text}</span>
      </div>
      <div className="bar-track" aria-hidden="true">
        <div className="bar" style={{ width: `${width}%` }} />
        <div className="timeout-line" style={{ left: `${timeoutAt}%` }} />
        {/* Beside the line the bar ran into, so a timeout reads at a glance (the row's name says it for screen readers). */}
        {timedOut ? (
          <span className="timeout-mark" style={{ left: `calc(${timeoutAt}% + 6px)` }}>
            timed out at {TIMEOUT_MS / 1000} s
          </span>
        ) : null}
      </div>
      {/* Refused by a Sluice's loop guard: what that means and the fix, in place of the sender's sentence (the status and the response keep it). */}
      {refusal ? (
        <p className="attempt-error attempt-loop">
          <strong>loop guard ({refusal}): </strong>
          {loopExplanation(refusal)}
        </p>
      ) : attempt.errorMessage ? <p className="attempt-error">{attempt.errorCode ? <strong>{attempt.errorCode}: </strong> : null}{attempt.errorMessage}</p> : null}
      {attempt.retryAt !== null ? (
        <p className="muted">
          Retry scheduled for {absoluteTime(attempt.retryAt)}
          {/* Retry now sends the next attempt before its time: say so rather than leave a time that did not happen. */}
          {next && next.startedAt < attempt.retryAt ? ` — sent earlier, at ${clockTime(next.startedAt)}` : ''}
        </p>
      ) : null}
      {attempt.responseStatus !== null ? (
        <details className="response">
          <summary>Response {attempt.responseStatus}{attempt.responseBody ? ` · ${plural(attempt.responseBody.length, 'character')}` : ''}</summary>
          <table className="headers-table" aria-label={`Response headers of attempt ${n}`}>
            <tbody>
              {Object.entries(attempt.responseHeaders ?? {}).map(([name, value]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>
                    <code>{Array.isArray(value) ? value.join(', ') : value}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <pre className="code-block" aria-label={`Response body of attempt ${n}`}>
            {attempt.responseBody || '(empty)'}
          </pre>
        </details>
      ) : null}
    </li>
  );
}
