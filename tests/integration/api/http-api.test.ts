// The HTTP API (/api/v1 on the inspector's port; issue 15, point 2): the test queries for other stacks.
// A real core and UI server on loopback, plain HTTP requests as curl would make them.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createHandlers } from '../../../electron/core/api/contract-handlers.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { callOk } from '../../helpers/contract.ts';
import { closedAfterEach } from '../../helpers/api-host.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';

const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
let ui: UiServer | undefined;
const closing = closedAfterEach();

async function setup() {
  core = closing.core(await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }, { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' }], destinations: [] } }));
  core.writeKey = 'wk_web';
  ui = closing.ui(new UiServer({ core, host: '127.0.0.1', port: 0 }));
  await ui.listen();
  return { core, ui };
}

async function api(path: string, options: { method?: string; body?: unknown; token?: string | null; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? ui!.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(`${ui!.apiUrl}${path}`, { method: (options.method ?? 'GET') as 'GET', headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** A raw request with a Host header of our choosing (DNS rebinding: a name that resolves to 127.0.0.1). */
function rawRequest(port: number, lines: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(`${lines.join('\r\n')}\r\n\r\n`));
    let out = '';
    socket.on('data', (chunk) => (out += chunk));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('HTTP API guards', () => {
  it('refuses no token, a wrong token, a foreign Origin and a rebinding Host — each with a JSON code and a sentence', async () => {
    await setup();
    expect(await api('/messages', { token: null })).toMatchObject({ status: 401, json: { error: { code: 'unauthorized', message: expect.stringMatching(/Authorization: Bearer/) } } });
    expect(await api('/messages', { token: 'x'.repeat(32) })).toMatchObject({ status: 401, json: { error: { code: 'unauthorized' } } });
    expect(await api('/messages', { headers: { origin: 'https://evil.example' } })).toMatchObject({ status: 403, json: { error: { code: 'forbidden_origin' } } });
    const port = new URL(ui!.apiUrl).port;
    const rebound = await rawRequest(Number(port), [`GET /api/v1/messages HTTP/1.1`, `Host: attacker.example:${port}`, `Authorization: Bearer ${ui!.token}`, 'Connection: close']);
    expect(rebound).toMatch(/^HTTP\/1\.1 403/);
    const ok = await api('/messages');
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBeUndefined();
    expect(await api('/nothing')).toMatchObject({ status: 404, json: { error: { code: 'not_found' } } });
    expect(await api('/reset')).toMatchObject({ status: 405, json: { error: { code: 'method_not_allowed' } } });
  });
});

describe('HTTP API queries', () => {
  it('lists messages oldest first with filters and paging; one message with its deliveries; stats', async () => {
    const { core: c } = await setup();
    for (let i = 0; i < 5; i++) await post(c, '/v1/track', { userId: `u_${i % 2}`, event: i < 3 ? 'Clicked' : 'Viewed', messageId: `m-${i}`, properties: { i } });
    await post({ ingestUrl: c.ingestUrl, writeKey: 'wk_ios' }, '/v1/identify', { userId: 'u_9', messageId: 'id-1', traits: { plan: 'pro' } });
    await post(c, '/v1/track', { userId: 'u_1', event: 7, messageId: 'bad' });

    const all = await api('/messages');
    expect(all.json.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['m-0', 'm-1', 'm-2', 'm-3', 'm-4', 'id-1', 'bad']);
    expect(all.json.next).toBeNull();
    const clicked = await api('/messages?event=Clicked&userId=u_0');
    expect(clicked.json.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['m-0', 'm-2']);
    expect((await api('/messages?source=ios')).json.messages).toEqual([expect.objectContaining({ messageId: 'id-1', type: 'identify', source: 'ios', status: 'accepted', traits: { plan: 'pro' } })]);
    expect((await api('/messages?status=rejected')).json.messages).toEqual([expect.objectContaining({ messageId: 'bad', rejection: { code: expect.any(String), reason: expect.stringMatching(/event/) } })]);

    const first = await api('/messages?limit=2');
    expect(first.json.messages).toHaveLength(2);
    const second = await api(`/messages?limit=2&after=${first.json.next}`);
    expect(second.json.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['m-2', 'm-3']);
    expect((await api('/messages?limit=0')).json.error.code).toBe('invalid_request');
    expect((await api('/messages?status=fine')).json.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/status must be one of/) });

    const one = await api('/messages/m-3');
    expect(one.json).toMatchObject({ message: { messageId: 'm-3', event: 'Viewed', properties: { i: 3 } }, deliveries: [] });
    expect(await api('/messages/nope')).toMatchObject({ status: 404, json: { error: { code: 'not_found' } } });
    expect((await api('/stats')).json).toMatchObject({ messages: { accepted: 6, rejected: 1 }, types: { track: 6, identify: 1 } });
  });

  it('waits: a message arriving after the request resolves it; a timeout is 408 with what was asked and the closest messages', async () => {
    const { core: c } = await setup();
    const waiting = api('/messages/wait', { method: 'POST', body: { filter: { event: 'Order Completed', properties: { total: 42 } }, count: 1, timeoutMs: 5_000 } });
    await new Promise((r) => setTimeout(r, 100));
    await post(c, '/v1/track', { userId: 'u', event: 'Order Completed', messageId: 'o-1', properties: { total: 42, currency: 'EUR' } });
    const done = await waiting;
    expect(done).toMatchObject({ status: 200, json: { messages: [{ messageId: 'o-1', properties: { total: 42, currency: 'EUR' } }] } });

    const late = await api('/messages/wait', { method: 'POST', body: { filter: { event: 'Order Completed', properties: { total: 40 } }, timeoutMs: 150 } });
    expect(late.status).toBe(408);
    expect(late.json.error.code).toBe('timeout');
    expect(late.json.error.message).toMatch(/waited 150 ms for 1 accepted message matching .*Closest:\n {2}- track "Order Completed" of "u" \(accepted, o-1\): properties.total: wanted 40, got 42/s);
    expect(late.json.matched).toEqual([]);
    expect((await api('/messages/wait', { method: 'POST', body: { filter: { evnt: 'x' } } })).json.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/unknown filter field "evnt"/) });
    // afterSequence: only messages stored after that one count (o-1 is before it: the next one resolves it).
    const after = api('/messages/wait', { method: 'POST', body: { filter: { event: 'Order Completed' }, afterSequence: done.json.messages[0].sequence, timeoutMs: 5_000 } });
    await new Promise((r) => setTimeout(r, 100));
    await post(c, '/v1/track', { userId: 'u', event: 'Order Completed', messageId: 'o-2', properties: { total: 1 } });
    expect((await after).json.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['o-2']);
    expect((await api('/messages/wait', { method: 'POST', body: { filter: {}, afterSequence: 'x' } })).json.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/afterSequence must be a message's sequence/),
    });
    const broken = await request(`${ui!.apiUrl}/messages/wait`, { method: 'POST', headers: { authorization: `Bearer ${ui!.token}` }, body: '{not json' });
    expect(broken.statusCode).toBe(400);
    expect((await broken.body.json()) as object).toMatchObject({ error: { code: 'invalid_json' } });
  });

  it('lists deliveries with their attempts, filtered by destination, status and the message', async () => {
    const r = await receiver();
    core = closing.core(await startCore({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: `${r.url}/in`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
      },
    }));
    core.writeKey = 'wk_web';
    ui = closing.ui(new UiServer({ core, host: '127.0.0.1', port: 0 }));
    await ui.listen();
    await post(core, '/v1/track', { userId: 'u', event: 'Shipped', messageId: 's-1' });
    await post(core, '/v1/track', { userId: 'u', event: 'Other', messageId: 'o-1' });
    await r.waitFor(2);
    const c = core;
    await new Promise<void>((resolve) => {
      const check = () => (c.deliveries.countByStatus().delivered === 2 ? resolve() : setTimeout(check, 20));
      check();
    });
    const shipped = await api('/deliveries?destination=hooks&status=delivered&event=Shipped');
    expect(shipped.json.deliveries).toEqual([
      expect.objectContaining({ destination: 'hooks', status: 'delivered', attemptCount: 1, message: expect.objectContaining({ messageId: 's-1' }), attempts: [expect.objectContaining({ url: `${r.url}/in`, status: 200, outcome: 'success' })] }),
    ]);
    expect(shipped.json.next).toBeNull();
    expect((await api('/deliveries?destination=elsewhere')).json.deliveries).toEqual([]);
    expect((await api('/deliveries?limit=1')).json).toMatchObject({ deliveries: [expect.objectContaining({ message: expect.objectContaining({ messageId: 's-1' }) })], next: expect.stringMatching(/^0:\d+$/) });
    expect(await api('/deliveries?status=sucess')).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', message: expect.stringMatching(/status must be one of pending, retrying, delivered/) } } });
    expect((await api('/messages/s-1')).json.deliveries).toEqual([expect.objectContaining({ status: 'delivered' })]);
  });

  it('reset forgets the messages; a cursor from before it is refused, not silently skipping the new rows', async () => {
    const { core: c } = await setup();
    for (const event of ['A', 'B', 'C']) await post(c, '/v1/track', { userId: 'u', event });
    const first = await api('/messages?limit=2');
    expect(first.json.next).toBe(`0:${c.messages.list()[1]!.id}`);
    expect(await api('/reset', { method: 'POST' })).toMatchObject({ status: 200, json: { messages: 3 } });
    expect((await api('/messages')).json.messages).toEqual([]);
    for (const event of ['D', 'E', 'F']) await post(c, '/v1/track', { userId: 'u', event });
    expect(await api(`/messages?after=${first.json.next}`)).toMatchObject({ status: 409, json: { error: { code: 'stale_cursor' } } });
    expect((await api('/messages')).json.messages.map((m: { event: string }) => m.event)).toEqual(['D', 'E', 'F']);
    expect((await api('/messages/%E0')).status).toBe(400);
    expect((await api('/messages/wait')).status).toBe(405);
    expect((await api('/messages', { headers: { authorization: `bearer ${ui!.token}` } })).status).toBe(200); // the scheme's case does not matter
  });

  it('afterSequence lists the messages stored after one of them, by its sequence; it refuses junk and a cursor beside it', async () => {
    const { core: c } = await setup();
    for (const event of ['A', 'B', 'C', 'D']) await post(c, '/v1/track', { userId: 'u', event });
    const all = (await api('/messages')).json.messages as { event: string; sequence: number }[];
    expect(all.map((m) => m.event)).toEqual(['A', 'B', 'C', 'D']);
    const afterB = await api(`/messages?afterSequence=${all[1]!.sequence}&limit=1`);
    expect(afterB.json.messages.map((m: { event: string }) => m.event)).toEqual(['C']);
    // Its next page goes on by the cursor, as any page's does.
    expect((await api(`/messages?after=${afterB.json.next}`)).json.messages.map((m: { event: string }) => m.event)).toEqual(['D']);
    expect((await api(`/messages?afterSequence=${all[1]!.sequence}&event=D`)).json.messages.map((m: { event: string }) => m.event)).toEqual(['D']);
    expect((await api(`/messages?afterSequence=${all[3]!.sequence}`)).json).toEqual({ messages: [], next: null });
    expect(await api('/messages?afterSequence=1.5')).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', message: expect.stringMatching(/afterSequence must be a message's "sequence"/) } } });
    expect(await api(`/messages?afterSequence=1&after=${afterB.json.next}`)).toMatchObject({ status: 400, json: { error: { message: expect.stringMatching(/not both/) } } });
    expect((await api('/deliveries?afterSequence=1')).status).toBe(400); // deliveries have no sequence of their own
  });

  it('order=newest lists newest first, as the inspector does, and its next page reads on to older ones; a filter and a search too', async () => {
    const { core: c } = await setup();
    // Sent one after the other: their stored order is the order sent.
    for (const event of ['A', 'B', 'C', 'D', 'E']) await post(c, '/v1/track', { userId: event === 'C' ? 'other' : 'u-order', event, properties: { step: event } });
    const events = (page: { json: { messages: { event: string }[] } }) => page.json.messages.map((m) => m.event);
    const first = await api('/messages?order=newest&limit=2');
    expect(events(first)).toEqual(['E', 'D']);
    const second = await api(`/messages?order=newest&limit=2&after=${first.json.next}`);
    expect(events(second)).toEqual(['C', 'B']);
    const last = await api(`/messages?order=newest&limit=2&after=${second.json.next}`);
    expect(last.json).toMatchObject({ next: null });
    expect(events(last)).toEqual(['A']);
    // The sequence says the stored order: falling down the pages.
    const sequences = [first, second, last].flatMap((page) => page.json.messages.map((m: { sequence: number }) => m.sequence));
    expect(sequences).toEqual([...sequences].sort((a, b) => b - a));
    // Filtered, and searched (through the search indexes where they cover the messages): the matches only, newest first.
    expect(events(await api('/messages?order=newest&userId=u-order&limit=3'))).toEqual(['E', 'D', 'B']);
    const searched = await api('/messages?order=newest&search=userId:u-order%20-event:E&limit=2');
    expect(events(searched)).toEqual(['D', 'B']);
    expect(events(await api(`/messages?order=newest&search=userId:u-order%20-event:E&limit=2&after=${searched.json.next}`))).toEqual(['A']);
    // The default stays oldest first.
    expect(events(await api('/messages?order=oldest&limit=2'))).toEqual(['A', 'B']);
    expect(events(await api('/messages?limit=2'))).toEqual(['A', 'B']);
    expect(await api('/messages?order=latest')).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', message: expect.stringMatching(/order must be "oldest" \(the default\) or "newest"/) } } });
    expect(await api('/messages?order=newest&afterSequence=1')).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', message: expect.stringMatching(/afterSequence reads on towards the newer messages/) } } });
    expect((await api('/deliveries?order=newest')).json).toMatchObject({ error: { code: 'unknown_parameter' } });
    // A cursor says the order it was made in: given back in the other one it would read on the wrong way.
    expect(first.json.next).toMatch(/^\d+:\d+:newest$/);
    const oldestFirst = await api('/messages?limit=2');
    expect(oldestFirst.json.next).toMatch(/^\d+:\d+$/);
    expect(await api(`/messages?limit=2&after=${first.json.next}`)).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', message: expect.stringMatching(/listed newest first: give it with order=newest/) } } });
    expect(await api(`/messages?order=newest&limit=2&after=${oldestFirst.json.next}`)).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', message: expect.stringMatching(/listed oldest first: give it without order=newest/) } } });
    expect(await api(`/deliveries?limit=1&after=${first.json.next}`)).toMatchObject({ status: 400, json: { error: { code: 'invalid_request' } } });
    expect(events(await api(`/messages?limit=2&after=${oldestFirst.json.next}`))).toEqual(['C', 'D']);
  });

  it('each message says whether it is pinned, as the inspector pinned it: listed, looked up, waited for, searched', async () => {
    const { core: c } = await setup();
    for (const messageId of ['p-1', 'p-2']) await post(c, '/v1/track', { userId: 'u', event: 'Pinned?', messageId });
    const before = (await api('/messages')).json.messages as { messageId: string; pinned: boolean; sequence: number }[];
    expect(before.map((m) => [m.messageId, m.pinned])).toEqual([['p-1', false], ['p-2', false]]);
    expect((await api('/messages/p-2')).json.message.pinned).toBe(false);

    const handlers = createHandlers(c);
    await callOk(handlers, 'messages.pin', { ids: [before[1]!.sequence], pinned: true });
    // Asked again after the pin: the answer is not the one converted before it.
    expect((await api('/messages')).json.messages.map((m: { pinned: boolean }) => m.pinned)).toEqual([false, true]);
    expect((await api('/messages/p-2')).json.message.pinned).toBe(true);
    expect((await api('/messages?search=pinned:true')).json.messages.map((m: { messageId: string; pinned: boolean }) => [m.messageId, m.pinned])).toEqual([['p-2', true]]);
    expect((await api('/messages/wait', { method: 'POST', body: { filter: { messageId: 'p-2' } } })).json.messages[0].pinned).toBe(true);

    await callOk(handlers, 'messages.pin', { ids: [before[1]!.sequence], pinned: false });
    expect((await api('/messages/p-2')).json.message.pinned).toBe(false);
    // The OpenAPI document's Message names it among the fields every message has.
    const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/http-api.openapi.json'), 'utf8'));
    const message = doc.components.schemas.Message as { required: string[]; properties: Record<string, { type: string }> };
    expect(message.required).toContain('pinned');
    expect(message.properties.pinned!.type).toBe('boolean');
    for (const field of message.required) expect((await api('/messages/p-1')).json.message).toHaveProperty(field);
  });

  it('stopping ends a pending wait at once (503), instead of holding the shutdown for the wait\'s time', async () => {
    await setup();
    const waiting = api('/messages/wait', { method: 'POST', body: { filter: { event: 'Never' }, timeoutMs: 60_000 } });
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await ui!.close();
    expect(Date.now() - started).toBeLessThan(5_000); // not the 60 s the wait asked for
    expect(await waiting).toMatchObject({ status: 503, json: { error: { code: 'shutting_down' } } });
    ui = undefined;
  });
});

describe('the OpenAPI document (docs/http-api.openapi.json, shipped in the package)', () => {
  const doc = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../docs/http-api.openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: { 'application/json': { schema: { required?: string[] } } } }> }>>;
  };

  it('documents every endpoint the server answers, with the status and the top-level fields it answers', async () => {
    const { core: c } = await setup();
    await post(c, '/v1/track', { userId: 'u', event: 'Documented', messageId: 'doc-1' });
    await api('/messages/wait', { method: 'POST', body: { filter: { event: 'Documented' } } });
    const calls: [string, string, unknown?][] = [];
    for (const [route, methods] of Object.entries(doc.paths)) for (const method of Object.keys(methods)) calls.push([route, method]);
    expect(calls.map(([route, method]) => `${method.toUpperCase()} ${route}`).sort()).toEqual(
      ['DELETE /faults', 'DELETE /issues/retries/{jobId}', 'GET /deliveries', 'GET /export', 'GET /faults', 'GET /info', 'GET /issues', 'GET /issues/retries', 'GET /messages', 'GET /messages/by-id/{messageId}', 'GET /messages/stream', 'GET /messages/{messageId}', 'GET /overview', 'GET /plans', 'GET /plans/coverage', 'GET /stats', 'POST /deliveries/wait', 'POST /faults', 'POST /issues/retry', 'POST /issues/{issueId}/retry', 'POST /messages/wait', 'POST /plans/check', 'POST /replay', 'POST /reset', 'POST /transforms/try'],
    );
    const bodies: Record<string, unknown> = { '/messages/wait': { filter: { event: 'Documented' }, timeoutMs: 1000 }, '/deliveries/wait': { filter: { event: 'Documented' }, status: 'delivered', timeoutMs: 100 }, '/faults': { status: 503, times: 1 }, '/transforms/try': { messageId: 'doc-1', destination: 'none' }, '/issues/retry': { search: 'event:Documented' }, '/plans/check': { message: { type: 'track', event: 'Documented' } }, '/replay': { messageIds: ['doc-1'], dryRun: true } };
    for (const [route, method] of calls) {
      if (route === '/reset') continue; // last: it forgets what the others read
      if (route === '/messages/stream') {
        // Open until Sluice stops: its status and type, then hang up (tests/integration/cli/tail.test.ts reads it).
        const res = await request(`${ui!.apiUrl}${route}`, { headers: { authorization: `Bearer ${ui!.token}` } });
        expect(Object.keys(doc.paths[route]![method]!.responses)).toContain(String(res.statusCode));
        expect(Object.keys((doc.paths[route]![method]!.responses['200'] as { content: object }).content)).toEqual([res.headers['content-type']!.toString().split(';')[0]]);
        res.body.destroy();
        continue;
      }
      const res = await api(route.replace('{messageId}', 'doc-1').replace('{issueId}', '1').replace('{jobId}', '1'), { method: method.toUpperCase(), ...(method === 'post' ? { body: bodies[route] } : {}) });
      const documented = doc.paths[route]![method]!.responses[String(res.status)];
      expect(documented, `${method} ${route} answered ${res.status}`).toBeDefined();
      for (const field of documented!.content?.['application/json'].schema.required ?? []) expect(res.json, `${method} ${route}`).toHaveProperty(field);
    }
    const reset = await api('/reset', { method: 'POST' });
    expect(Object.keys(doc.paths['/reset']!.post!.responses)).toContain(String(reset.status));
    expect((await api('/messages', { token: null })).status).toBe(401);
    expect(Object.keys(doc.paths['/messages']!.get!.responses)).toContain('401');
  });
});
