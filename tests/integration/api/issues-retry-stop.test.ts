// Stopping a bulk retry of Issues: the operation `issues.retryCancel` and `DELETE /api/v1/issues/retries/{jobId}`.
// 1,200 deliveries that failed (a receiver answering 400: final at once) make one group; a retry of it
// is stopped after its first chunk — the core's pause between two chunks is lengthened so that the job
// waits there until it is stopped, whatever the machine's speed. The answer is the job's last progress
// (cancelled, done < total), the chunk written before the stop is sent again, the deliveries of the
// chunks after it are untouched (still failed, one attempt), and a second stop is refused as not
// running. Over HTTP the same, token-protected, with 400 for an id that is not one and 404 for an
// unknown job; a retry by filter stopped while it counts retries nothing. A real core, a real SQLite
// store, a real UI server and receiver on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createHandlers, invoke, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import { RETRY_CHUNK } from '../../../electron/core/delivery/bulk-retry.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import type { IssueRetryProgress } from '../../../shared/channels/issues.ts';
import { callOk } from '../../helpers/contract.ts';
import type { TestCore } from '../../helpers/core.ts';
import { coreWithFailedGroup } from '../../helpers/failed-group.ts';
import type { Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const N = 1200;
let core: TestCore;
let handlers: Handlers;
let ui: UiServer;
let hook: Receiver;
let issueId: number;
const progress: IssueRetryProgress[] = [];

beforeAll(async () => {
  ({ core, hook, issueId } = await coreWithFailedGroup(N, { bulkRetryPauseMs: 600_000 })); // a job waits after each chunk until it is stopped
  handlers = createHandlers(core);
  ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
  await ui.listen();
  core.bus.on('issues.retryProgress', (p) => progress.push(p));
}, 120_000);

afterAll(async () => {
  await ui?.close();
  await core?.dispose();
  await hook?.close();
});

async function api(path: string, options: { method?: string; body?: unknown; token?: string | null } = {}) {
  const headers: Record<string, string> = options.token === null ? {} : { authorization: `Bearer ${options.token ?? ui.token}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(`${ui.apiUrl}${path}`, { method: (options.method ?? 'GET') as 'GET', headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
}

/** The job as the core lists it once it has looked at `done` deliveries (it then waits out its pause). */
function atDone(jobId: number, done: number): Promise<IssueRetryProgress> {
  return until(() => core.bulkRetries.list().find((j) => j.jobId === jobId && j.done === done), 30_000, `job ${jobId} at ${done}`);
}

/** Every delivery of the store (one per message: crm is the only destination), by id. */
function allDeliveries() {
  const found = core.deliveries.byIds(Array.from({ length: 2 * N }, (_, i) => i + 1));
  expect(found).toHaveLength(N);
  return found;
}

describe('stopping a bulk retry', () => {
  it('issues.retryCancel stops it after the chunk under way: the rest stay failed, untouched, and a second stop is refused', async () => {
    hook.fallback = { status: 200 };
    const job = await callOk(handlers, 'issues.retry', { issueId });
    expect(job).toMatchObject({ total: N, state: 'running', done: 0 });
    expect(await atDone(job.jobId, RETRY_CHUNK)).toMatchObject({ state: 'running', retried: RETRY_CHUNK });
    // Waiting between two chunks, it still says how far it is (progress held back by its rate is said when its time is up).
    await until(() => progress.some((p) => p.jobId === job.jobId && p.state === 'running' && p.done === RETRY_CHUNK), 10_000, 'the first chunk announced');

    const stopped = await callOk(handlers, 'issues.retryCancel', { jobId: job.jobId });
    expect(stopped).toEqual({ jobId: job.jobId, issueId, done: RETRY_CHUNK, total: N, retried: RETRY_CHUNK, skipped: 0, state: 'cancelled' });
    // The last progress event says the same: one shape.
    expect(progress.filter((p) => p.jobId === job.jobId).at(-1)).toEqual(stopped);
    expect((await callOk(handlers, 'issues.retries', {})).jobs[0]).toEqual(stopped);

    // The chunk retried before the stop is delivered; nothing after it was touched.
    await until(() => hook.received.length === N + RETRY_CHUNK, 30_000, 'the retried chunk delivered');
    await core.delivery.idle();
    const deliveries = allDeliveries();
    expect(deliveries.slice(0, RETRY_CHUNK).every((d) => d.status === 'delivered' && d.attemptCount === 2)).toBe(true);
    expect(deliveries.slice(RETRY_CHUNK).every((d) => d.status === 'failed' && d.attemptCount === 1)).toBe(true);
    expect(core.issues.get(issueId)).toMatchObject({ failed: N - RETRY_CHUNK, retrying: 0, closedAt: null });

    const again = await invoke(handlers, 'issues.retryCancel', { jobId: job.jobId });
    expect(again).toEqual({ ok: false, error: { code: 'not_running', message: `retry job ${job.jobId} is not running: it already ended (cancelled, ${RETRY_CHUNK} of ${N} looked at), so there is nothing to stop` } });
    expect(await invoke(handlers, 'issues.retryCancel', { jobId: 424_242 })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('no retry job 424242') } });
    for (const jobId of [0, -1, 1.5, '7', null]) {
      expect(await invoke(handlers, 'issues.retryCancel', { jobId }), String(jobId)).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    }
  }, 90_000);

  it('a retry by filter stopped while it counts retries nothing', async () => {
    const failedBefore = core.issues.get(issueId)!.failed;
    const started = await api('/issues/retry', { method: 'POST', body: { search: 'event:Order' } });
    expect(started).toMatchObject({ status: 202, json: { issueId: null, state: 'counting' } });
    const { jobId } = started.json as IssueRetryProgress;
    await until(() => core.bulkRetries.list().find((j) => j.jobId === jobId && j.total > 0), 30_000, 'the first chunk counted');
    const stopped = await api(`/issues/retries/${jobId}`, { method: 'DELETE' });
    expect(stopped).toMatchObject({ status: 200, json: { jobId, state: 'cancelled', done: 0, retried: 0 } });
    expect(stopped.json.total).toBeGreaterThan(0);
    await core.delivery.idle();
    expect(core.issues.get(issueId)).toMatchObject({ failed: failedBefore, retrying: 0 });
  }, 60_000);

  it('DELETE /api/v1/issues/retries/{jobId} stops it and answers its progress; 404 once ended or unknown, 400 for a bad id', async () => {
    const left = N - RETRY_CHUNK;
    const started = await api(`/issues/${issueId}/retry`, { method: 'POST' });
    expect(started).toMatchObject({ status: 202, json: { total: left, state: 'running' } });
    const { jobId } = started.json as IssueRetryProgress;
    await atDone(jobId, RETRY_CHUNK);

    expect((await api(`/issues/retries/${jobId}`, { method: 'DELETE', token: null })).status).toBe(401);
    const stopped = await api(`/issues/retries/${jobId}`, { method: 'DELETE' });
    expect(stopped).toEqual({ status: 200, json: { jobId, issueId, done: RETRY_CHUNK, total: left, retried: RETRY_CHUNK, skipped: 0, state: 'cancelled' } });
    expect((await api('/issues/retries')).json.jobs[0]).toEqual(stopped.json);

    await until(() => hook.received.length === N + 2 * RETRY_CHUNK, 30_000, 'the second retried chunk delivered');
    await core.delivery.idle();
    const deliveries = allDeliveries();
    expect(deliveries.slice(2 * RETRY_CHUNK).every((d) => d.status === 'failed' && d.attemptCount === 1)).toBe(true);
    expect(core.issues.get(issueId)).toMatchObject({ failed: left - RETRY_CHUNK, closedAt: null });

    const again = await api(`/issues/retries/${jobId}`, { method: 'DELETE' });
    expect(again).toMatchObject({ status: 404, json: { error: { code: 'not_running', message: expect.stringContaining(`retry job ${jobId} is not running`) } } });
    expect(await api('/issues/retries/424242', { method: 'DELETE' })).toMatchObject({ status: 404, json: { error: { code: 'not_found', message: expect.stringContaining('GET /api/v1/issues/retries') } } });
    for (const bad of ['abc', '0', '-3', '1.5', '12345678901234567', '9007199254740993', '%20']) {
      const res = await api(`/issues/retries/${bad}`, { method: 'DELETE' });
      expect([res.status, res.json?.error?.code], bad).toEqual([400, 'invalid_request']);
      expect(res.json.error.message.length, bad).toBeGreaterThan(10);
    }
    expect((await api(`/issues/retries/${jobId}?force=1`, { method: 'DELETE' })).json.error.code).toBe('unknown_parameter');
    expect((await api('/issues/retries', { method: 'DELETE' })).status).toBe(405);
  }, 90_000);
});
