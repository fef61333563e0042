// Real clients, unchanged, lose nothing (issue 24, point 10): ingestion takes what RudderStack's gateway
// takes (4,000 KB a request) and marks what Segment would refuse (32 KB a message, 500 KB a batch) on
// the stored message instead of refusing it; a request refused as a whole is stored as a rejected entry
// with its reason, at a bounded rate; analytics.js's write key inside an event is kept out of the stored
// text by one rule for single calls and batches; RudderStack's browser SDK gets its source config.
// A real core (real SQLite file, real HTTP on loopback), its HTTP API and sluice/testing's queries.
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createHandlers } from '../../../electron/core/api/contract-handlers.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { INGEST_MAX_REQUEST_BYTES } from '../../../shared/limits.ts';
import { NO_SOURCE_ID } from '../../../shared/refused-request.ts';
import { callOk } from '../../helpers/contract.ts';
import { basicAuth, post, startCore, storedMessages, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function relay(options: Parameters<typeof startCore>[0] = {}): Promise<TestCore> {
  const core = await startCore(options);
  open.push({ close: () => core.dispose() });
  return core;
}

async function httpApi(core: TestCore): Promise<(path: string) => Promise<any>> {
  const ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
  await ui.listen();
  open.push(ui);
  return async (path) => {
    const res = await request(`${ui.apiUrl}${path}`, { headers: { authorization: `Bearer ${ui.token}` } });
    return res.body.json();
  };
}

/** `n` track events of about `bytes` each. */
const events = (n: number, bytes: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ type: 'track', event: 'Big', userId: 'u1', messageId: `${tag}-${i}`, properties: { pad: 'x'.repeat(bytes) } }));

describe("Segment's limits: a warning on the message, not a refusal", () => {
  it('a 600 KB batch is stored whole, every message with the warning, shown by the HTTP API, sluice/testing and the inspector\'s list', async () => {
    const core = await relay();
    const body = JSON.stringify({ batch: events(62, 10_000, 'w') });
    expect(Buffer.byteLength(body)).toBeGreaterThan(600 * 1024);
    const res = await post(core, '/v1/batch', body);
    expect(res).toMatchObject({ status: 200, json: { success: true } });

    const stored = storedMessages(core);
    expect(stored).toHaveLength(62);
    const warning = `Segment would refuse this: over 500 KB (its batch is ${Buffer.byteLength(body).toLocaleString('en-US')} bytes)`;
    for (const m of stored) expect(m.warning).toBe(warning);
    expect(stored.map((m) => JSON.parse(m.raw).properties.pad.length)).toEqual(Array(62).fill(10_000));

    // sluice/testing and the HTTP API's message.
    expect((await core.queries.messages({ event: 'Big' })).map((m) => m.warning)).toEqual(Array(62).fill(warning));
    const api = await httpApi(core);
    const page = await api('/messages?limit=5');
    expect(page.messages.map((m: { warning: unknown }) => m.warning)).toEqual(Array(5).fill(warning));
    // The inspector's rows (the contract's messages.list).
    const handlers = createHandlers(core);
    const list = await callOk(handlers, 'messages.list', { limit: 5 });
    expect(list.messages.map((m) => m.warning)).toEqual(Array(5).fill(warning));

    // A batch under 500 KB of messages under 32 KB: no warning.
    expect((await post(core, '/v1/batch', { batch: events(3, 1_000, 'small') })).status).toBe(200);
    expect((await core.queries.messages({ messageId: 'small-0' }))[0]!.warning).toBeNull();
  });

  it(`takes up to ${INGEST_MAX_REQUEST_BYTES / 1024} KB, gzipped or not; one byte more is refused and stored as a rejected entry with the reason`, async () => {
    const core = await relay();
    const fill = (target: number) => {
      const head = '{"batch":[{"type":"track","event":"Edge","userId":"u1","messageId":"edge-1","properties":{"pad":"';
      const tail = '"}}]}';
      return head + 'x'.repeat(target - head.length - tail.length) + tail;
    };
    expect((await post(core, '/v1/batch', fill(INGEST_MAX_REQUEST_BYTES))).status).toBe(200);
    expect((await post(core, '/v1/batch', fill(INGEST_MAX_REQUEST_BYTES), { gzip: true })).json.success).toBe(true); // the same message again: a duplicate
    const over = await post(core, '/v1/batch', fill(INGEST_MAX_REQUEST_BYTES + 1));
    expect(over.status).toBe(400);
    expect(over.json.error).toEqual({ code: 'request_too_large', message: 'the request body is over 4000 KB; split it into smaller batches' });
    expect(core.messages.countByStatus().accepted).toBe(1);
    expect(storedMessages(core)[0]!.warning).toMatch(/^Segment would refuse this: over 32 KB \(the message is 4,095,9\d\d bytes\); over 500 KB/);

    const entry = await core.queries.waitForMessages({ status: 'rejected' }, { timeoutMs: 10_000 }).then((found) => found[0]!);
    expect(entry).toMatchObject({
      status: 'rejected',
      source: 'default',
      rejection: { code: 'request_too_large', reason: 'the whole request was refused (400): the request body is over 4000 KB; split it into smaller batches' },
    });
    expect(entry._sluice).toEqual({ refusedRequest: { status: 400, path: '/v1/batch', bytes: INGEST_MAX_REQUEST_BYTES + 1, contentType: 'application/json' } });
    expect(entry.preview).toBeNull(); // refused on its declared length: nothing of it was read
  });
});

describe('requests refused as a whole are stored, at a bounded rate', () => {
  it('bad JSON, an unknown write key, no write key, a path that is not an endpoint: each an entry with its reason and the start of its body', async () => {
    const core = await relay();
    expect((await post(core, '/v1/batch', '{"batch":[{"type":"track",')).json.error.code).toBe('invalid_json');
    expect((await post(core, '/v1/track', { userId: 'u', event: 'E' }, { writeKey: 'wk_nobody' })).status).toBe(401);
    expect((await post(core, '/v1/track', { userId: 'u', event: 'E', writeKey: 'wk_nobody_either' }, { writeKey: null })).status).toBe(401);
    expect((await post(core, '/v2/track', { userId: 'u', event: 'E' })).status).toBe(404);
    const entries = await until(() => (core.messages.list().length === 4 ? storedMessages(core, 'rejected') : undefined));
    expect(entries.map((m) => [m.rejectCode, m.sourceId])).toEqual([
      ['invalid_json', core.sources.list()[0]!.id],
      ['invalid_write_key', NO_SOURCE_ID],
      ['invalid_write_key', NO_SOURCE_ID],
      ['not_found', NO_SOURCE_ID],
    ]);
    expect(entries.map((m) => m.rejectReason)).toEqual([
      expect.stringMatching(/^the whole request was refused \(400\): the body is not valid JSON/),
      "the whole request was refused (401): unknown write key; copy it from Sluice's Sources view",
      "the whole request was refused (401): unknown write key; copy it from Sluice's Sources view",
      expect.stringMatching(/^the whole request was refused \(404\): no endpoint at \/v2\/track/),
    ]);
    expect(JSON.parse(entries[0]!.raw).preview).toBe('{"batch":[{"type":"track",');
    // The write key masked but its last four characters, enough to tell which client it was: never stored.
    expect(JSON.parse(entries[2]!.raw).preview).toContain('"writeKey":"••••ther"');
    expect(entries[2]!.raw).not.toContain('wk_nobody');
    expect((await core.queries.messages({ status: 'rejected' })).map((m) => m.source)).toEqual(['default', 'no source', 'no source', 'no source']);
    // A GET to a path that is not an endpoint (a browser, a scanner) is not a client's lost data: not stored.
    await request(`${core.ingestUrl}/favicon.ico`);
    expect(core.messages.list()).toHaveLength(4);
  });

  it('a flood stores 10 at once and 10 a minute; the next one stored says how many were not', async () => {
    let now = Date.parse('2026-11-22T10:00:00.000Z');
    const core = await relay({ clock: { now: () => now } });
    for (let i = 0; i < 50; i++) expect((await post(core, '/v1/track', `not json ${i}`)).status).toBe(400);
    now += 6_000; // a tenth of a minute: room for one more
    expect((await post(core, '/v1/track', 'not json again')).status).toBe(400);
    // Entries are stored in the order of their requests: once the 11th is there, every earlier one is.
    const last = await until(() => storedMessages(core, 'rejected')[10]);
    expect(core.messages.list()).toHaveLength(11);
    expect(storedMessages(core, 'rejected').slice(0, 10).map((m) => JSON.parse(m.raw).preview)).toEqual(Array.from({ length: 10 }, (_, i) => `not json ${i}`));
    expect(last.rejectReason).toMatch(/ \(40 more refused requests were not stored before this one: at most 10 a minute are\)$/);
    expect(JSON.parse(last.raw).preview).toBe('not json again');

    expect((await post(core, '/v1/track', 'and again')).status).toBe(400); // no room: counted
    now += 6_000;
    expect((await post(core, '/v1/track', 'and once more')).status).toBe(400);
    const next = await until(() => storedMessages(core, 'rejected')[11]);
    expect(core.messages.list()).toHaveLength(12);
    expect(next.rejectReason).toMatch(/ \(1 more refused request was not stored before this one: at most 10 a minute are\)$/);
  });
});

describe("analytics.js's write key inside an event", () => {
  it('is kept out of the stored text by one rule, single call or batch, and the rest of the text is stored as sent', async () => {
    const core = await relay();
    const writeKey = core.writeKey;
    // A single call (/v1/t) and analytics.js's batching (/v1/b), the key in the body and in each event.
    const single = `{"writeKey":"${writeKey}","userId":"u1","event":"One",  "properties":{"big":12345678901234567890}}`;
    expect((await post(core, '/v1/t', single, { writeKey: null, contentType: 'text/plain' })).status).toBe(200);
    const batch = `{"writeKey":"${writeKey}","batch":[{"type":"track","userId":"u1","event":"Two","writeKey":"${writeKey}","properties":{"big":12345678901234567891}},{"writ\\u0065Key":"${writeKey}","type":"track","userId":"u1","event":"Three"}],"sentAt":"${new Date().toISOString()}"}`;
    expect((await post(core, '/v1/b', batch, { writeKey: null, contentType: 'text/plain' })).status).toBe(200);
    const raws = storedMessages(core).map((m) => m.raw);
    expect(raws).toEqual([
      '{"userId":"u1","event":"One",  "properties":{"big":12345678901234567890}}',
      '{"type":"track","userId":"u1","event":"Two","properties":{"big":12345678901234567891}}',
      '{"type":"track","userId":"u1","event":"Three"}',
    ]);
    for (const m of storedMessages(core)) expect(JSON.stringify(m.message)).not.toContain(writeKey);
  });
});

describe("RudderStack's source config", () => {
  it('GET /sourceConfig answers the config the browser SDK checks for a known key (query or Basic auth), 404 for another', async () => {
    const core = await relay({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web', allowedOrigins: ['https://app.example.com'] }], destinations: [] } });
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await request(`${core.ingestUrl}${path}`, { headers });
      return { status: res.statusCode, json: (await res.body.json()) as any, cors: res.headers['access-control-allow-origin'] };
    };
    const byQuery = await get('/sourceConfig/?p=npm&v=3.34.1&build=modern&writeKey=wk_web&lockIntegrationsVersion=true', { origin: 'https://app.example.com' });
    expect(byQuery).toMatchObject({ status: 200, cors: 'https://app.example.com' });
    expect(byQuery.json.source).toMatchObject({ name: 'web', writeKey: 'wk_web', enabled: true, destinations: [] });
    expect(byQuery.json.source.id).toEqual(expect.any(String));
    // Error reporting and metrics off: the SDK sends nothing to RudderStack's services.
    expect(byQuery.json.source.config).toEqual({ statsCollection: { errors: { enabled: false }, metrics: { enabled: false } } });
    expect((await get('/sourceConfig', { authorization: basicAuth('wk_web') })).status).toBe(200);
    expect(await get('/sourceConfig/?writeKey=wk_other')).toMatchObject({ status: 404, json: { error: { code: 'invalid_write_key' } } });
    expect(await get('/sourceConfig/?writeKey=wk_web', { origin: 'https://evil.example' })).toMatchObject({ status: 403, json: { error: { code: 'origin_not_allowed' } } });
  });
});
