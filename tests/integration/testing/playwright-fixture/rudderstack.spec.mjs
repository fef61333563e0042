// RudderStack's browser SDK from npm with its production write key, its default control plane
// (api.rudderstack.com) and a data plane on rudderstack.com: both answered from Sluice.
import { expect, test } from 'sluice/playwright';

test('the SDK gets its source config and sends its events through RudderStack\'s hosts to Sluice', async ({ page, sluice }) => {
  const hosts = new Set();
  page.on('request', (request) => hosts.add(new URL(request.url()).host));
  await page.goto(`${process.env.SHOP_URL}/rudder`);
  await page.getByRole('button', { name: 'Buy' }).click();
  const [order] = await sluice.waitForMessages({ event: 'Order Completed' }, { timeoutMs: 10_000 });
  expect(order.properties).toEqual({ total: 42, currency: 'EUR' });
  expect(order.context.library.name).toBe('RudderLabs JavaScript SDK');
  test.info().annotations.push({ type: 'hosts', description: JSON.stringify([...hosts].sort()) });
});
