// The headless host: the contract over a WebSocket, guarded by token, Host and Origin.
import { IMPORT_MAX_CHARS } from '../../../shared/storage.ts';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import WebSocket from 'ws';
import type { CoreEvent, Result, ServerFrame } from '../../../shared/contract.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';
import { INSPECTOR_CSP } from '../../../shared/csp.ts';

let core: TestCore | undefined;
let ui: UiServer | undefined;
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await ui?.close();
  await core?.dispose();
  ui = undefined;
  core = undefined;
});

async function setup() {
  core = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
  core.writeKey = 'wk_web';
  ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
  await ui.listen();
  return { core, ui };
}

/** Opens the API socket; resolves with a small client, or rejects with the refusal's status. */
function connect(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ call: (channel: string, request?: unknown) => Promise<Result<any>>; events: CoreEvent[][] }>((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    sockets.push(ws);
    let next = 1;
    const waiting = new Map<number, (result: Result<any>) => void>();
    const events: CoreEvent[][] = [];
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as ServerFrame;
      if (frame.kind === 'events') events.push(frame.events);
      else waiting.get(frame.id)?.(frame.result);
    });
    ws.on('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        events,
        call: (channel, req = {}) =>
          new Promise((done) => {
            const id = next++;
            waiting.set(id, done);
            ws.send(JSON.stringify({ kind: 'invoke', id, channel, request: req }));
          }),
      }),
    );
  });
}

const apiUrl = (server: UiServer, token = server.token) => `${server.baseUrl.replace('http', 'ws')}/api?token=${token}`;

describe('headless host', () => {
  it('serves the contract: app info, messages with their delivery state, message detail', async () => {
    const { core, ui } = await setup();
    const api = await connect(apiUrl(ui), { origin: ui.baseUrl });
    const info = await api.call('app.info');
    expect(info).toMatchObject({ ok: true, value: { ingestUrl: core.ingestUrl, receiverUrl: core.receiver.url, sources: [{ name: 'web', writeKey: 'wk_web' }] } });

    await post(core, '/v1/batch', { batch: [{ type: 'track', userId: 'u1', event: 'Order Completed' }, { type: 'identify', userId: 'u2' }] });
    const list = await api.call('messages.list', { limit: 10 });
    expect(list.ok).toBe(true);
    expect(list.ok && list.value.messages.map((m: any) => [m.type, m.userId, m.delivery])).toEqual([
      ['identify', 'u2', null],
      ['track', 'u1', null],
    ]);
    const searched = await api.call('messages.list', { search: 'Order' });
    expect(searched.ok && searched.value.messages.map((m: any) => m.event)).toEqual(['Order Completed']);
    const id = list.ok && list.value.messages[1].id;
    const detail = await api.call('messages.get', { id });
    expect(detail).toMatchObject({ ok: true, value: { id, type: 'track', message: { event: 'Order Completed', type: 'track' }, deliveries: [] } });
    expect(JSON.parse((detail as any).value.raw)).toEqual({ type: 'track', userId: 'u1', event: 'Order Completed' });
  });

  it('lists by delivery state with a paging cursor, and reads summaries by id for live rows', async () => {
    const { core, ui } = await setup();
    const api = await connect(apiUrl(ui));
    core.saveDestination({ name: 'hooks', sources: ['web'], sharedSecret: 'abc', webhooks: [{ url: core.receiver.hookUrl('demo') }] });
    const statusOf = (id: number) => core.deliveries.forMessage(id)[0]?.status;
    const send = async (body: object) => {
      await post(core, '/v1/track', { userId: 'u1', ...body });
      return core.messages.list({ limit: 1 })[0]!.id;
    };
    const delivered = await send({ event: 'A' });
    await until(() => (statusOf(delivered) === 'delivered' ? true : undefined), 10_000, 'the first delivery');
    const skipped = await send({ event: 'B', integrations: { Webhooks: false } });
    core.receiver.setBehaviour('demo', { mode: 'status', status: 404 });
    const failed = await send({ event: 'C' });
    await until(() => (statusOf(failed) === 'failed' ? true : undefined), 10_000, 'the failed delivery');
    core.saveDestination({ name: 'hooks', sources: [], webhooks: [{ url: core.receiver.hookUrl('demo') }] });
    const none = await send({ event: 'D' });

    const byDelivery = async (delivery: string, extra: object = {}) => {
      const result = await api.call('messages.list', { delivery, ...extra });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      return result.ok ? (result.value as { messages: any[]; next: number | null }) : { messages: [], next: null };
    };
    expect((await byDelivery('delivered')).messages.map((m) => m.id)).toEqual([delivered]);
    expect((await byDelivery('failed')).messages.map((m) => [m.id, m.delivery.status, m.delivery.lastError])).toEqual([
      [failed, 'failed', expect.stringContaining('404')],
    ]);
    const skippedRows = (await byDelivery('skipped')).messages;
    expect(skippedRows.map((m) => m.id)).toEqual([skipped]);
    expect(skippedRows[0].delivery.skipReason).toEqual(expect.stringContaining('Webhooks'));
    expect(skippedRows[0].deliveryCount).toBe(1);
    expect((await byDelivery('none')).messages.map((m) => [m.id, m.deliveryCount])).toEqual([[none, 0]]);
    expect(await byDelivery('pending')).toEqual({ messages: [], next: null });
    expect(await api.call('messages.list', { delivery: 'bogus' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });

    // Paging: `next` continues where the page ended, and is null at the end.
    const first = await api.call('messages.list', { limit: 2 });
    expect(first.ok && first.value.messages.map((m: any) => m.id)).toEqual([none, failed]);
    expect(first.ok && first.value.next).toBe(failed);
    const rest = await api.call('messages.list', { limit: 2, beforeId: failed });
    expect(rest.ok && rest.value.messages.map((m: any) => m.id)).toEqual([skipped, delivered]);
    const end = await api.call('messages.list', { limit: 3, beforeId: delivered });
    expect(end).toEqual({ ok: true, value: { messages: [], next: null } });
    const byFilterPage = await byDelivery('delivered', { limit: 1, beforeId: failed });
    expect(byFilterPage.messages.map((m) => m.id)).toEqual([delivered]);
    expect(byFilterPage.next).toBe(delivered);

    // Live rows: summaries by id, newest first, unknown ids left out.
    const byIds = await api.call('messages.byIds', { ids: [delivered, 999_999, failed] });
    expect(byIds.ok && byIds.value.messages.map((m: any) => [m.id, m.delivery?.status])).toEqual([
      [failed, 'failed'],
      [delivered, 'delivered'],
    ]);
    expect(await api.call('messages.byIds', { ids: [] })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('answers errors as typed results: unknown channel, invalid request, refused operation', async () => {
    const { ui } = await setup();
    const api = await connect(apiUrl(ui));
    expect(await api.call('nope')).toEqual({ ok: false, error: { code: 'unknown_channel', message: expect.any(String) } });
    expect(await api.call('messages.get', { id: 'one' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await api.call('messages.get', { id: 999 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await api.call('deliveries.replay', {})).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('exactly one of') } });
    const sixth = await api.call('destinations.save', { name: 'd', webhooks: Array(6).fill({ url: 'http://127.0.0.1:9/x' }) });
    expect(sixth).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('at most 5 webhooks') } });
  });

  it('masks secrets unless revealed, showing no character of any', async () => {
    const { ui } = await setup();
    const api = await connect(apiUrl(ui));
    const signingSecrets = [`whsec_${Buffer.alloc(32, 1).toString('base64')}`, `whsec_${Buffer.alloc(32, 2).toString('base64')}`];
    const saved = await api.call('destinations.save', { name: 'hooks', sources: ['web'], sharedSecret: 'abcdefgh', signing: 'both', signingSecrets, webhooks: [{ url: 'http://127.0.0.1:9/x' }] });
    // Was "ab•••••" and "whsec_AQ•••••": a prefix of each.
    expect(saved).toMatchObject({ ok: true, value: { hasSecret: true, maskedSecret: '••••••••', maskedSigningSecrets: ['••••••••', '••••••••'] } });
    const listed = JSON.stringify(await api.call('destinations.list'));
    for (const secret of ['abcdefgh', ...signingSecrets]) expect(listed).not.toContain(secret);
    expect(listed).not.toContain('whsec_');
    expect(await api.call('destinations.revealSecret', { id: (saved as any).value.id })).toEqual({ ok: true, value: { secret: 'abcdefgh', signingSecrets, writeKey: null } });
  });

  it('masks a tracking-api destination\'s write key unless revealed, and names the URL its batches go to', async () => {
    const { ui } = await setup();
    const api = await connect(apiUrl(ui));
    const trackingApi = { url: 'http://127.0.0.1:9/up/', writeKey: 'wk_upstream_123', batchSize: 50, flushMs: 200, gzip: true };
    const saved = await api.call('destinations.save', { name: 'up', sources: ['web'], kind: 'tracking-api', trackingApi });
    expect(saved).toMatchObject({
      ok: true,
      value: {
        kind: 'tracking-api',
        webhooks: [],
        trackingApi: { url: 'http://127.0.0.1:9/up/', batchUrl: 'http://127.0.0.1:9/up/v1/batch', maskedWriteKey: '••••••••', batchSize: 50, flushMs: 200, gzip: true },
        health: [{ url: 'http://127.0.0.1:9/up/v1/batch', breaker: 'closed', failures: 0, gone: null }],
      },
    });
    expect((saved as any).value.trackingApi.writeKey).toBeUndefined();
    expect(JSON.stringify(await api.call('destinations.list'))).not.toContain('wk_upstream');
    expect(await api.call('destinations.revealSecret', { id: (saved as any).value.id })).toEqual({ ok: true, value: { secret: null, signingSecrets: [], writeKey: 'wk_upstream_123' } });
    const hooks = await api.call('destinations.save', { name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/x' }] });
    expect(hooks).toMatchObject({ ok: true, value: { kind: 'webhooks', trackingApi: null } });
  });

  it('streams core events in batches: a burst of messages is a few frames', async () => {
    const { core, ui } = await setup();
    const api = await connect(apiUrl(ui));
    for (let i = 0; i < 20; i++) await post(core, '/v1/track', { userId: 'u', event: `E${i}` });
    // Announced after each commit, batched (every 30 ms) and sent over the socket: wait for the last
    // to arrive rather than count on a pause being long enough.
    const streamed = () => api.events.flat().filter((e) => e.type === 'messages.stored').flatMap((e: any) => e.ids);
    const ids = await until(() => (streamed().length >= 20 ? streamed() : undefined), 10_000, 'the 20 messages streamed');
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    expect(api.events.length).toBeLessThan(20); // coalesced
  });

  it('refuses a wrong or missing token, a foreign Origin and a rebinding Host', async () => {
    const { ui } = await setup();
    await expect(connect(apiUrl(ui, 'wrong'))).rejects.toThrow('refused: 401');
    await expect(connect(`${ui.baseUrl.replace('http', 'ws')}/api`)).rejects.toThrow('refused: 401');
    await expect(connect(apiUrl(ui), { origin: 'http://evil.example' })).rejects.toThrow('refused: 403');
    await expect(connect(apiUrl(ui), { host: `evil.example:${new URL(ui.baseUrl).port}` })).rejects.toThrow('refused: 403');
    const page = await request(ui.baseUrl, { headers: { host: 'evil.example' } });
    expect(page.statusCode).toBe(403);
    await page.body.dump();
    // The page itself (no data) is served to the right Host, with a strict CSP, and is not cached (its URL has the token).
    const ok = await request(`${ui.baseUrl}/`);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(String(ok.headers['content-security-policy'])).toBe(`${INSPECTOR_CSP}; frame-ancestors 'none'`);
    await ok.body.dump();
  });
});

/** Writes raw bytes to the host and resolves with what it answers before closing (or `reset` right after writing). */
function raw(server: UiServer, text: string, reset = false): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(server.baseUrl).port), '127.0.0.1', () => {
      socket.write(text);
      if (reset) {
        socket.resetAndDestroy();
        resolve('');
      }
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.setTimeout(2_000, () => socket.destroy());
  });
}

describe('headless host, serving the built page', () => {
  it('serves the page uncached and its content-hashed assets cacheable; a path outside the folder is the page', async () => {
    const dir = tempDir('sluice-renderer-');
    fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title>');
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'assets', 'app-1a2b.js'), 'console.log(1)');
    core = await startCore({ config: { sources: [], destinations: [] } });
    ui = new UiServer({ core, host: '127.0.0.1', port: 0, rendererDir: dir });
    await ui.listen();
    const page = await request(`${ui.baseUrl}/?token=${ui.token}`);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(await page.body.text()).toContain('<title>t</title>');
    const asset = await request(`${ui.baseUrl}/assets/app-1a2b.js`);
    expect(asset.headers['cache-control']).toBeUndefined();
    expect(await asset.body.text()).toBe('console.log(1)');
    const outside = await request(`${ui.baseUrl}/..%2f..%2fetc%2fpasswd`);
    expect(await outside.body.text()).toContain('<title>t</title>');
  });
});

describe('headless host, against hostile requests', () => {
  it('answers malformed URLs, survives resets, oversized frames and a channel that is not a string — and keeps serving', async () => {
    const { ui } = await setup();
    const host = `127.0.0.1:${new URL(ui.baseUrl).port}`;
    expect(await raw(ui, `GET /%E0%A4%A HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    const upgrade = (path: string, hostHeader: string) =>
      `GET ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;
    expect(await raw(ui, upgrade('//[', 'evil.example'))).toMatch(/^HTTP\/1\.1 404/);
    // Refused upgrades whose sockets are reset at once: the refusal writes to a dead socket.
    await Promise.all(Array.from({ length: 50 }, () => raw(ui, upgrade('/api', host), true)));

    // With the token: a frame over the limit (4 × a dropped file's, 64 MiB) closes that socket (1009), nothing else.
    const big = new WebSocket(apiUrl(ui));
    sockets.push(big);
    await new Promise((resolve) => big.on('open', resolve));
    const closedBig = new Promise<number>((resolve) => big.on('close', (code) => resolve(code)));
    big.on('error', () => {});
    big.send(JSON.stringify({ kind: 'invoke', id: 1, channel: 'deliveries.replay', request: { body: { a: 'x'.repeat(IMPORT_MAX_CHARS * 4 + 1) } } }));
    expect(await closedBig).toBe(1009);
    // A channel that is an object (whose string form throws): refused as a malformed frame.
    const odd = new WebSocket(apiUrl(ui));
    sockets.push(odd);
    await new Promise((resolve) => odd.on('open', resolve));
    const closedOdd = new Promise<number>((resolve) => odd.on('close', (code) => resolve(code)));
    odd.send('{"kind":"invoke","id":1,"channel":{"toString":1},"request":{}}');
    expect(await closedOdd).toBe(1003);

    const api = await connect(apiUrl(ui));
    expect(await api.call('app.info')).toMatchObject({ ok: true });
  });
});

describe('composer (the client library inside the app)', () => {
  it('queues messages in the source\'s client, streams its queue state, and flushes them into the store', async () => {
    const { core, ui } = await setup();
    const api = await connect(apiUrl(ui));
    const sourceId = core.sources.byName('web')!.id;
    const sent = await api.call('composer.send', { sourceId, type: 'track', fields: { userId: 'u_c', event: 'Composed', properties: { n: 1 } } });
    expect(sent).toMatchObject({ ok: true, value: { queued: true, state: { queued: 1, inFlightBatches: 0 } } });
    expect((sent as any).value.state.nextFlushInMs).toBeGreaterThan(0); // batching is visible: waiting for flushAfter
    // The state is streamed in the next batch of events: wait for it rather than for a fixed pause.
    const states = () => api.events.flat().filter((e) => e.type === 'client.state') as Extract<CoreEvent, { type: 'client.state' }>[];
    await until(() => states().at(-1)?.state.queued === 1, 10_000, "the client's queue state streamed");
    expect(states().at(-1)).toMatchObject({ sourceId, state: { queued: 1 } });
    expect(core.messages.list()).toEqual([]); // still queued in the client

    const flushed = await api.call('composer.flush', { sourceId });
    expect(flushed).toMatchObject({ ok: true, value: { queued: 0, sent: 1, lastResult: { ok: true, messages: 1, status: 200 } } });
    const [stored] = core.messages.list();
    expect(stored).toMatchObject({ type: 'track', event: 'Composed', userId: 'u_c', status: 'accepted' });
    expect((core.messages.get(stored!.id)!.message!.context as any).library.name).toBe('sluice-client');
  });

  it('refuses an invalid message with the client\'s error code, and an unknown source', async () => {
    const { core, ui } = await setup();
    const api = await connect(apiUrl(ui));
    const sourceId = core.sources.byName('web')!.id;
    const invalid = await api.call('composer.send', { sourceId, type: 'track', fields: { userId: 'u' } });
    expect(invalid).toMatchObject({ ok: false, error: { code: expect.any(String), message: expect.stringContaining('event') } });
    expect(await api.call('composer.state', { sourceId: 999 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});
