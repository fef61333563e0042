import { useRef, useState } from 'react';
import type { IssueRetryProgress } from '../../../../shared/contract.ts';
import { useInspector } from '../../store/react.ts';
import { progressFraction, progressWords } from './issue-words.ts';
import { isActive, stopRetry } from './retry-jobs.ts';

/**
 * A bulk retry's bar (looked at of total) and its sentence, announced as it changes. With `stopLabel`
 * (the Stop button's accessible name, e.g. "Stop retrying crm — …"), a job under way has a Stop beside
 * its bar (`issues.retryCancel`: it stops between two chunks, the bar then says how far it got); the
 * focus then moves to the sentence, so a keyboard user is not left on a button that went away.
 */
export function RetryProgress({ job, label, stopLabel, compact = false }: { job: IssueRetryProgress; label: string; stopLabel?: string; compact?: boolean }) {
  const inspector = useInspector();
  const [stopping, setStopping] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const textRef = useRef<HTMLParagraphElement>(null);

  const stop = async () => {
    setStopping(true);
    setProblem(null);
    const stopped = await stopRetry(inspector, job.jobId);
    setStopping(false);
    if (!stopped.ok) return setProblem(`Could not stop the retry: ${stopped.error}.`);
    textRef.current?.focus();
  };

  return (
    <div className={`retry-progress${compact ? ' retry-progress-compact' : ''} state-${job.state}`}>
      <div className="retry-progress-bar">
        {job.state === 'counting' ? (
          <progress aria-label={label} /> /* indeterminate while a retry by filter counts */
        ) : (
          <progress aria-label={label} max={Math.max(1, job.total)} value={Math.round(progressFraction(job) * Math.max(1, job.total))} />
        )}
        {stopLabel !== undefined && isActive(job) ? (
          <button type="button" className="btn btn-small" aria-label={stopLabel} title="Stop after the chunk being sent again; what was retried stays retried" disabled={stopping} onClick={() => void stop()}>
            {stopping ? 'Stopping…' : 'Stop'}
          </button>
        ) : null}
      </div>
      <p ref={textRef} role="status" className="retry-progress-text" tabIndex={-1}>
        {progressWords(job)}
      </p>
      {problem ? (
        <p role="alert" className="error-text">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
