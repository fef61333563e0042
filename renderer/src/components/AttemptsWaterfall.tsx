import type { AttemptView } from '../../../shared/contract.ts';
import { WEBHOOK_TIMEOUT_MS } from '../../../shared/limits.ts';
import { absoluteTime, clockTime, formatDuration, plural } from '../lib/format.ts';
import { loopExplanation, loopRefusalOf } from '../lib/loop-refusal.ts';

/** The webhook timeout (DESIGN.md §5.6): the line every attempt's bar is drawn against. */
const TIMEOUT_MS = WEBHOOK_TIMEOUT_MS;

/** Width of the waterfall's scale: the timeout plus a margin, or the longest attempt. */
export function scaleFor(attempts: readonly AttemptView[]): number {
  return Math.max(TIMEOUT_MS * 1.2, ...attempts.map((a) => a.durationMs * 1.05));
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
        <AttemptRow key={`${attempt.forwarded ? 'f' : 'a'}${attempt.id}`} attempt={attempt} next={attempts[i + 1]} n={i + 1} scale={scale} timeoutAt={timeoutAt} />
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
