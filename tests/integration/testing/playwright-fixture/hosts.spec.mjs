// Hosts other than Segment's and RudderStack's defaults: a first-party proxy setup (analytics.js from the
// shop's own CDN host, events to its own API host) and a custom RudderStack data plane.
import { expect, test } from 'sluice/playwright';

const proxyHosts = { segmentCdn: ['cdn.shop.example'], segmentApi: ['api.shop.example'], rudderDataPlane: ['dp.shop.example'] };

test.describe('configured hosts', () => {
  test.use({ sluiceIntercept: { hosts: proxyHosts } });

  test('a Segment proxy setup reaches Sluice through the configured hosts', async ({ page, sluice }) => {
    const hosts = new Set();
    page.on('request', (request) => hosts.add(new URL(request.url()).host));
    await page.goto(`${process.env.SHOP_URL}/segment-proxy`);
    await page.getByRole('button', { name: 'Buy' }).click();
    const [order] = await sluice.waitForMessages({ event: 'Order Completed' }, { timeoutMs: 10_000 });
    expect(order.properties).toEqual({ total: 42, currency: 'EUR' });
    test.info().annotations.push({ type: 'hosts', description: JSON.stringify([...hosts].sort()) });
  });

  test('a RudderStack data plane of its own reaches Sluice', async ({ page, sluice }) => {
    await page.goto(`${process.env.SHOP_URL}/rudder?dataPlane=${encodeURIComponent('https://dp.shop.example')}`);
    await page.getByRole('button', { name: 'Buy' }).click();
    const [order] = await sluice.waitForMessages({ event: 'Order Completed' }, { timeoutMs: 10_000 });
    expect(order.properties).toEqual({ total: 42, currency: 'EUR' });
    expect(order.context.library.name).toBe('RudderLabs JavaScript SDK');
  });
});

test.describe('hosts not configured', () => {
  test('the proxy setup is not routed: its analytics.js is asked of the network, and nothing reaches Sluice', async ({ page, sluice }) => {
    const failed = page.waitForEvent('requestfailed', (request) => new URL(request.url()).host === 'cdn.shop.example');
    await page.goto(`${process.env.SHOP_URL}/segment-proxy`);
    await failed;
    expect(await sluice.messages()).toEqual([]);
  });

  test.describe('routed by hand', () => {
    test.use({ sluiceIntercept: false });
    test('sluice.intercept(page, { hosts }) routes a page the fixture left alone', async ({ page, sluice }) => {
      await sluice.intercept(page, { hosts: proxyHosts });
      await page.goto(`${process.env.SHOP_URL}/segment-proxy`);
      await page.getByRole('button', { name: 'Buy' }).click();
      await sluice.waitForMessages({ event: 'Order Completed' }, { timeoutMs: 10_000 });
    });
  });
});
