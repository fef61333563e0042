// GET /api/v1/stats counts messages by type, and a rejected message's type is whatever the client
// wrote (issue 24, point 7): counted in a plain object, "constructor" and "toString" printed a
// function's source and "__proto__" vanished. A real core and UI server on loopback, plain HTTP.
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
let ui: UiServer | undefined;
afterEach(async () => {
  await ui?.close();
  await core?.dispose();
});

describe('GET /api/v1/stats', () => {
  it('counts types named like Object.prototype members as the types they are', async () => {
    core = await startCore();
    ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
    await ui.listen();
    const odd = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'toString'];
    const res = await post(core, '/v1/batch', {
      batch: [{ type: 'track', userId: 'u', event: 'Fine' }, ...odd.map((type) => ({ type, userId: 'u' }))],
    });
    expect(res.status).toBe(200);
    expect(res.json.rejected).toHaveLength(odd.length);

    const answer = await request(`${ui.apiUrl}/stats`, { headers: { authorization: `Bearer ${ui.token}` } });
    const text = await answer.body.text();
    expect(answer.statusCode).toBe(200);
    const { types, messages } = JSON.parse(text) as { types: Record<string, unknown>; messages: Record<string, number> };
    expect(messages).toMatchObject({ accepted: 1, rejected: odd.length });
    expect(Object.entries(types).sort()).toEqual(
      [['track', 1], ['constructor', 1], ['toString', 2], ['__proto__', 1], ['hasOwnProperty', 1], ['valueOf', 1]].sort(),
    );
    expect(text).not.toContain('native code');
    // In the process too (what the HTTP API serializes): own properties, numbers only.
    const inProcess = (await core.queries.stats()).types;
    expect(Object.hasOwn(inProcess, '__proto__')).toBe(true);
    expect(Object.values(inProcess).every((n) => typeof n === 'number')).toBe(true);
  });

  it('counts deliveries pending, cancelled, skipped and delivered, and messages after a clear, as every row says', async () => {
    const received: string[] = [];
    const { createServer } = await import('node:http');
    const hook = createServer((req, res) => (req.resume(), req.on('end', () => (received.push(req.url ?? ''), res.end('ok')))));
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = hook.address() as { port: number };
      core = await startCore({
        config: parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web' }], destinations: [{ name: 'hooks', sources: ['web'], webhooks: [{ url: `http://127.0.0.1:${port}/in` }] }] }), '--config'),
      });
      const web = { ingestUrl: core.ingestUrl, writeKey: 'wk_web' };
      await post(web, '/v1/track', { userId: 'u', event: 'Sent', messageId: 'sent-1' });
      await core.queries.waitForDeliveries({ messageId: 'sent-1' }, { status: 'delivered' });
      await core.operations['delivery.hold']({ held: true });
      await post(web, '/v1/batch', { batch: [1, 2, 3].map((i) => ({ type: 'track', userId: 'u', event: 'Held', messageId: `held-${i}` })) });
      await post(web, '/v1/track', { userId: 'u', event: 'Off', messageId: 'off-1', integrations: { All: false } });
      await post(web, '/v1/identify', { userId: 'u', traits: { a: 1 }, messageId: 'who-1' });
      const held = await core.queries.waitForDeliveries({ event: 'Held' }, { status: 'pending', count: 3 });
      await core.operations['deliveries.cancel']({ ids: [held[0]!.id] });
      await core.operations['storage.clear']({ scope: { filter: { event: 'Sent' } }, dryRun: false });
      const messages = await core.queries.rows({});
      const deliveries = await core.queries.deliveries({});
      const count = (values: string[]) => values.reduce<Record<string, number>>((out, v) => ((out[v] = (out[v] ?? 0) + 1), out), {});
      const stats = await core.queries.stats();
      expect(stats).toEqual({
        messages: { accepted: messages.length, rejected: 0, duplicate: 0 },
        types: count(messages.map((row) => String(row.message.type))),
        deliveries: count(deliveries.map((d) => d.status)),
      });
      // Two held tracks and the identify wait, one held track was cancelled, the message that turns every destination off was skipped.
      expect(stats.deliveries).toEqual({ pending: 3, cancelled: 1, skipped: 1 });
      expect(stats.types).toEqual({ track: 4, identify: 1 });
    } finally {
      await core?.operations['delivery.hold']({ held: false });
      await new Promise((resolve) => hook.close(resolve));
    }
  });
});
