// A test of an app's tracking with Node's own test runner and Segment's library, against a Sluice the
// test starts itself. Run it with `node --test examples/node-test/checkout.test.mjs` (after `npm i -D sluice
// @segment/analytics-node`; Node 22.19 or newer).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Analytics } from '@segment/analytics-node';
import { startSluice } from 'sluice/testing';

let sluice;
before(async () => {
  sluice = await startSluice({ config: { sources: [{ name: 'shop', writeKey: 'wk_shop' }] } });
});
after(() => sluice.close());

/** The code under test: what the app does when an order completes. */
async function completeOrder(analytics, userId, total) {
  analytics.track({ userId, event: 'Order Completed', properties: { total, currency: 'EUR' } });
}

test('a completed order is tracked with its total', async () => {
  const analytics = new Analytics({ writeKey: sluice.writeKey, host: sluice.ingestUrl });
  await completeOrder(analytics, 'u_1', 42);
  await analytics.closeAndFlush();
  const [order] = await sluice.waitForMessages({ event: 'Order Completed', userId: 'u_1' });
  assert.deepEqual(order.properties, { total: 42, currency: 'EUR' });
  assert.equal(order.status, 'accepted');
});

test('nothing else was sent', async () => {
  assert.deepEqual((await sluice.messages()).map((m) => m.event), ['Order Completed']);
});
