import type { IssueRetryProgress } from '../../../../shared/contract.ts';
import { progressFraction, progressWords } from './issue-words.ts';

/** A bulk retry's bar (looked at of total) and its sentence, announced as it changes. */
export function RetryProgress({ job, label, compact = false }: { job: IssueRetryProgress; label: string; compact?: boolean }) {
  return (
    <div className={`retry-progress${compact ? ' retry-progress-compact' : ''} state-${job.state}`}>
      {job.state === 'counting' ? (
        <progress aria-label={label} /> /* indeterminate while a retry by filter counts */
      ) : (
        <progress aria-label={label} max={Math.max(1, job.total)} value={Math.round(progressFraction(job) * Math.max(1, job.total))} />
      )}
      <p role="status" className="retry-progress-text">
        {progressWords(job)}
      </p>
    </div>
  );
}
