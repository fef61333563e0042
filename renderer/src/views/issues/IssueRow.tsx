import { useState } from 'react';
import type { IssueView } from '../../../../shared/contract.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { absoluteTime, relativeTime } from '../../lib/format.ts';
import { useInspector } from '../../store/react.ts';
import { countWords, kindWords, statusWords } from './issue-words.ts';
import { isActive, jobOf, startRetry, useRetryJobs } from './retry-jobs.ts';
import { RetryProgress } from './RetryProgress.tsx';

/** Every row is this tall (the list is virtualized at a fixed row height). */
export const ISSUE_ROW_HEIGHT = 112;

/**
 * One group: destination, error kind and status, URL, counts, first and last seen, open or closed;
 * "Show messages" (the stream on its `issue:<id>` query) and "Retry all" with its progress and its Stop.
 */
export function IssueRow({ issue, index, count, onOpen }: { issue: IssueView; index: number; count: number; onOpen: (issue: IssueView) => void }) {
  const inspector = useInspector();
  const now = useSecondClock();
  const job = useRetryJobs(inspector, (s) => jobOf(s, issue.id));
  const [problem, setProblem] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const closed = issue.open === 0;
  const running = job !== null && isActive(job);
  const name = `${issue.destinationName} — ${kindWords(issue.errorKind)}, ${statusWords(issue.status)}`;
  const titleId = `issue-${issue.id}-title`;

  const retry = async () => {
    setStarting(true);
    setProblem(null);
    const started = await startRetry(inspector, { issueId: issue.id });
    setStarting(false);
    if (!started.ok) setProblem(`Could not retry: ${started.error}.`);
  };

  return (
    <li
      className={`issue-row${closed ? ' issue-closed' : ''}`}
      style={{ top: index * ISSUE_ROW_HEIGHT, height: ISSUE_ROW_HEIGHT }}
      aria-posinset={index + 1}
      aria-setsize={count}
      aria-labelledby={titleId}
    >
      <div className="issue-main">
        <h3 id={titleId} className="issue-title">
          <span className={`issue-state ${closed ? 'state-closed' : 'state-open'}`}>{closed ? 'Closed' : 'Open'}</span> {issue.destinationName}
          <span className="muted"> · </span>
          {kindWords(issue.errorKind)}
          <span className="muted"> · {statusWords(issue.status)}</span>
        </h3>
        <p className="issue-url mono" title={issue.url || undefined}>
          {issue.url || '(nothing sent: the transform failed)'}
        </p>
        <p className="issue-error" title={issue.error}>
          {issue.error}
        </p>
        <p className="issue-counts">
          <span className="issue-count">{countWords(issue)}</span>
          <span className="muted">
            {' '}
            · first <time title={absoluteTime(issue.firstSeen)}>{relativeTime(issue.firstSeen, now)}</time>, last{' '}
            <time title={absoluteTime(issue.lastSeen)}>{relativeTime(issue.lastSeen, now)}</time>
            {issue.closedAt !== null ? (
              <>
                , closed <time title={absoluteTime(issue.closedAt)}>{relativeTime(issue.closedAt, now)}</time>
              </>
            ) : null}
          </span>
        </p>
      </div>
      <div className="issue-actions">
        <button type="button" className="btn btn-small" aria-label={`Show messages of ${name}`} disabled={closed} title={closed ? 'Its deliveries succeeded: no message is failing any more' : 'Open the stream on exactly these messages'} onClick={() => onOpen(issue)}>
          Show messages
        </button>
        <button type="button" className="btn btn-small btn-primary" aria-label={`Retry all of ${name}`} disabled={closed || running || starting} onClick={() => void retry()}>
          Retry all
        </button>
        {job ? <RetryProgress job={job} label={`Retry of ${name}`} stopLabel={`Stop retrying ${name}`} compact /> : null}
        {problem ? (
          <p className="error-text" role="alert">
            {problem}
          </p>
        ) : null}
      </div>
    </li>
  );
}
