// A bulk retry of Issues over more deliveries than one chunk (issue 29, point 2): 1,200 deliveries that
// failed (a receiver answering 400: final at once) are retried a chunk at a time, with progress events
// that only move forward and end at the total; a cancel stops a job between two chunks and leaves the
// rest failed in their group; a second retry finishes the rest and the group closes itself. A real core,
// a real SQLite store, a real receiver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import { RETRY_CHUNK } from '../../../electron/core/delivery/bulk-retry.ts';
import type { IssueRetryProgress } from '../../../shared/channels/issues.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const N = 1200;
let core: TestCore;
let handlers: Handlers;
let hook: Receiver;
const progress: IssueRetryProgress[] = [];

beforeAll(async () => {
  hook = await startReceiver();
  hook.fallback = { status: 400, body: 'no' };
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'crm', enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: `${hook.url}/crm`, headers: {} }], options: { bodyShape: 'full', concurrency: 16 } }],
    },
  });
  core.writeKey = 'wk_web';
  handlers = createHandlers(core);
  core.bus.on('issues.retryProgress', (p) => progress.push(p));
  for (let i = 0; i < N; i += 400) {
    await post(core, '/v1/batch', { batch: Array.from({ length: 400 }, (_, j) => ({ type: 'track', userId: 'u', event: 'Order', messageId: `m-${i + j}` })) });
  }
  await until(() => core.issues.get(1)?.failed === N, 60_000, `${N} failed deliveries`);
}, 120_000);

afterAll(async () => {
  await core?.dispose();
  await hook?.close();
});

const ofJob = (jobId: number) => progress.filter((p) => p.jobId === jobId);

describe('a bulk retry of more than a chunk', () => {
  it('stops between chunks when cancelled, leaving the rest in the group', async () => {
    hook.fallback = { status: 200 };
    const job = await callOk(handlers, 'issues.retry', { issueId: 1 });
    expect(job).toMatchObject({ total: N, state: 'running' });
    expect(await callOk(handlers, 'issues.cancelRetry', { jobId: job.jobId })).toEqual({ cancelled: true });
    await until(() => ofJob(job.jobId).some((p) => p.state === 'cancelled'), 10_000, 'the job to stop');
    // The chunk under way when it was cancelled was retried; nothing after it.
    expect(ofJob(job.jobId).at(-1)).toMatchObject({ state: 'cancelled', done: RETRY_CHUNK, retried: RETRY_CHUNK, total: N });
    await until(() => hook.received.length === N + RETRY_CHUNK, 30_000, 'the retried chunk delivered');
    await core.delivery.idle();
    expect(core.issues.get(1)).toMatchObject({ failed: N - RETRY_CHUNK, retrying: 0, closedAt: null });
    expect(await callOk(handlers, 'issues.cancelRetry', { jobId: job.jobId })).toEqual({ cancelled: false });
  }, 60_000);

  it('retries the rest chunk by chunk, its progress only moving forward up to the total, and the group closes', async () => {
    const job = await callOk(handlers, 'issues.retry', { issueId: 1 });
    expect(job.total).toBe(N - RETRY_CHUNK);
    await until(() => ofJob(job.jobId).some((p) => p.state === 'finished'), 30_000, 'the job to finish');
    const events = ofJob(job.jobId);
    for (let i = 1; i < events.length; i++) expect(events[i]!.done).toBeGreaterThanOrEqual(events[i - 1]!.done);
    expect(events.at(-1)).toMatchObject({ state: 'finished', done: N - RETRY_CHUNK, total: N - RETRY_CHUNK, retried: N - RETRY_CHUNK, skipped: 0 });
    await until(() => core.issues.get(1)?.closedAt ?? undefined, 60_000, 'the group to close');
    expect(core.issues.get(1)).toMatchObject({ open: 0, failed: 0, retrying: 0, seen: N });
    expect(hook.received.length).toBe(2 * N);
  }, 90_000);
});
