import { useId, useState } from 'react';
import { Dialog } from '../../components/Dialog.tsx';
import { absoluteTime } from '../../lib/format.ts';
import { listQuery } from '../../store/filters.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { describeFilters } from '../replay/bulk-plan.ts';
import { isActive, jobOf, retryQueue, startRetry, useRetryJobs } from './retry-jobs.ts';
import { RetryProgress } from './RetryProgress.tsx';
import './issues.css';

/**
 * The stream's "Retry failed…": every failed or retrying delivery of the messages the current search
 * and filters match, retried in one action (`issues.retry` with the filter) — asked first with what the
 * filters are, then the job's progress (retry-jobs.ts) in the dialog, with its Stop, and on the button.
 * Opened again while that retry runs, the dialog shows it (to follow or stop it) rather than asking anew.
 */
export function RetrySearchButton() {
  const inspector = useInspector();
  const job = useRetryJobs(inspector, (s) => jobOf(s, null));
  const [open, setOpen] = useState(false);
  const running = job !== null && isActive(job);
  return (
    <>
      <button
        type="button"
        className="btn"
        aria-haspopup="dialog"
        title="Retry every failed or retrying delivery of the messages matching these filters"
        onClick={() => setOpen(true)}
      >
        Retry failed…{running ? ` ${job.done}/${job.total}` : ''}
      </button>
      {open ? <RetrySearchDialog onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function RetrySearchDialog({ onClose }: { onClose: () => void }) {
  const inspector = useInspector();
  const sources = useInspectorState((s) => s.info?.sources);
  const textId = useId();
  // The filters as they are when the dialog opens: what is asked is what is retried.
  const [snapshot] = useState(() => {
    const filters = inspector.store.getState().filters;
    return { filters, query: listQuery(filters, Date.now()) };
  });
  // A retry by filter under way (started before the dialog was closed): shown, not asked again.
  const [earlier] = useState(() => {
    const running = jobOf(retryQueue(inspector).store.getState(), null);
    return running && isActive(running) ? running.jobId : null;
  });
  const [jobId, setJobId] = useState<number | null>(earlier);
  const job = useRetryJobs(inspector, (s) => (jobId === null ? null : (s.jobs.get(jobId) ?? null)));
  const [starting, setStarting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const sourceName = (id: number) => sources?.find((s) => s.id === id)?.name ?? `#${id}`;

  const start = async () => {
    setStarting(true);
    setProblem(null);
    const started = await startRetry(inspector, { filter: snapshot.query });
    setStarting(false);
    if (!started.ok) return setProblem(`The retry was refused: ${started.error}.`);
    setJobId(started.job.jobId);
  };

  return (
    <Dialog title="Retry failed deliveries" className="retry-search-dialog" describedBy={textId} onClose={onClose}>
      {earlier !== null ? (
        <p id={textId}>A retry of failed deliveries started earlier is under way: follow it here, or stop it. What it already sent again stays sent.</p>
      ) : (
        <p id={textId}>
          Retry every failed or retrying delivery of the messages matching: <span className="muted">{describeFilters(snapshot.filters, sourceName, absoluteTime)}</span>. Each
          is sent again now; one that fails again goes on as before.
        </p>
      )}
      {job ? <RetryProgress job={job} label="Retry progress" stopLabel="Stop retrying the failed deliveries of the search" /> : null}
      {problem ? (
        <p role="alert" className="error-text">
          {problem}
        </p>
      ) : null}
      <div className="dialog-actions">
        {job ? (
          <button type="button" className="btn btn-primary" autoFocus onClick={onClose}>
            {isActive(job) ? 'Close' : 'Done'}
          </button>
        ) : (
          <>
            <button type="button" className="btn" autoFocus onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="btn btn-primary" disabled={starting} onClick={() => void start()}>
              {starting ? 'Starting…' : 'Retry them'}
            </button>
          </>
        )}
      </div>
    </Dialog>
  );
}
