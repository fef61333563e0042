// Segment's own server libraries, unmodified, sending through the real endpoint into a real SQLite file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Analytics } from '@segment/analytics-node';
// The older library (v6), still widely deployed.
import LegacyAnalytics from 'analytics-node';
import { startCore, storedMessages, waitForStored, type TestCore } from '../../helpers/core.ts';

let core: TestCore;
beforeEach(async () => {
  core = await startCore();
});
afterEach(async () => {
  await core.dispose();
});

const T = '2026-11-20T08:30:00.123Z';

/** The six calls, in the shapes both libraries take; fresh objects each time (clients mutate them). */
const makeCalls = () => [
  { method: 'identify', args: { userId: 'u_1', traits: { email: 'ada@example.com', plan: 'pro', logins: 3 }, timestamp: new Date(T) } },
  { method: 'track', args: { userId: 'u_1', event: 'Order Completed', properties: { revenue: 99.5, currency: 'EUR', items: [{ sku: 'a', qty: 2 }] }, context: { ip: '203.0.113.9', device: { model: 'Pixel 9', type: 'android' } } } },
  { method: 'page', args: { anonymousId: 'anon_9', name: 'Pricing', category: 'Marketing', properties: { path: '/pricing', url: 'https://example.com/pricing', title: 'Pricing', referrer: 'https://google.com' } } },
  { method: 'screen', args: { userId: 'u_1', name: 'Checkout', properties: { step: 2 }, context: { app: { name: 'Shop', version: '1.2.0', build: '42' }, os: { name: 'Android', version: '15' } } } },
  { method: 'group', args: { userId: 'u_1', groupId: 'g_7', traits: { name: 'Acme', employees: 50 } } },
  { method: 'alias', args: { userId: 'u_1', previousId: 'anon_9' } },
] as const;
const calls = makeCalls();

function expectStoredLike(record: ReturnType<typeof storedMessages>[number], call: (typeof calls)[number]) {
  const message = record.message!;
  const { args } = call;
  expect(record.status).toBe('accepted');
  expect(message.type).toBe(call.method);
  expect(typeof message.messageId).toBe('string');
  expect(message.messageId).toBe(record.messageId);
  for (const [key, value] of Object.entries(args)) {
    if (key === 'timestamp') {
      // The client's time is kept as originalTimestamp; timestamp is corrected for clock skew.
      expect(message.originalTimestamp).toBe(T);
      expect(typeof message.timestamp).toBe('string');
    } else if (key === 'context') {
      expect(message.context).toMatchObject(value as object);
    } else if (key === 'properties' && call.method === 'page') {
      // analytics-node v3 also copies the page's category into its properties.
      expect(message.properties).toMatchObject(value as object);
    } else {
      expect(message[key]).toEqual(value);
    }
  }
  // Columns the inspector lists on.
  expect(record.type).toBe(call.method);
  if ('userId' in args) expect(record.userId).toBe(args.userId);
  if ('anonymousId' in args) expect(record.anonymousId).toBe(args.anonymousId);
  if (call.method === 'track') expect(record.event).toBe('Order Completed');
  if (call.method === 'page' || call.method === 'screen') expect(record.event).toBe((args as { name: string }).name);
  expect(Date.parse(message.receivedAt as string)).toBe(record.receivedAt);
}

describe('@segment/analytics-node (v3)', () => {
  it('sends identify, track, page, screen, group and alias; each is stored field by field', async () => {
    const analytics = new Analytics({ writeKey: core.writeKey, host: core.ingestUrl, flushAt: 6, maxRetries: 0 });
    const errors: unknown[] = [];
    const sent: Record<string, unknown>[] = [];
    analytics.on('error', (error) => errors.push(error));
    analytics.on('http_request', (request) => sent.push(...(JSON.parse(request.body as string) as { batch: Record<string, unknown>[] }).batch));
    const stored = waitForStored(core, calls.length);
    for (const call of makeCalls()) (analytics as any)[call.method](call.args);
    await analytics.closeAndFlush({ timeout: 10_000 });
    await stored;
    expect(errors).toEqual([]);

    const records = storedMessages(core);
    expect(records).toHaveLength(calls.length);
    calls.forEach((call, i) => expectStoredLike(records[i]!, call));
    for (const record of records) {
      expect((record.message!.context as any).library.name).toBe('@segment/analytics-node');
      expect(typeof record.message!.sentAt).toBe('string');
    }
    // What the library put on the wire is exactly what was stored as received (ids, timestamps and all).
    expect(records.map((r) => JSON.parse(r.raw))).toEqual(sent);
    expect(records.map((r) => r.messageId)).toEqual(sent.map((m) => m.messageId));
    expect(records.map((r) => r.message!.originalTimestamp)).toEqual(sent.map((m) => m.timestamp));
  });
});

describe('analytics-node (v6)', () => {
  it('sends identify, track, page, screen, group and alias; each is stored field by field', async () => {
    const analytics = new LegacyAnalytics(core.writeKey, { host: core.ingestUrl, flushAt: 100, flushInterval: 60_000, errorHandler: () => {} } as any);
    const stored = waitForStored(core, calls.length);
    // v6 sends its first message at once and the rest on flush: collect every batch it sent.
    const sentById = new Map<string, Record<string, unknown>>();
    const onSent = (error?: Error, data?: { batch: Record<string, unknown>[] }) => {
      if (!error) for (const message of data!.batch) sentById.set(message.messageId as string, message);
    };
    for (const call of makeCalls()) (analytics as any)[call.method](call.args, onSent);
    await new Promise<void>((resolve, reject) => analytics.flush((error?: Error) => (error ? reject(error) : resolve())));
    await stored;
    const sent = [...sentById.values()];

    const records = storedMessages(core);
    expect(records).toHaveLength(calls.length);
    calls.forEach((call, i) => expectStoredLike(records[i]!, call));
    for (const record of records) expect((record.message!.context as any).library.name).toBe('analytics-node');
    // The library's messages (Dates serialized as it sends them) are exactly what was stored as received.
    expect(records.map((r) => JSON.parse(r.raw))).toEqual(JSON.parse(JSON.stringify(sent)));
    expect(records.map((r) => r.messageId)).toEqual(sent.map((m) => m.messageId));
  });
});
