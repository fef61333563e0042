/**
 * The bulk retries of Issues (`issues.retry`) as the page knows them, one store per inspector so the
 * Issues view and the stream's "Retry failed…" show the same jobs whichever is on screen. Progress
 * events (`issues.retryProgress`) are queued as they come and applied once per animation frame: each
 * frame's batch updates only the jobs it names (the latest progress of each wins) and the index of the
 * job per group, then the store changes once. The jobs under way are read (`issues.retries`) each time
 * the connection opens — a page opened while jobs run shows them, and after a reconnect the jobs it thought
 * under way are replaced by the core's list: a job whose last event was missed (the connection dropped,
 * the relay restarted) does not stay "running" for ever.
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

/**
 * The jobs after reading the core's list (`issues.retries`, `listed`): the jobs that were under way when
 * the list was asked for (`asked`) and that it no longer names are dropped — the core ended them long ago
 * or is another run of the relay, and their last event was missed; the listed ones are applied as progress.
 * A group then shows its latest job still known (or none).
 */
export function replaceActive(state: RetryJobs, listed: readonly IssueRetryProgress[], asked: ReadonlySet<number>): RetryJobs {
  const named = new Set(listed.map((job) => job.jobId));
  const gone = [...asked].filter((jobId) => !named.has(jobId) && state.jobs.has(jobId));
  let next = state;
  if (gone.length > 0) {
    const jobs = new Map(state.jobs);
    for (const jobId of gone) jobs.delete(jobId);
    const latest = new Map<number | null, number>();
    for (const job of jobs.values()) {
      const current = latest.get(job.issueId);
      if (current === undefined || current < job.jobId) latest.set(job.issueId, job.jobId);
    }
    next = { jobs, latest };
  }
  return applyProgress(next, listed);
}

/** The ids of the jobs under way. */
function activeIds(state: RetryJobs): Set<number> {
  return new Set([...state.jobs.values()].filter(isActive).map((job) => job.jobId));
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

  /** The core's list of jobs, read when the jobs under way were `asked` (see replaceActive): the progress queued before it first. */
  replace(listed: readonly IssueRetryProgress[], asked: ReadonlySet<number>): void {
    this.flush();
    const next = replaceActive(this.store.getState(), listed, asked);
    if (next !== this.store.getState()) this.store.setState(next, true);
  }
}

const queues = new WeakMap<Inspector, ProgressQueue>();

/** The inspector's retry jobs: made on first use, fed by its events for its life, read again each time its connection opens. */
export function retryQueue(inspector: Inspector, host: FrameHost = browserFrameHost): ProgressQueue {
  let queue = queues.get(inspector);
  if (queue) return queue;
  const made = new ProgressQueue(createStore<RetryJobs>()(() => NO_JOBS), host);
  queue = made;
  queues.set(inspector, made);
  inspector.subscribe((events) => {
    for (const event of events) {
      if (event.type === 'issues.retryProgress') made.push(event.progress);
      else if (event.type === 'store.reset') made.store.setState(NO_JOBS, true);
    }
  });
  const read = () => {
    const asked = activeIds(made.store.getState());
    void inspector.call('issues.retries', {}).then((result) => {
      if (result.ok) made.replace(result.value.jobs, asked);
    });
  };
  inspector.store.subscribe((state, before) => {
    if (state.connection.kind === 'open' && before.connection.kind !== 'open') read();
  });
  if (inspector.store.getState().connection.kind === 'open') read();
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

/** Stops a job under way (`issues.retryCancel`: between two chunks) and records its last progress (the answer) at once; or why it could not be stopped. */
export async function stopRetry(inspector: Inspector, jobId: number): Promise<{ ok: true; job: IssueRetryProgress } | { ok: false; error: string }> {
  const result = await inspector.call('issues.retryCancel', { jobId });
  if (!result.ok) return { ok: false, error: result.error.message };
  retryQueue(inspector).push(result.value);
  return { ok: true, job: result.value };
}
