// What an app's checkout tracks, asserted with Sluice's matchers in Jest, against a Sluice the test
// starts itself, with Segment's library sending as the app does (`npm i -D sluice jest
// @segment/analytics-node`; Node 22.19 or newer).
import { Analytics } from '@segment/analytics-node';
import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { startSluice } from 'sluice/testing';

let sluice;
beforeAll(async () => {
  sluice = await startSluice({
    config: {
      sources: [{ name: 'shop', writeKey: 'wk_shop' }],
      // Deliveries to Sluice's own webhook receiver, and a tracking plan for the checkout's events.
      destinations: [{ name: 'warehouse', sources: ['shop'], webhooks: [{ url: 'sluice://receiver/warehouse' }] }],
      trackingPlans: [{ name: 'checkout', sources: ['shop'], plan: { events: { 'Checkout Started': { type: 'object' }, 'Order Completed': { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] } } } }],
    },
  });
});
afterAll(() => sluice.close());
beforeEach(() => sluice.reset());

/** The code under test: what the app sends on checkout. */
async function checkout(userId, total) {
  const analytics = new Analytics({ writeKey: sluice.writeKey, host: sluice.ingestUrl });
  analytics.track({ userId, event: 'Checkout Started', properties: { total } });
  analytics.track({ userId, event: 'Order Completed', properties: { total, currency: 'EUR' } });
  await analytics.closeAndFlush();
}

test('a completed order is tracked with its total, after the checkout started', async () => {
  await checkout('u_1', 42);
  await expect(sluice).toHaveReceived({ event: 'Order Completed', userId: 'u_1', properties: { total: 42 } });
  await expect(sluice).toHaveReceived({ userId: 'u_1' }, { count: 2 });
  await expect(sluice).toHaveReceivedInOrder([{ event: 'Checkout Started' }, { event: 'Order Completed' }]);
  await expect(sluice).toHaveNoViolations();
});

test('the order reaches the warehouse webhook', async () => {
  await checkout('u_2', 10);
  await expect(sluice).toHaveDelivered({ event: 'Order Completed', userId: 'u_2' }, { destination: 'warehouse' });
});

test('no card number is ever sent', async () => {
  await checkout('u_3', 5);
  await expect(sluice).not.toHaveReceived({ properties: { cardNumber: '4242424242424242' } }, { within: 300 });
});
