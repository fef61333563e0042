// A bulk retry of Issues over more deliveries than one chunk (issue 29, point 2): 1,200 deliveries that
// failed (a receiver answering 400: final at once) are retried a chunk at a time, with progress events
// that only move forward and end at the total; a cancel stops a job between two chunks and leaves the
// rest failed in their group; a second retry finishes the rest and the group closes itself; a reset
// cancels a job under way, and gives no group an id used before it. A core closing ends its jobs under
// way with a last `cancelled` event, and a relay started again hands out job ids none of the first
// one's (a page keeps the jobs it saw by id). A real core, a real SQLite store, a real receiver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, invoke, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import { RETRY_CHUNK } from '../../../electron/core/delivery/bulk-retry.ts';
import type { IssueRetryProgress } from '../../../shared/channels/issues.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { coreWithFailedGroup } from '../../helpers/failed-group.ts';
import type { Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const N = 1200;
let core: TestCore;
let handlers: Handlers;
let hook: Receiver;
const progress: IssueRetryProgress[] = [];

beforeAll(async () => {
  ({ core, hook } = await coreWithFailedGroup(N));
  handlers = createHandlers(core);
  core.bus.on('issues.retryProgress', (p) => progress.push(p));
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
    // Answered once the job has ended: the chunk under way when it was cancelled was retried; nothing after it.
    const stopped = await callOk(handlers, 'issues.retryCancel', { jobId: job.jobId });
    expect(stopped).toMatchObject({ jobId: job.jobId, state: 'cancelled', done: RETRY_CHUNK, retried: RETRY_CHUNK, total: N });
    expect(ofJob(job.jobId).at(-1)).toEqual(stopped);
    await until(() => hook.received.length === N + RETRY_CHUNK, 30_000, 'the retried chunk delivered');
    await core.delivery.idle();
    expect(core.issues.get(1)).toMatchObject({ failed: N - RETRY_CHUNK, retrying: 0, closedAt: null });
    expect(await invoke(handlers, 'issues.retryCancel', { jobId: job.jobId })).toMatchObject({ ok: false, error: { code: 'not_running' } });
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

  it('is cancelled by a reset, and a group made after the reset never takes an id of one before it', async () => {
    hook.fallback = { status: 400, body: 'no' };
    for (let i = 0; i < N; i += 400) {
      await post(core, '/v1/batch', { batch: Array.from({ length: 400 }, (_, j) => ({ type: 'track', userId: 'u', event: 'Order', messageId: `again-${i + j}` })) });
    }
    await until(() => core.issues.get(1)?.failed === N, 60_000, `${N} failed deliveries again`);
    const job = await callOk(handlers, 'issues.retry', { issueId: 1 });
    expect(job).toMatchObject({ total: N, state: 'running' });
    await callOk(handlers, 'storage.reset', {});
    // Ended before the reset forgot the group, between two chunks: the chunks written, not the rest.
    const last = ofJob(job.jobId).at(-1)!;
    expect(last.state).toBe('cancelled');
    expect(last.done % RETRY_CHUNK).toBe(0);
    expect(last.done).toBeLessThan(N);
    expect((await callOk(handlers, 'issues.retries', {})).jobs[0]).toMatchObject({ jobId: job.jobId, state: 'cancelled' });
    expect(await callOk(handlers, 'issues.list', { state: 'all' })).toEqual({ issues: [], open: 0 });

    // A new failure after the reset makes a new group: not group 1, which an inspector's issue:1 search
    // (or a retry of group 1 from before) must not find.
    await post(core, '/v1/track', { userId: 'u', event: 'Order', messageId: 'after-reset' });
    await until(() => (core.issues.list('open', undefined).issues[0]?.failed ?? 0) === 1, 10_000, 'the failure after the reset');
    const [group] = core.issues.list('open', undefined).issues;
    expect(group!.id).toBeGreaterThan(1);
    expect(core.issues.get(1)).toBeNull();
    expect((await callOk(handlers, 'messages.list', { search: 'issue:1', limit: 10 })).messages).toEqual([]);
    expect((await callOk(handlers, 'messages.list', { search: group!.query, limit: 10 })).messages.map((m) => m.messageId)).toEqual(['after-reset']);
  }, 120_000);

  it('a relay that closes says its jobs under way are cancelled, and started again counts its job ids above the old one’s', async () => {
    hook.fallback = { status: 400, body: 'no' };
    await post(core, '/v1/batch', { batch: [{ type: 'track', userId: 'u', event: 'Order', messageId: 'm-last' }] });
    const group = await until(() => core.issues.list('open', undefined).issues.find((i) => i.failed >= 1), 10_000, 'an open group');
    const before = progress.map((p) => p.jobId);

    const job = core.bulkRetries.start({ issueId: group.id, total: group.open }); // its chunk's write is under way
    const closed = core.close();
    expect(ofJob(job.jobId).at(-1)).toMatchObject({ state: 'cancelled', issueId: group.id });
    await closed;

    const again = await startCore({ dataDir: core.dataDir });
    try {
      const next = again.bulkRetries.start({ issueId: 999_999, total: 0 }); // no such group: it ends at once
      expect(next.jobId).toBeGreaterThan(Math.max(job.jobId, ...before));
    } finally {
      await again.close();
    }
  }, 30_000);
});
