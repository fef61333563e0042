// Fault injection over the HTTP API (issue 27, point 3): POST, GET and DELETE /api/v1/faults on a real
// core and UI server, as curl would call them, and what bad input gets (a 4xx with a code and a sentence).
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { closedAfterEach } from '../../helpers/api-host.ts';
import { post, startCore, storedMessages, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
let ui: UiServer | undefined;
const closing = closedAfterEach();

async function setup() {
  core = closing.core(await startCore());
  ui = closing.ui(new UiServer({ core, host: '127.0.0.1', port: 0 }));
  await ui.listen();
  return core;
}

async function api(path: string, method = 'GET', body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${ui!.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(`${ui!.apiUrl}${path}`, { method: method as 'GET', headers, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
}

describe('/api/v1/faults', () => {
  it('adds a fault (201), lists it and the requests it faulted, and clears it', async () => {
    const c = await setup();
    const added = await api('/faults', 'POST', { status: 503, times: 1, retryAfter: 2 });
    expect(added).toMatchObject({ status: 201, json: { id: expect.any(Number), status: 503, times: 1, retryAfter: 2, applied: 0 } });
    const refused = await post(c, '/v1/track', { userId: 'u', event: 'E', messageId: 'm-1' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    await api('/faults', 'POST', { drop: true });
    const listed = await api('/faults');
    expect(listed.status).toBe(200);
    expect(listed.json.faults).toEqual([expect.objectContaining({ drop: true, status: null, times: null })]);
    expect(listed.json.faulted).toEqual([expect.objectContaining({ path: '/v1/track', outcome: 'answered', status: 503, faultId: added.json.id })]);
    expect(await api('/faults', 'DELETE')).toEqual({ status: 200, json: { cleared: 1 } });
    expect((await post(c, '/v1/track', { userId: 'u', event: 'E', messageId: 'm-1' })).status).toBe(200);
    expect(storedMessages(c).map((m) => m.messageId)).toEqual(['m-1']);
    expect((await api('/faults')).json.faults).toEqual([]);
  });

  it.each([
    [{ status: 404 }, 'status', /status must be 429, 500 or 503/],
    [{ status: 503, times: -1 }, 'times', /times must be from 1 to 1,000 requests/],
    [{ status: 503, times: 1.5 }, 'times', /times must be a whole number/],
    [{ delayMs: 600_000 }, 'delayMs', /delayMs must be from 1 to 60,000 ms/],
    [{ status: 503, forMs: 86_400_000 }, 'forMs', /forMs must be from 1 to 3,600,000 ms/],
    [{ status: 503, drop: true }, 'drop', /give status or drop, not both/],
    [{}, '(root)', /give status \(429, 500 or 503\), drop: true, or delayMs/],
    [{ drop: true, retryAfter: 5 }, 'retryAfter', /give it with status/],
    [{ drop: false }, 'drop', /drop must be true/],
    [{ status: 503, path: '/health' }, 'path', /path must be one of \/v1\/track/],
    [{ status: 503, statuss: 1 }, '(root)', /statuss/],
  ])('refuses %j with 400 invalid_request naming %s', async (body, field, message) => {
    await setup();
    const answer = await api('/faults', 'POST', body);
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('invalid_request');
    expect(answer.json.error.message).toMatch(message);
    expect(answer.json.error.message).toMatch(new RegExp(`(^|; )${field.replace(/[()]/g, '\\$&')}: `));
    expect((await api('/faults')).json.faults).toEqual([]);
  });

  it('refuses a body that is not JSON, and a 21st active fault (409 too_many_faults, with the fix)', async () => {
    await setup();
    expect(await api('/faults', 'POST', 'status=503')).toMatchObject({ status: 400, json: { error: { code: 'invalid_json', message: expect.stringMatching(/"status": 503/) } } });
    for (let i = 0; i < 20; i++) expect((await api('/faults', 'POST', { status: 503, times: 1 })).status).toBe(201);
    expect(await api('/faults', 'POST', { status: 503, times: 1 })).toMatchObject({
      status: 409,
      json: { error: { code: 'too_many_faults', message: expect.stringMatching(/20 faults are active.*DELETE \/api\/v1\/faults/) } },
    });
    expect((await api('/faults')).json.faults).toHaveLength(20);
  });

  it('needs the token, as every endpoint does', async () => {
    await setup();
    const res = await request(`${ui!.apiUrl}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"status":503}' });
    expect(res.statusCode).toBe(401);
    await res.body.text();
    expect((await api('/faults')).json.faults).toEqual([]);
  });
});
