// The standard Segment snippet with its production write key, unchanged: analytics.js, its settings
// and its events go to Segment's hosts as in production, and the fixture answers them from Sluice.
import { expect, test } from 'sluice/playwright';
import { SEGMENT_KEY } from './shop.mjs';

/** Records every request of the page (URL, and whether it failed). */
function recorder(page) {
  const seen = { requests: [], failed: [] };
  page.on('request', (request) => seen.requests.push(`${request.method()} ${request.url()}`));
  page.on('requestfailed', (request) => seen.failed.push(`${request.url()}: ${request.failure()?.errorText}`));
  return seen;
}

test('the snippet loads analytics.js, its settings and sends its events through the production hosts to Sluice', async ({ page, sluice }) => {
  const seen = recorder(page);
  await page.goto(`${process.env.SHOP_URL}/segment`);
  const [view] = await sluice.waitForMessages({ type: 'page' }, { timeoutMs: 10_000 });
  await page.getByRole('button', { name: 'Buy' }).click();
  const [order] = await sluice.waitForMessages({ event: 'Order Completed' }, { timeoutMs: 10_000 });
  expect(order.properties).toEqual({ total: 42, currency: 'EUR' });
  expect(order.context.library.name).toBe('analytics.js');
  // The key no source has is taken as the relay's own source's.
  expect(order.source).toBe(view.source);
  expect(order.status).toBe('accepted');
  test.info().annotations.push({ type: 'requests', description: JSON.stringify(seen) }, { type: 'writeKey', description: SEGMENT_KEY });
});
