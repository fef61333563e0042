// A page that loads Segment's analytics.js (@segment/analytics-next) from Sluice, a click, and the event
// asserted with sluice/testing — the loop a pull request's end-to-end test runs. `npx playwright test -c
// examples/playwright/playwright.config.mjs` (after `npm i -D sluice @segment/analytics-next @playwright/test`).
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startSluice } from 'sluice/testing';

const umd = path.join(path.dirname(createRequire(import.meta.url).resolve('@segment/analytics-next/package.json')), 'dist/umd');

let sluice;
let site;

/** The app under test: a checkout button, tracked with analytics.js loaded from Sluice (cdnURL). */
function page(writeKey, cdnURL) {
  return `<!doctype html><meta charset="utf-8"><title>Shop</title>
<script src="/umd/index.js"></script>
<button id="checkout">Checkout</button>
<script>
  const ready = AnalyticsNext.AnalyticsBrowser.load(${JSON.stringify({ writeKey, cdnURL })});
  document.getElementById('checkout').addEventListener('click', async () => {
    const [analytics] = await ready;
    await analytics.track('Checkout Clicked', { plan: 'pro', items: 2 });
  });
</script>`;
}

test.beforeAll(async () => {
  sluice = await startSluice({ config: { sources: [{ name: 'shop', writeKey: 'wk_shop', kind: 'web' }] } });
  site = http.createServer((req, res) => {
    if (req.url?.startsWith('/umd/')) {
      const file = path.join(umd, path.basename(req.url));
      if (!fs.existsSync(file)) return res.writeHead(404).end();
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(file));
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(sluice.writeKey, sluice.ingestUrl));
  });
  await new Promise((resolve) => site.listen(0, '127.0.0.1', resolve));
});

test.afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
  await sluice?.close();
});

test('clicking Checkout tracks it with the plan', async ({ page: browser }) => {
  await browser.goto(`http://127.0.0.1:${site.address().port}/`);
  await browser.getByRole('button', { name: 'Checkout' }).click();
  const [clicked] = await sluice.waitForMessages({ event: 'Checkout Clicked', source: 'shop' });
  expect(clicked.properties).toEqual({ plan: 'pro', items: 2 });
  expect(clicked.context.library.name).toBe('analytics.js');
  // The page view analytics.js sends by itself is not asserted; nothing else was tracked.
  expect((await sluice.messages({ type: 'track' })).map((m) => m.event)).toEqual(['Checkout Clicked']);
});
