// Parity with Segment's own server library: the same calls through @segment/analytics-node and
// through our client, into the same real endpoint; the stored messages must agree field by field,
// apart from what is by nature per client (ids, times, context.library) and the differences listed.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Analytics } from '@segment/analytics-node';
import { Client, type ClientError } from '../../../electron/client/index.ts';
import { startCore, storedMessages, waitForStored, type TestCore } from '../../helpers/core.ts';

let core: TestCore;
beforeEach(async () => {
  core = await startCore();
});
afterEach(async () => {
  await core.dispose();
});

const T = '2026-11-20T08:30:00.123Z';

/** The same calls in the shape both libraries take; fresh objects each time (analytics-node mutates them). */
const calls = () =>
  [
    { method: 'identify', args: { userId: 'u_1', traits: { email: 'ada@example.com', plan: 'pro', logins: 3, tags: ['a', 'b'] }, timestamp: new Date(T) } },
    {
      method: 'track',
      args: {
        userId: 'u_1',
        event: 'Order Completed',
        properties: { revenue: 99.5, currency: 'EUR', items: [{ sku: 'a', qty: 2 }], gift: false, note: null },
        context: { ip: '203.0.113.9', device: { model: 'Pixel 9', type: 'android' } },
        integrations: { All: false, Webhooks: true },
      },
    },
    { method: 'track', args: { anonymousId: 'anon_9', event: 'Viewed' } },
    { method: 'page', args: { anonymousId: 'anon_9', name: 'Pricing', category: 'Marketing', properties: { path: '/pricing', url: 'https://example.com/pricing', title: 'Pricing', referrer: 'https://google.com' } } },
    { method: 'page', args: { userId: 'u_1', name: 'Home' } },
    { method: 'screen', args: { userId: 'u_1', name: 'Checkout', properties: { step: 2 }, context: { app: { name: 'Shop', version: '1.2.0', build: '42' }, os: { name: 'Android', version: '15' } } } },
    { method: 'group', args: { userId: 'u_1', groupId: 'g_7', traits: { name: 'Acme', employees: 50 } } },
    { method: 'alias', args: { userId: 'u_1', previousId: 'anon_9' } },
  ] as const;

/** What legitimately differs between two clients sending the same call. */
function comparable(message: Record<string, any>): Record<string, any> {
  const { messageId, timestamp, sentAt, receivedAt, _metadata, ...rest } = message;
  void messageId, timestamp, sentAt, receivedAt, _metadata;
  // originalTimestamp is the client's clock at the call, unless the call gave a timestamp.
  if (rest.originalTimestamp !== T) delete rest.originalTimestamp;
  const { library, ...context } = rest.context ?? {};
  void library;
  rest.context = context;
  // analytics-node sends `integrations: {}` when the call has none: the same as none.
  if (rest.integrations && Object.keys(rest.integrations).length === 0) delete rest.integrations;
  return rest;
}

it('the same calls store the same messages as @segment/analytics-node', async () => {
  const count = calls().length;
  let stored = waitForStored(core, count);
  const analytics = new Analytics({ writeKey: core.writeKey, host: core.ingestUrl, flushAt: count, maxRetries: 0 });
  const segmentErrors: unknown[] = [];
  analytics.on('error', (error) => segmentErrors.push(error));
  for (const call of calls()) (analytics as any)[call.method](call.args);
  await analytics.closeAndFlush({ timeout: 10_000 });
  await stored;

  stored = waitForStored(core, count);
  const errors: ClientError[] = [];
  const client = new Client(core.writeKey, { endpoint: core.ingestUrl, flushAt: count, onError: (e) => errors.push(e) });
  for (const call of calls()) (client as any)[call.method](call.args);
  await client.close();
  await stored;
  expect(segmentErrors).toEqual([]);
  expect(errors).toEqual([]);

  const records = storedMessages(core);
  expect(records).toHaveLength(2 * count);
  const theirs = records.slice(0, count);
  const ours = records.slice(count);
  for (const r of theirs) expect((r.message!.context as any).library.name).toBe('@segment/analytics-node');
  for (const r of ours) expect((r.message!.context as any).library.name).toBe('sluice-client');

  calls().forEach((call, i) => {
    const a = comparable(theirs[i]!.message!);
    const b = comparable(ours[i]!.message!);
    if (call.method === 'page' && 'category' in call.args) {
      // The one difference: analytics-node also copies a page's category into its properties; the
      // seed's client sends the page's traits as they are (the category stays a top-level field).
      expect(a.properties).toEqual({ ...b.properties, category: call.args.category });
      a.properties = b.properties;
    }
    expect(b, `${call.method} #${i}`).toEqual(a);
    // Inspector columns agree too.
    expect([ours[i]!.type, ours[i]!.userId, ours[i]!.anonymousId, ours[i]!.event, ours[i]!.status]).toEqual([
      theirs[i]!.type,
      theirs[i]!.userId,
      theirs[i]!.anonymousId,
      theirs[i]!.event,
      theirs[i]!.status,
    ]);
  });
  // Both send a timestamp with every message, and a sentAt with every request.
  for (const r of records) {
    expect(typeof r.message!.originalTimestamp).toBe('string');
    expect(typeof r.message!.sentAt).toBe('string');
  }
});
