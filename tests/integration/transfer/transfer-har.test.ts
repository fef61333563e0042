// HAR both ways (issue 17, point 5): `sluice export --har` writes a destination's webhook attempts as a
// HAR 1.2 document (checked against the spec's required fields with ajv), and `sluice import` reads a HAR
// captured of Tracking API calls, sending each call's body through another relay's ingestion.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Analytics } from '@segment/analytics-node';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { configFileSchema } from '../../../shared/settings.ts';
import { openReadOnly } from '../../../electron/core/store/connection.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { harPages, type HarFilter } from '../../../electron/core/transfer/har.ts';
import { CLI } from '../../helpers/cli.ts';
import { basicAuth, post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';

const SCHEMA = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../fixtures/transfer/har-1.2.schema.json'), 'utf8')) as object;
const ajv = new AjvModule.default({ allErrors: true, strict: false });
addFormatsModule.default(ajv);
const validHar = ajv.compile(SCHEMA);

function sluice(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const receiver = receiversClosedAfterEach();
const cores: TestCore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = tempDir('sluice-har-');
  dirs.push(dir);
  return dir;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Waits until the message's delivery to `destination` has made `rounds` rounds. */
async function afterRound(c: TestCore, messageRowId: number, destination: string, rounds: number) {
  const destinationId = c.destinations.list().find((d) => d.name === destination)!.id;
  const until = Date.now() + 10_000;
  for (;;) {
    const delivery = c.deliveries.forMessage(messageRowId).find((d) => d.destinationId === destinationId);
    if (delivery && delivery.attemptCount >= rounds) return delivery;
    if (Date.now() > until) throw new Error(`the delivery to ${destination} did not make ${rounds} rounds: ${JSON.stringify(delivery)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Har {
  log: { version: string; creator: { name: string }; entries: Record<string, any>[] };
}

describe('sluice export --har', () => {
  it('one entry per webhook attempt: a 500 then a 200 with their bodies and headers, a refused connection as status 0 with _error', async () => {
    const r = await receiver();
    r.script({ status: 500, headers: { 'content-type': 'text/plain' }, body: 'oops' });
    const down = await closedPort();
    let now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await startCore({
      clock: { now: () => now },
      random: () => 0.5,
      config: configFileSchema.parse({
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [
          { name: 'hooks', enabled: true, sources: ['web'], sharedSecret: 'abc123', webhooks: [{ url: `${r.url}/hook?x=1`, headers: { 'X-Env': 'dev' } }] },
          { name: 'down', enabled: true, sources: ['web'], webhooks: [{ url: `http://127.0.0.1:${down}/`, headers: {} }] },
        ],
      }),
    });
    c.writeKey = 'wk_web';
    cores.push(c);
    await post(c, '/v1/track', { userId: 'u_1', event: 'Order Completed', messageId: 'har-1', properties: { total: 12 } });
    const rowId = c.messages.list()[0]!.id;
    await afterRound(c, rowId, 'hooks', 1);
    await afterRound(c, rowId, 'down', 1);
    now += 5_000;
    c.delivery.kick();
    const delivered = await afterRound(c, rowId, 'hooks', 2);
    expect(delivered.status).toBe('delivered');
    await afterRound(c, rowId, 'down', 2);
    const [first, second] = await r.waitFor(2);

    const dir = scratch();
    const run = await sluice(['export', '--har', '--data-dir', c.dataDir, '--out', 'hooks.har', '--destination', 'hooks'], dir);
    expect(run).toEqual({ code: 0, stdout: '', stderr: 'exported 2 requests (HAR 1.2) to hooks.har\n' });
    const har = JSON.parse(fs.readFileSync(path.join(dir, 'hooks.har'), 'utf8')) as Har;
    expect(validHar(har), JSON.stringify(validHar.errors)).toBe(true);
    expect(har.log.creator.name).toBe('Sluice');
    const attempts = c.deliveries.attempts(delivered.id);
    const [e500, e200] = har.log.entries;
    for (const [entry, received, attempt] of [[e500, first, attempts[0]], [e200, second, attempts[1]]] as const) {
      expect(entry!.request).toMatchObject({
        method: 'POST',
        url: `${r.url}/hook?x=1`,
        httpVersion: 'HTTP/1.1',
        queryString: [{ name: 'x', value: '1' }],
        postData: { mimeType: 'application/json', text: received!.body },
        bodySize: Buffer.byteLength(received!.body),
      });
      // The headers as sent, the signature included (never the secret).
      expect(entry!.request.headers).toEqual(expect.arrayContaining([{ name: 'X-Env', value: 'dev' }, { name: 'X-Signature', value: received!.headers['x-signature'] }]));
      expect(JSON.stringify(entry)).not.toContain('abc123');
      expect(entry!.startedDateTime).toBe(new Date(attempt!.startedAt).toISOString());
      expect(entry!.time).toBe(attempt!.durationMs);
      expect(entry!.timings).toEqual({ send: 0, wait: attempt!.durationMs, receive: 0 });
      expect(entry!.cache).toEqual({});
    }
    expect(e500!.startedDateTime).toBe('2026-11-21T10:00:00.000Z');
    expect(e500!.response).toMatchObject({ status: 500, statusText: 'Internal Server Error', content: { mimeType: 'text/plain', text: 'oops', size: 4 }, redirectURL: '' });
    expect(e500!.response.headers).toEqual(expect.arrayContaining([{ name: 'content-type', value: 'text/plain' }]));
    expect(e500!._sluice).toEqual({ deliveryId: delivered.id, messageId: 'har-1', destination: 'hooks', outcome: 'retry', error: attempts[0]!.errorMessage });
    expect(e200!.response).toMatchObject({ status: 200, statusText: 'OK', content: { text: 'ok', size: 2 } });
    expect(e200!._sluice).toMatchObject({ outcome: 'success', error: null });
    expect(e500!.response._error).toBeUndefined();

    // Every destination to stdout: the refused connections are entries with status 0 and _error.
    const all = await sluice(['export', '--har', '--data-dir', c.dataDir], dir);
    const everything = JSON.parse(all.stdout) as Har;
    expect(validHar(everything), JSON.stringify(validHar.errors)).toBe(true);
    expect(everything.log.entries.map((e) => [e._sluice.destination, e.response.status])).toEqual(
      expect.arrayContaining([['hooks', 500], ['hooks', 200], ['down', 0], ['down', 0]]),
    );
    const refused = everything.log.entries.find((e) => e._sluice.destination === 'down')!;
    expect(refused.response).toMatchObject({ status: 0, statusText: '', headers: [], content: { size: 0, mimeType: 'x-unknown' }, bodySize: -1 });
    expect(refused.response._error).toMatch(/refused the connection/);
    // Time bounds are the attempts' own: the second round was 5 s after the first.
    const late = JSON.parse((await sluice(['export', '--har', '--data-dir', c.dataDir, '--since', '2026-11-21T10:00:01Z'], dir)).stdout) as Har;
    expect(late.log.entries.map((e) => e.startedDateTime)).toEqual(['2026-11-21T10:00:05.000Z', '2026-11-21T10:00:05.000Z']);
    const none = JSON.parse((await sluice(['export', '--har', '--data-dir', c.dataDir, '--event', 'Something Else'], dir)).stdout) as Har;
    expect(none.log.entries).toEqual([]);
    expect(validHar(none)).toBe(true);
    expect(await sluice(['export', '--har', '--data-dir', c.dataDir, '--destination', 'nope'], dir)).toEqual({
      code: 2,
      stdout: '',
      stderr: `sluice: there is no destination "nope" in ${c.dataDir}: its destinations are "down", "hooks"\n`,
    });
  });
});

describe('sluice export --har of forwarded requests', () => {
  it('one entry per request forwarded to a Tracking API: the batch as sent, its answer, the messages it carried; a 500 then its retry', async () => {
    const r = await receiver();
    r.script({ status: 500, headers: { 'content-type': 'text/plain' }, body: 'busy' });
    r.fallback = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"success":true}' };
    let now = Date.parse('2026-11-21T10:00:00.000Z');
    const c = await startCore({
      clock: { now: () => now },
      random: () => 0.5,
      config: configFileSchema.parse({
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [{ name: 'api', sources: ['web'], kind: 'tracking-api', trackingApi: { url: r.url, writeKey: 'wk_secret_api', flushMs: 0 } }],
      }),
    });
    c.writeKey = 'wk_web';
    cores.push(c);
    const batch = ['One', 'Two', 'Three'].map((event, i) => ({ type: 'track', userId: `u_${i}`, event, messageId: `fwd-${i}` }));
    expect((await post(c, '/v1/batch', { batch })).status).toBe(200);
    const rows = c.messages.list().map((m) => m.id).reverse();
    await afterRound(c, rows[0]!, 'api', 1);
    now += 5_000;
    c.delivery.kick();
    const delivered = await afterRound(c, rows[0]!, 'api', 2);
    expect(delivered.status).toBe('delivered');
    const [first, second] = await r.waitFor(2);
    const deliveryIds = rows.map((id) => c.deliveries.forMessage(id)[0]!.id);

    const dir = scratch();
    const run = await sluice(['export', '--har', '--data-dir', c.dataDir, '--out', 'api.har', '--destination', 'api'], dir);
    expect(run).toEqual({ code: 0, stdout: '', stderr: 'exported 2 requests (HAR 1.2) to api.har\n' });
    const har = JSON.parse(fs.readFileSync(path.join(dir, 'api.har'), 'utf8')) as Har;
    expect(validHar(har), JSON.stringify(validHar.errors)).toBe(true);
    const [e500, e200] = har.log.entries;
    for (const [entry, received] of [[e500, first], [e200, second]] as const) {
      expect(entry!.request).toMatchObject({ method: 'POST', url: `${r.url}/v1/batch`, postData: { mimeType: 'application/json', text: received!.body }, bodySize: Buffer.byteLength(received!.body) });
      expect(entry!._sluice.carried).toEqual({ deliveryIds, messageIds: ['fwd-0', 'fwd-1', 'fwd-2'] });
      expect(entry!._sluice).toMatchObject({ deliveryId: deliveryIds[0], messageId: null, destination: 'api' });
      // The write key went as Basic auth: a HAR leaves credentials out.
      expect(received!.headers.authorization).toBe(basicAuth('wk_secret_api'));
      expect(entry!.request.headers).toEqual(expect.arrayContaining([{ name: 'Authorization', value: '[redacted by Sluice]' }]));
      expect(JSON.stringify(entry)).not.toContain(Buffer.from('wk_secret_api:').toString('base64'));
    }
    expect(e500!.startedDateTime).toBe('2026-11-21T10:00:00.000Z');
    expect(e500!.response).toMatchObject({ status: 500, content: { text: 'busy' } });
    expect(e500!._sluice).toMatchObject({ outcome: 'retry' });
    expect(e200!.startedDateTime).toBe('2026-11-21T10:00:05.000Z');
    expect(e200!.response).toMatchObject({ status: 200, content: { text: '{"success":true}' } });
    expect(e200!._sluice).toMatchObject({ outcome: 'success', error: null });

    // A message filter picks the requests that carried a match (whole), a time bound the requests' own starts
    // (read in this process, as the export reads: a read-only connection beside the running relay).
    const db = openReadOnly(path.join(c.dataDir, DATABASE_FILE));
    try {
      const statuses = (filter: HarFilter) => [...harPages(db, filter)].flat().map((e) => e.response.status);
      expect(statuses({ event: 'Two' })).toEqual([500, 200]);
      expect(statuses({ since: Date.parse('2026-11-21T10:00:01Z') })).toEqual([200]);
      expect(statuses({ event: 'Four' })).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe('sluice import of a HAR', () => {
  it('sends each captured Tracking API call again: batches with their context, single messages with their endpoint\'s type; other requests skipped', async () => {
    const a = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    a.writeKey = 'wk_web';
    cores.push(a);
    const entries: Record<string, unknown>[] = [];
    /** Sends a request to relay A and records it as a HAR entry, as a browser's dev tools would. */
    const capture = async (method: 'GET' | 'POST', pathname: string, body: string | undefined, headers: Record<string, string>) => {
      const started = Date.now();
      const res = await request(`${a.ingestUrl}${pathname}`, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await res.body.text();
      entries.push(harEntry(method, `${a.ingestUrl}${pathname}`, headers, body, res.statusCode, text, started));
    };
    const json = { 'content-type': 'application/json', authorization: basicAuth('wk_web') };
    await capture('POST', '/v1/batch', JSON.stringify({
      batch: [
        { type: 'track', event: 'Signed Up', userId: 'u_1', messageId: 'h-1', context: { locale: 'fr' } },
        { type: 'identify', userId: 'u_1', messageId: 'h-2', traits: { plan: 'pro' } },
      ],
      context: { locale: 'en', page: { path: '/signup' } },
      integrations: { Intercom: false },
      sentAt: new Date().toISOString(),
    }), json);
    // analytics.js: the write key in a text/plain body, to the one-letter path.
    await capture('POST', '/v1/t', JSON.stringify({ writeKey: 'wk_web', event: 'Clicked', anonymousId: 'a_1', messageId: 'h-3', properties: { x: 1 } }), { 'content-type': 'text/plain' });
    // A single-message endpoint gives the type, whatever the body says.
    await capture('POST', '/v1/identify', JSON.stringify({ type: 'page', userId: 'u_2', messageId: 'h-4', traits: { a: 1 } }), json);
    await capture('GET', '/v1/projects/wk_web/settings', undefined, {});
    entries.push(harEntry('POST', 'https://cdn.example.com/collect', {}, '{"type":"track"}', 204, '', Date.now()));
    // And what @segment/analytics-node sends, as its own http_request event describes it.
    const analytics = new Analytics({ writeKey: 'wk_web', host: a.ingestUrl, flushAt: 2, maxRetries: 0 });
    analytics.on('http_request', (req) => entries.push(harEntry('POST', req.url, req.headers, req.body, 200, '{"success":true}', Date.now())));
    analytics.track({ userId: 'u_3', event: 'Node Event', properties: { n: 1 } });
    analytics.page({ userId: 'u_3', name: 'Node Page' });
    await analytics.closeAndFlush({ timeout: 10_000 });

    const dir = scratch();
    // Pretty-printed over many lines, as HAR files are.
    fs.writeFileSync(path.join(dir, 'capture.har'), JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } }, null, 2));
    const b = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_b', kind: 'web' }], destinations: [] } });
    b.writeKey = 'wk_b';
    cores.push(b);
    const run = await sluice(['import', 'capture.har', '--write-key', 'wk_b', '--url', b.ingestUrl], dir);
    expect(run.stdout).toBe(
      `imported capture.har into ${b.ingestUrl} (with the write key given): 6 messages sent, 6 accepted, 0 refused, 0 unreadable lines\n` +
        '  2 HAR entries skipped: not POSTs to the Tracking API (/v1/batch, /v1/track, …)\n',
    );
    expect(run.code).toBe(0);

    const exported = async (c: TestCore) =>
      (await sluice(['export', '--data-dir', c.dataDir], dir)).stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { messageId: string; message: Record<string, unknown> });
    const fromA = await exported(a);
    const fromB = await exported(b);
    expect(fromB.map((l) => l.messageId)).toEqual(fromA.map((l) => l.messageId));
    fromA.forEach((l, i) => expect(fromB[i]!.message, l.messageId).toEqual(l.message));
    const byId = Object.fromEntries(fromB.map((l) => [l.messageId, l.message]));
    expect(byId['h-1']).toMatchObject({ context: { locale: 'fr', page: { path: '/signup' } }, integrations: { Intercom: false }, sentAt: expect.any(String) });
    expect(byId['h-3']).toEqual({ type: 'track', event: 'Clicked', anonymousId: 'a_1', messageId: 'h-3', properties: { x: 1 } });
    expect(byId['h-4']).toMatchObject({ type: 'identify', userId: 'u_2' });
  });

  it('a HAR of webhook attempts holds no Tracking API calls: nothing is sent, and it says so', async () => {
    const b = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_b', kind: 'web' }], destinations: [] } });
    cores.push(b);
    const dir = scratch();
    const entry = harEntry('POST', 'http://127.0.0.1:9/hook', { 'content-type': 'application/json' }, '{"type":"track"}', 200, 'ok', Date.now());
    fs.writeFileSync(path.join(dir, 'one-line.har'), JSON.stringify({ log: { version: '1.2', creator: { name: 'x', version: '1' }, entries: [entry] } }));
    const run = await sluice(['import', 'one-line.har', '--write-key', 'wk_b', '--url', b.ingestUrl], dir);
    expect(run).toEqual({
      code: 0,
      stdout: `imported one-line.har into ${b.ingestUrl} (with the write key given): 0 messages sent, 0 accepted, 0 refused, 0 unreadable lines\n  1 HAR entry skipped: not a POST to the Tracking API (/v1/batch, /v1/track, …)\n`,
      stderr: 'sluice: warning: one-line.har holds no messages to send\n',
    });
  });
});

/** A HAR 1.2 entry for a request and its answer. */
function harEntry(method: string, url: string, headers: Record<string, string>, body: string | undefined, status: number, answer: string, started: number) {
  return {
    startedDateTime: new Date(started).toISOString(),
    time: 1,
    request: {
      method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
      queryString: [],
      ...(body !== undefined ? { postData: { mimeType: headers['content-type'] ?? headers['Content-Type'] ?? 'application/json', text: body } } : {}),
      headersSize: -1,
      bodySize: body === undefined ? 0 : Buffer.byteLength(body),
    },
    response: { status, statusText: '', httpVersion: 'HTTP/1.1', cookies: [], headers: [], content: { size: answer.length, mimeType: 'application/json', text: answer }, redirectURL: '', headersSize: -1, bodySize: answer.length },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
}
