// Issues over the HTTP API (issue 29, point 2): GET /api/v1/issues, POST /api/v1/issues/{id}/retry, the
// bulk retry by filter and the jobs' progress, with a real core and UI server on loopback and a real
// receiver that answers 503 and then 200; and each refusal as a 4xx JSON error with a code and a sentence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore;
let ui: UiServer;
let hook: Receiver;

beforeAll(async () => {
  hook = await startReceiver();
  hook.fallback = { status: 503 };
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'crm', enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: `${hook.url}/crm`, headers: {} }], options: { bodyShape: 'full', concurrency: 4 } }],
    },
  });
  core.writeKey = 'wk_web';
  ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
  await ui.listen();
  await post(core, '/v1/batch', { batch: [{ type: 'track', userId: 'u', event: 'Order Completed' }, { type: 'track', userId: 'u', event: 'Signup' }] });
  await until(() => hook.received.length === 2);
  await core.delivery.idle();
}, 30_000);

afterAll(async () => {
  await ui?.close();
  await core?.dispose();
  await hook?.close();
});

async function api(path: string, options: { method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${ui.token}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(`${ui.apiUrl}${path}`, { method: (options.method ?? 'GET') as 'GET', headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
}

async function ended(jobId: number): Promise<Record<string, unknown>> {
  let job: Record<string, unknown> | undefined;
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    job = ((await api('/issues/retries')).json.jobs as Record<string, unknown>[]).find((j) => j.jobId === jobId);
    if (job && job.state !== 'running' && job.state !== 'counting') return job;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`job ${jobId} did not end: ${JSON.stringify(job)}`);
}

describe('Issues over the HTTP API', () => {
  it('lists the groups, retries one with progress until it closes, and retries by filter', async () => {
    const listed = await api('/issues');
    expect(listed).toMatchObject({ status: 200, json: { open: 1, issues: [{ destinationName: 'crm', url: `${hook.url}/crm`, status: 503, errorKind: 'http_5xx', open: 2, retrying: 2, closedAt: null }] } });
    const [issue] = listed.json.issues as { id: number; query: string }[];
    expect((await api('/issues?destination=crm&state=open')).json.issues).toHaveLength(1);
    // Its query is the stream's search: the HTTP API's messages list reads it too.
    expect((await api(`/messages?search=${encodeURIComponent(issue!.query)}`)).json.messages).toHaveLength(2);

    hook.fallback = { status: 200 };
    const started = await api(`/issues/${issue!.id}/retry`, { method: 'POST' });
    expect(started).toMatchObject({ status: 202, json: { issueId: issue!.id, total: 2, state: 'running' } });
    expect(await ended(started.json.jobId)).toMatchObject({ state: 'finished', done: 2, total: 2, retried: 2 });
    await until(() => hook.received.length === 4);
    await core.delivery.idle();
    const closed = await api('/issues?state=closed');
    expect(closed.json).toMatchObject({ open: 0, issues: [{ id: issue!.id, open: 0, closedAt: expect.any(Number) }] });
    expect((await api('/issues')).json).toEqual({ issues: [], open: 0 });

    // A retry by filter finds nothing open now: it counts 0 and finishes.
    const byFilter = await api('/issues/retry', { method: 'POST', body: { search: 'event:"Order Completed"', destination: 'crm' } });
    expect(byFilter).toMatchObject({ status: 202, json: { issueId: null, state: 'counting' } });
    expect(await ended(byFilter.json.jobId)).toMatchObject({ state: 'finished', done: 0, total: 0 });
  });

  it('refuses what it cannot do with a 4xx JSON error that names the fix', async () => {
    expect(await api('/issues?state=stale')).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', message: expect.stringContaining('open, closed, all') } } });
    expect(await api('/issues?destination=nope')).toMatchObject({ status: 404, json: { error: { code: 'not_found', message: expect.stringContaining('"crm"') } } });
    expect(await api('/issues?destinaton=crm')).toMatchObject({ status: 400, json: { error: { code: 'unknown_parameter' } } });
    expect(await api('/issues/abc/retry', { method: 'POST' })).toMatchObject({ status: 404, json: { error: { code: 'not_found', message: expect.stringContaining('whole number') } } });
    expect(await api('/issues/424242/retry', { method: 'POST' })).toMatchObject({ status: 404, json: { error: { code: 'not_found', message: expect.stringContaining('issue 424242') } } });
    expect(await api('/issues/1/retry')).toMatchObject({ status: 405, json: { error: { code: 'method_not_allowed' } } });
    expect(await api('/issues/retry', { method: 'POST', body: { search: 'nope:x' } })).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', message: expect.stringContaining('unknown field') } } });
    expect(await api('/issues/retry', { method: 'POST', body: { serch: 'x' } })).toMatchObject({ status: 400, json: { error: { code: 'invalid_request' } } });
    expect(await api('/issues/retry', { method: 'POST', body: { destination: 'nope' } })).toMatchObject({ status: 404, json: { error: { code: 'not_found' } } });
  });
});
