// sluice/playwright: the shop's page keeps its analytics.js snippet and production write key; the
// fixture routes Segment's CDN and Tracking API to this worker's Sluice, reset before each test, and
// expect has Sluice's matchers.
//
// (b) and (d) FAIL ON PURPOSE, to show what a failure says: the closest message and what differs, and
// the order the events were stored in. Sluice's test suite runs this file and checks that (a) and (c)
// pass and (b) and (d) fail with those messages.
import { expect, test } from 'sluice/playwright';

test.beforeEach(async ({ page }) => {
  await page.goto(process.env.SHOP_URL);
  await page.getByRole('button', { name: 'Buy' }).click();
});

test('(a) buying tracks Order Completed with the total', async ({ sluice }) => {
  await expect(sluice).toHaveReceived({ event: 'Order Completed', properties: { total: 42, currency: 'EUR' } });
});

test('(b) fails: a wrong total, shown with the diff', async ({ sluice }) => {
  await expect(sluice).toHaveReceived({ event: 'Order Completed', properties: { total: 43 } }, { timeoutMs: 1_000 });
});

test('(c) no refund is tracked within 500 ms', async ({ sluice }) => {
  await expect(sluice).toHaveReceived({ event: 'Order Completed' });
  await test.step('watch 500 ms for a refund', async () => {
    await expect(sluice).not.toHaveReceived({ event: 'Order Refunded' }, { within: 500 });
  });
});

test('(d) fails: the events in the reverse order', async ({ sluice }) => {
  await expect(sluice).toHaveReceivedInOrder([{ event: 'Order Completed' }, { event: 'Checkout Started' }]);
});
