// The headless host: the contract over a WebSocket, guarded by token, Host and Origin.
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import WebSocket from 'ws';
import type { CoreEvent, Result, ServerFrame } from '../../shared/contract.ts';
import { UiServer } from '../../electron/headless/ui-server.ts';
import { post, startCore, type TestCore } from '../helpers/core.ts';

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

  it('masks shared secrets unless revealed', async () => {
    const { ui } = await setup();
    const api = await connect(apiUrl(ui));
    const saved = await api.call('destinations.save', { name: 'hooks', sources: ['web'], sharedSecret: 'abcdefgh', webhooks: [{ url: 'http://127.0.0.1:9/x' }] });
    expect(saved).toMatchObject({ ok: true, value: { hasSecret: true, maskedSecret: 'ab•••••' } });
    expect(JSON.stringify(await api.call('destinations.list'))).not.toContain('abcdefgh');
    expect(await api.call('destinations.revealSecret', { id: (saved as any).value.id })).toEqual({ ok: true, value: { secret: 'abcdefgh' } });
  });

  it('streams core events in batches: a burst of messages is a few frames', async () => {
    const { core, ui } = await setup();
    const api = await connect(apiUrl(ui));
    for (let i = 0; i < 20; i++) await post(core, '/v1/track', { userId: 'u', event: `E${i}` });
    await new Promise((r) => setTimeout(r, 150));
    const ids = api.events.flat().filter((e) => e.type === 'messages.stored').flatMap((e: any) => e.ids);
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
    // The page itself (no data) is served to the right Host, with a strict CSP.
    const ok = await request(`${ui.baseUrl}/`);
    expect(ok.statusCode).toBe(200);
    expect(String(ok.headers['content-security-policy'])).toContain("default-src 'self'");
    await ok.body.dump();
  });
});
