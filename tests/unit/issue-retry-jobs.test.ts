// The Issues view's bulk retries as the page keeps them (renderer/src/views/issues/retry-jobs.ts):
// progress events queued and applied once per frame — a frame's batch changes the store once, the
// latest progress of each job wins, an older one arriving late is left out — and the words the rows
// and the dialog say (issue-words.ts); the jobs under way read again from the core each time the
// connection opens, replacing those the page thought under way. Driven with a scripted browser host.
import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import type { CoreEvent, IssueRetryProgress, IssueView } from '../../shared/contract.ts';
import type { FrameHost } from '../../renderer/src/store/frame.ts';
import { initialState, type Inspector, type InspectorState } from '../../renderer/src/store/inspector.ts';
import { applyProgress, jobOf, NO_JOBS, ProgressQueue, retryQueue, type RetryJobs } from '../../renderer/src/views/issues/retry-jobs.ts';
import { countWords, progressFraction, progressWords } from '../../renderer/src/views/issues/issue-words.ts';

function scriptedHost() {
  const frames: (() => void)[] = [];
  const host: FrameHost = {
    hidden: () => false,
    requestAnimationFrame: (callback) => void frames.push(callback),
    setTimeout: () => 0,
    clearTimeout: () => {},
  };
  return { host, frames };
}

const progress = (jobId: number, issueId: number | null, done: number, total: number, state: IssueRetryProgress['state'] = 'running'): IssueRetryProgress => ({
  jobId,
  issueId,
  done,
  total,
  retried: done,
  skipped: 0,
  state,
});

describe('retry progress, once per frame', () => {
  it('queues the events of a frame and applies them together: one store change, the latest progress of each job', () => {
    const { host, frames } = scriptedHost();
    const store = createStore<RetryJobs>()(() => NO_JOBS);
    let changes = 0;
    store.subscribe(() => changes++);
    const queue = new ProgressQueue(store, host);
    queue.push(progress(1, 7, 10, 300));
    queue.push(progress(1, 7, 20, 300));
    queue.push(progress(2, null, 5, 5, 'finished'));
    queue.push(progress(1, 7, 30, 300));
    expect(frames).toHaveLength(1); // one frame asked for, however many events
    expect(changes).toBe(0);
    frames.shift()!();
    expect(changes).toBe(1);
    expect(jobOf(store.getState(), 7)).toEqual(progress(1, 7, 30, 300));
    expect(jobOf(store.getState(), null)?.state).toBe('finished');
    expect(jobOf(store.getState(), 8)).toBeNull();

    // The next event asks for the next frame.
    queue.push(progress(1, 7, 300, 300, 'finished'));
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(changes).toBe(2);
    expect(jobOf(store.getState(), 7)?.state).toBe('finished');
  });

  it('leaves out a progress older than the one kept, and changes nothing then', () => {
    const kept = applyProgress(NO_JOBS, [progress(3, 1, 50, 100), progress(3, 1, 100, 100, 'finished')]);
    expect(applyProgress(kept, [progress(3, 1, 60, 100)])).toBe(kept); // running after it finished
    expect(applyProgress(kept, [progress(3, 1, 100, 100, 'finished')]).jobs.get(3)?.state).toBe('finished');
    const running = applyProgress(NO_JOBS, [progress(4, 2, 50, 100)]);
    expect(applyProgress(running, [progress(4, 2, 40, 100)])).toBe(running);
    expect(applyProgress(running, [progress(4, 2, 0, 100, 'counting')])).toBe(running); // counting comes before running
    expect(applyProgress(NO_JOBS, [progress(8, null, 0, 40, 'counting'), progress(8, null, 0, 90, 'counting')]).jobs.get(8)?.total).toBe(90);
  });

  it('shows a group its latest job: a second retry of the group replaces the first', () => {
    const state = applyProgress(NO_JOBS, [progress(5, 9, 3, 3, 'finished'), progress(6, 9, 0, 4)]);
    expect(jobOf(state, 9)?.jobId).toBe(6);
    // Only the job an event names is replaced; the maps of a batch that changed nothing are the same.
    const other = applyProgress(state, [progress(7, 10, 1, 2)]);
    expect(other.jobs.get(5)).toBe(state.jobs.get(5));
  });
});

/** The part of an inspector the retry jobs use: its connection, its events, and `issues.retries` answered when the test says. */
function scriptedInspector() {
  const store = createStore<InspectorState>()(() => initialState());
  const listeners: ((events: CoreEvent[]) => void)[] = [];
  const asked: ((jobs: IssueRetryProgress[]) => void)[] = [];
  const inspector = {
    store,
    subscribe: (listener: (events: CoreEvent[]) => void) => (listeners.push(listener), () => {}),
    call: (channel: string) => {
      if (channel !== 'issues.retries') throw new Error(`unexpected call ${channel}`);
      return new Promise((resolve) => asked.push((jobs) => resolve({ ok: true, value: { jobs } })));
    },
  } as unknown as Inspector;
  return {
    inspector,
    asked,
    connect: () => store.setState({ connection: { kind: 'open' } }),
    drop: () => store.setState({ connection: { kind: 'reconnecting', retryAt: 0, attempt: 1, reason: 'closed' } }),
    emit: (...events: IssueRetryProgress[]) => listeners.forEach((l) => l(events.map((p) => ({ type: 'issues.retryProgress', progress: p }) as CoreEvent))),
  };
}

describe('retry jobs across reconnects', () => {
  it('reads the jobs again each time the connection opens, and drops a job under way the core no longer names', async () => {
    const { host, frames } = scriptedHost();
    const relay = scriptedInspector();
    relay.connect();
    const queue = retryQueue(relay.inspector, host);
    const answer = async (jobs: IssueRetryProgress[]) => {
      expect(relay.asked.length).toBeGreaterThan(0);
      for (const respond of relay.asked.splice(0)) respond(jobs);
      await new Promise((r) => setTimeout(r, 0));
    };
    await answer([progress(1001, 7, 0, 10)]);
    expect(jobOf(queue.store.getState(), 7)).toMatchObject({ jobId: 1001, state: 'running' });
    relay.emit(progress(1001, 7, 5, 10), progress(1002, 8, 1, 4));
    frames.splice(0).forEach((f) => f());
    expect(jobOf(queue.store.getState(), 7)?.done).toBe(5);

    // The connection drops: job 1001's end is missed, 1002's is not (listed among the ended); the relay
    // starts job 1003 after the list was asked for, its first event comes before the answer.
    relay.drop();
    relay.connect();
    relay.emit(progress(1003, 9, 0, 2));
    await answer([progress(1002, 8, 4, 4, 'finished')]);
    expect(jobOf(queue.store.getState(), 7)).toBeNull(); // not "running" for ever: the row's Retry all is enabled again
    expect(jobOf(queue.store.getState(), 8)?.state).toBe('finished');
    expect(jobOf(queue.store.getState(), 9)?.state).toBe('running');

    // A relay that restarted: its jobs are new ones (their ids unique per core), the page shows them.
    relay.drop();
    relay.connect();
    await answer([progress(5001, 7, 0, 3)]);
    expect(jobOf(queue.store.getState(), 7)).toMatchObject({ jobId: 5001, state: 'running' });
    expect(jobOf(queue.store.getState(), 9)).toBeNull();
  });
});

describe('issue words', () => {
  it('says a retry’s progress and its bar’s fraction', () => {
    expect(progressWords(progress(1, 1, 120, 500))).toBe('Retrying: 120 of 500 deliveries looked at, 120 sent again.');
    expect(progressWords({ ...progress(1, 1, 3, 3, 'finished'), retried: 2, skipped: 1 })).toBe(
      'Retried 3 deliveries: 2 sent again, 1 no longer failing or replayed since. Their outcome shows as they are sent.',
    );
    expect(progressWords(progress(1, null, 0, 0, 'finished'))).toBe('Nothing to retry: no failed or retrying delivery.');
    expect(progressWords(progress(1, null, 0, 1200, 'counting'))).toBe('Counting the deliveries to retry: 1,200 so far.');
    expect(progressWords({ ...progress(1, 1, 2, 9, 'failed'), error: 'the store is read-only' })).toBe('The retry failed after 2 of 9: the store is read-only.');
    expect(progressFraction(progress(1, 1, 50, 200))).toBe(0.25);
    expect(progressFraction(progress(1, 1, 0, 0, 'finished'))).toBe(1);
  });

  it('says a group’s counts: failed and retrying while open, closed once none is', () => {
    const issue = { open: 5, failed: 3, retrying: 2, seen: 12 } as IssueView;
    expect(countWords(issue)).toBe('3 failed · 2 retrying · 12 seen');
    expect(countWords({ ...issue, open: 0, failed: 0, retrying: 0 })).toBe('closed · 12 seen');
    expect(countWords({ ...issue, retrying: 0, open: 3, seen: 1 })).toBe('3 failed · 1 seen');
  });
});
