/**
 * The bulk retries of Issues (`issues.retry`) as the page knows them, one store per inspector so the
 * Issues view and the stream's "Retry failed…" show the same jobs whichever is on screen. Progress
 * events (`issues.retryProgress`) are queued as they come and applied once per animation frame: each
 * frame's batch updates only the jobs it names (the latest progress of each wins) and the index of the
 * job per group, then the store changes once. A page opened while jobs run reads them (`issues.retries`).
 */
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { IssueRetryProgress, RequestOf } from '../../../../shared/contract.ts';
import { browserFrameHost, requestFrameOrTimeout, type FrameHost } from '../../store/frame.ts';
import type { Inspector } from '../../store/inspector.ts';

export interface RetryJobs {
  /** Every job seen, by id. */
  jobs: ReadonlyMap<number, IssueRetryProgress>;
  /** The latest job of each group (issueId), and of a retry by filter (null). */
  latest: ReadonlyMap<number | null, number>;
}

export const NO_JOBS: RetryJobs = { jobs: new Map(), latest: new Map() };

/**
 * The jobs after a batch of progress: a job's later progress replaces its earlier one (a progress
 * older than the one kept — fewer done, or running after it ended — is left out: events of one job
 * may come out of order across a reconnect's reload); the maps are copied only when something changed.
 */
export function applyProgress(state: RetryJobs, batch: readonly IssueRetryProgress[]): RetryJobs {
  let jobs: Map<number, IssueRetryProgress> | null = null;
  let latest: Map<number | null, number> | null = null;
  for (const progress of batch) {
    const kept = (jobs ?? state.jobs).get(progress.jobId);
    if (kept && older(progress, kept)) continue;
    jobs ??= new Map(state.jobs);
    jobs.set(progress.jobId, progress);
    const current = (latest ?? state.latest).get(progress.issueId);
    if (current === undefined || current < progress.jobId) {
      latest ??= new Map(state.latest);
      latest.set(progress.issueId, progress.jobId);
    }
  }
  return jobs ? { jobs, latest: latest ?? state.latest } : state;
}

/** A job's states in the order it goes through them: counting (a retry by filter), running, then one that ends it. */
function stage(state: IssueRetryProgress['state']): number {
  return state === 'counting' ? 0 : state === 'running' ? 1 : 2;
}

function older(progress: IssueRetryProgress, kept: IssueRetryProgress): boolean {
  const [now, before] = [stage(progress.state), stage(kept.state)];
  return now < before || (now === before && progress.done < kept.done);
}

/** Whether the job still works (counting or retrying). */
export function isActive(progress: IssueRetryProgress): boolean {
  return stage(progress.state) < 2;
}

/** The job shown for a group (or for the search, `null`): its latest. */
export function jobOf(state: RetryJobs, issueId: number | null): IssueRetryProgress | null {
  const id = state.latest.get(issueId);
  return id === undefined ? null : (state.jobs.get(id) ?? null);
}

/** Queues progress and applies it once per frame (`host`: the browser's, or a test's). */
export class ProgressQueue {
  #pending: IssueRetryProgress[] = [];
  #scheduled = false;
  readonly store: StoreApi<RetryJobs>;
  readonly #host: FrameHost;
  constructor(store: StoreApi<RetryJobs>, host: FrameHost = browserFrameHost) {
    this.store = store;
    this.#host = host;
  }

  push(progress: IssueRetryProgress): void {
    this.#pending.push(progress);
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestFrameOrTimeout(() => this.flush(), this.#host);
  }

  flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    const next = applyProgress(this.store.getState(), batch);
    if (next !== this.store.getState()) this.store.setState(next, true);
  }
}

const queues = new WeakMap<Inspector, ProgressQueue>();

/** The inspector's retry jobs: made on first use, fed by its events for its life. */
export function retryQueue(inspector: Inspector): ProgressQueue {
  let queue = queues.get(inspector);
  if (queue) return queue;
  const made = new ProgressQueue(createStore<RetryJobs>()(() => NO_JOBS));
  queue = made;
  queues.set(inspector, made);
  inspector.subscribe((events) => {
    for (const event of events) {
      if (event.type === 'issues.retryProgress') made.push(event.progress);
      else if (event.type === 'store.reset') made.store.setState(NO_JOBS, true);
    }
  });
  void inspector.call('issues.retries', {}).then((result) => {
    if (result.ok) for (const job of result.value.jobs) made.push(job);
  });
  return made;
}

/** A part of the inspector's retry jobs, re-rendering when it changes. */
export function useRetryJobs<T>(inspector: Inspector, pick: (jobs: RetryJobs) => T): T {
  return useStore(retryQueue(inspector).store, pick);
}

/** Starts a retry (a group's, or a filter's) and records its first progress (the answer) at once: the job, or why it was refused. */
export async function startRetry(inspector: Inspector, request: RequestOf<'issues.retry'>): Promise<{ ok: true; job: IssueRetryProgress } | { ok: false; error: string }> {
  const result = await inspector.call('issues.retry', request);
  if (!result.ok) return { ok: false, error: result.error.message };
  retryQueue(inspector).push(result.value);
  return { ok: true, job: result.value };
}
