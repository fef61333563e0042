// The client library end to end: each message type through the real ingestion endpoint into a real
// SQLite store, checked field by field; and the request the client makes (path, auth, headers).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, ClientError, LIBRARY, type BatchResult } from '../../../electron/client/index.ts';
import pkg from '../../../package.json' with { type: 'json' };
import { startCore, storedMessages, waitForStored, type TestCore } from '../../helpers/core.ts';
import { startScriptedServer } from '../../helpers/client-helpers.ts';

let core: TestCore;
beforeEach(async () => {
  core = await startCore();
});
afterEach(async () => {
  await core.dispose();
});

const T = '2026-11-20T08:30:00.123Z';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('every message type, end to end', () => {
  it('identify, track, page, screen, group and alias are stored with every field the call gave', async () => {
    const errors: ClientError[] = [];
    const results: BatchResult[] = [];
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, onError: (e) => errors.push(e), onSuccess: (r) => results.push(r) });
    const stored = waitForStored(core, 6);
    expect(client.identify({ userId: 'u_1', traits: { email: 'ada@example.com', plan: 'pro', logins: 3 }, timestamp: new Date(T), integrations: { All: false, Webhooks: true } })).toBe(true);
    client.track({
      userId: 'u_1',
      event: 'Order Completed',
      properties: { revenue: 99.5, currency: 'EUR', items: [{ sku: 'a', qty: 2 }], note: 'ünïcødé ✓' },
      context: { ip: '203.0.113.9', device: { model: 'Pixel 9', type: 'android' } },
      messageId: 'order-1',
    });
    client.page({
      anonymousId: 'anon_9',
      name: 'Pricing',
      category: 'Marketing',
      traits: { url: 'https://example.com/pricing', title: 'Pricing', referrer: 'https://google.com', path: '/pricing', experiment: 'b' },
    });
    client.screen({
      userId: 'u_1',
      name: 'Checkout',
      category: 'Shop',
      properties: { step: 2 },
      context: { app: { name: 'Shop', version: '1.2.0', build: '42' }, os: { name: 'Android', version: '15' }, device: { model: 'Pixel 9', type: 'android' } },
    });
    client.group({ userId: 'u_1', groupId: 'g_7', traits: { name: 'Acme', employees: 50 } });
    client.alias({ userId: 'u_1', previousId: 'anon_9' });
    await client.close();
    await stored;
    expect(errors).toEqual([]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ count: 6, status: 200, attempts: 1, rejected: [] });

    const records = storedMessages(core);
    expect(records.map((r) => r.status)).toEqual(Array(6).fill('accepted'));
    const [identify, track, page, screen, group, alias] = records.map((r) => r.message!);
    expect(records.map((r) => r.messageId)).toEqual(results[0]!.messageIds);

    for (const m of [identify, track, page, screen, group, alias]) {
      expect(m!.context).toMatchObject({ library: { name: 'sluice-client', version: pkg.version } });
      expect(m!.sentAt).toMatch(ISO);
      expect(m!.receivedAt).toMatch(ISO);
      expect(m!.timestamp).toMatch(ISO);
      expect(m!.originalTimestamp).toMatch(ISO); // the client always sends its time
    }
    expect(LIBRARY).toEqual({ name: 'sluice-client', version: pkg.version });

    expect(identify).toMatchObject({ type: 'identify', userId: 'u_1', traits: { email: 'ada@example.com', plan: 'pro', logins: 3 }, originalTimestamp: T, integrations: { All: false, Webhooks: true } });
    expect(track).toMatchObject({
      type: 'track',
      userId: 'u_1',
      event: 'Order Completed',
      messageId: 'order-1',
      properties: { revenue: 99.5, currency: 'EUR', items: [{ sku: 'a', qty: 2 }], note: 'ünïcødé ✓' },
      context: { ip: '203.0.113.9', device: { model: 'Pixel 9', type: 'android' } },
    });
    expect(page).toMatchObject({
      type: 'page',
      anonymousId: 'anon_9',
      name: 'Pricing',
      category: 'Marketing',
      properties: { url: 'https://example.com/pricing', title: 'Pricing', referrer: 'https://google.com', path: '/pricing', experiment: 'b' },
    });
    expect(page!.traits).toBeUndefined();
    expect(page!.userId).toBeUndefined();
    expect(screen).toMatchObject({
      type: 'screen',
      userId: 'u_1',
      name: 'Checkout',
      category: 'Shop',
      properties: { step: 2 },
      context: { app: { name: 'Shop', version: '1.2.0', build: '42' }, os: { name: 'Android', version: '15' }, device: { model: 'Pixel 9', type: 'android' } },
    });
    expect(group).toMatchObject({ type: 'group', userId: 'u_1', groupId: 'g_7', traits: { name: 'Acme', employees: 50 } });
    expect(alias).toMatchObject({ type: 'alias', userId: 'u_1', previousId: 'anon_9' });
    // Columns the inspector lists on.
    expect(records.map((r) => r.type)).toEqual(['identify', 'track', 'page', 'screen', 'group', 'alias']);
    expect(records[1]!.event).toBe('Order Completed');
    expect(records[2]!.event).toBe('Pricing');
    expect(records[2]!.anonymousId).toBe('anon_9');
    // Skew correction uses the batch's sentAt: the historical timestamp comes back unchanged (to the clock skew, here ~0).
    expect(Math.abs(Date.parse(identify!.timestamp as string) - Date.parse(T))).toBeLessThan(5_000);
  });

  it('refuses invalid messages with a typed error at the call and sends nothing for them', async () => {
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, flushAt: 1 });
    const codes: string[] = [];
    for (const call of [
      () => client.track({ userId: 'u' } as never),
      () => client.identify({} as never),
      () => client.group({ userId: 'u' } as never),
      () => client.alias({ userId: 'u' } as never),
      () => client.page({ userId: 'u', traits: 'x' as never, properties: {} }),
    ]) {
      try {
        call();
      } catch (error) {
        expect(error).toBeInstanceOf(ClientError);
        codes.push((error as ClientError).code);
      }
    }
    expect(codes).toEqual(['missing_event', 'missing_user', 'missing_group_id', 'missing_previous_id', 'invalid_field']);
    expect(client.state.queued).toBe(0);
    const stored = waitForStored(core, 1);
    client.track({ userId: 'u', event: 'Valid' });
    await client.close();
    await stored;
    expect(storedMessages(core, 'all').map((r) => r.event)).toEqual(['Valid']);
  });
});

describe('the request', () => {
  it('is POST {endpoint}/v1/batch with the write key as Basic auth, JSON, sentAt per request', async () => {
    const server = await startScriptedServer(() => ({ status: 200 }));
    try {
      const client = new Client('wk_secret', { endpoint: `${server.url}/prefix/`, flushAt: 2 });
      client.track({ userId: 'u', event: 'A' });
      client.track({ userId: 'u', event: 'B' });
      await client.close();
      expect(server.requests).toHaveLength(1);
      const [request] = server.requests;
      expect(request!.url).toBe('/prefix/v1/batch');
      expect(request!.headers.authorization).toBe(`Basic ${Buffer.from('wk_secret:').toString('base64')}`);
      expect(request!.headers['content-type']).toBe('application/json');
      expect(request!.headers['user-agent']).toBe(`sluice-client/${pkg.version}`);
      expect(request!.body.sentAt).toMatch(ISO);
      expect(Math.abs(Date.parse(request!.body.sentAt) - Date.now())).toBeLessThan(5_000);
      expect(request!.body.batch.map((m) => m.event)).toEqual(['A', 'B']);
      expect(JSON.stringify(request!.body)).not.toContain('wk_secret');
    } finally {
      await server.close();
    }
  });
});
