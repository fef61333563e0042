// The inspector end to end: the built renderer (out/renderer) served by the headless host over a real
// core, a real webhook receiver and the built-in one, driven in Chromium the way a user would — by
// role and label. Events come from Segment's own Node client.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Analytics } from '@segment/analytics-node';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UiServer } from '../../electron/host/ui-server.ts';
import { browserUnavailableReason, launchBrowser } from '../helpers/browser.ts';
import { post, startCore, type TestCore } from '../helpers/core.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rendererDir = path.join(repoRoot, 'out/renderer');
const screenshots = path.join(repoRoot, 'test-results/screenshots');
const SECRET = 'e2e-shared-secret';
const TOKEN = 'tok_e2e_51d2';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[inspector e2e] skipped: ${skipReason}`);

/** `npm test` builds the renderer first; run alone, this test builds it when it is missing. */
function ensureRenderer(): void {
  if (fs.existsSync(path.join(rendererDir, 'index.html'))) return;
  execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'renderer/vite.config.ts'], {
    cwd: repoRoot,
    stdio: 'inherit',
    timeout: 120_000,
  });
}

describe.skipIf(skipReason !== null)('the inspector in Chromium, served by the headless host', () => {
  let core: TestCore;
  let ui: UiServer;
  let receiver: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const offsite: string[] = [];

  beforeAll(async () => {
    ensureRenderer();
    fs.mkdirSync(screenshots, { recursive: true });
    core = await startCore({
      config: {
        sources: [
          { name: 'web', writeKey: 'wk_web', kind: 'web' },
          { name: 'mobile', writeKey: 'wk_mobile', kind: 'mobile' },
          { name: 'bulk', writeKey: 'wk_bulk', kind: 'server' },
        ],
        destinations: [],
      },
    });
    receiver = await startReceiver();
    core.saveDestination({ name: 'hooks', sources: ['web'], sharedSecret: SECRET, webhooks: [{ url: `${receiver.url}/hook`, headers: { 'X-Env': 'e2e', Authorization: `Bearer ${TOKEN}` } }] });
    // The mobile source's webhook (the built-in receiver) answers 503: retries, with a countdown.
    core.receiver.setBehaviour('flaky', { mode: 'status', status: 503 });
    core.saveDestination({ name: 'flaky', sources: ['mobile'], sharedSecret: 'other', webhooks: [{ url: core.receiver.hookUrl('flaky') }] });
    ui = new UiServer({ core, host: '127.0.0.1', port: 0, rendererDir });
    await ui.listen();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.baseUrl });
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    context.on('request', (request) => {
      if (!request.url().startsWith(ui.baseUrl) && !request.url().startsWith(ui.baseUrl.replace('http', 'ws'))) offsite.push(request.url());
    });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await ui?.close();
    await receiver?.close();
    await core?.dispose();
  });

  const list = () => page.getByRole('listbox', { name: 'Messages' });
  const row = (text: string | RegExp) => list().getByRole('option').filter({ hasText: text });
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`) });

  it('teaches when empty: the endpoint, the write key and snippets to paste', async () => {
    await page.goto(ui.url);
    await expect.poll(() => page.getByRole('heading', { name: 'No messages yet' }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await page.evaluate(() => (window as any).__sluice.transport)).toBe('websocket');
    const empty = page.getByRole('region', { name: 'No messages yet' });
    expect(await empty.getByText(core.ingestUrl, { exact: true }).count()).toBe(1);
    expect(await empty.getByText('wk_web', { exact: true }).count()).toBe(1);
    const snippet = page.getByLabel('@segment/analytics-node snippet', { exact: true });
    expect(await snippet.textContent()).toContain(`host: "${core.ingestUrl}"`);
    await page.getByRole('button', { name: 'curl', exact: true }).click();
    expect(await page.getByLabel('curl snippet', { exact: true }).textContent()).toContain(`-u wk_web: -H 'Content-Type: application/json' ${core.ingestUrl}/v1/track`);
    await page.getByRole('button', { name: 'analytics.js (@segment/analytics-next)', exact: true }).click();
    await shot('empty-state');
    // The top bar has the endpoint and key too, with copy buttons that work.
    await page.getByRole('button', { name: 'Copy ingest URL' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(core.ingestUrl);
  });

  it('shows messages from a real Segment client live, each with its delivery outcome', async () => {
    const web = new Analytics({ writeKey: 'wk_web', host: core.ingestUrl, flushAt: 1, maxRetries: 0 });
    web.track({ userId: 'u_ada', event: 'Order Completed', properties: { revenue: 42, currency: 'EUR', items: [{ sku: 'A-1' }, { sku: 'B-2' }] } });
    web.identify({ userId: 'u_bob', traits: { email: 'bob@example.com', plan: 'pro' } });
    web.page({ anonymousId: 'anon_7', name: 'Pricing', properties: { path: '/pricing' } });
    web.track({ userId: 'u_ada', event: 'Newsletter Opened', integrations: { Webhooks: false } });
    await web.closeAndFlush({ timeout: 10_000 });
    const mobile = new Analytics({ writeKey: 'wk_mobile', host: core.ingestUrl, flushAt: 1, maxRetries: 0 });
    mobile.screen({ userId: 'u_cy', name: 'Checkout' });
    await mobile.closeAndFlush({ timeout: 10_000 });
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch: [{ type: 'track', event: 'No User' }] });

    await expect.poll(() => list().getByRole('option').count(), { timeout: 10_000 }).toBe(6);
    await expect.poll(() => row('Order Completed').textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await expect.poll(() => row('u_bob').textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await expect.poll(() => row('Pricing').textContent(), { timeout: 10_000 }).toContain('anon_7');
    expect(await row('Newsletter Opened').textContent()).toContain('↷ skipped');
    expect(await row('No User').textContent()).toContain('⊘ rejected: missing_user');
    await expect.poll(() => row('Checkout').textContent(), { timeout: 10_000 }).toMatch(/⟳ next: attempt 2 (in \d+ s|now) · last: HTTP 503/);
    // Newest first; each row names its source.
    const texts = await list().getByRole('option').allTextContents();
    expect(texts[0]).toContain('No User');
    expect(texts[1]).toContain('Checkout');
    expect(texts[1]).toContain('mobile');
    expect(texts[5]).toContain('Order Completed');
    // Relative time in the row, absolute with milliseconds on hover.
    const time = row('Order Completed').locator('time');
    expect(await time.textContent()).toMatch(/just now|\d+ s ago/);
    expect(await time.getAttribute('title')).toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}/);
    await receiver.waitFor(3);
    await shot('stream');
  });

  it('filters by status, type, source and text, with the keyboard: / searches, Esc clears', async () => {
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('skipped');
    await expect.poll(() => list().getByRole('option').allTextContents()).toEqual([expect.stringContaining('Newsletter Opened')]);
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('');
    await page.getByRole('combobox', { name: 'Type', exact: true }).selectOption('identify');
    await expect.poll(() => list().getByRole('option').count()).toBe(1);
    await page.getByRole('combobox', { name: 'Type', exact: true }).selectOption('');
    await page.getByRole('combobox', { name: 'Source', exact: true }).selectOption({ label: 'mobile' });
    await expect.poll(() => list().getByRole('option').allTextContents()).toEqual([expect.stringContaining('Checkout')]);
    await page.getByRole('button', { name: 'Clear filters', exact: true }).click();
    await expect.poll(() => list().getByRole('option').count()).toBe(6);

    await page.locator('body').click({ position: { x: 700, y: 500 } });
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Search messages');
    await page.keyboard.type('u_ada');
    await expect.poll(() => list().getByRole('option').count()).toBe(2);
    await page.keyboard.press('Escape');
    await expect.poll(() => list().getByRole('option').count()).toBe(6);
    expect(await page.getByRole('combobox', { name: 'Search messages' }).inputValue()).toBe('');

    // ↑/↓ and j/k move the selection, Enter opens it.
    await list().focus();
    await page.keyboard.press('j');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    const selected = list().locator('[aria-selected="true"]');
    expect(await selected.textContent()).toContain('Checkout');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('region', { name: 'Message detail' }).getByRole('heading', { level: 2 }).textContent()).toBe('Checkout');
  });

  it('opens a message: payload, the webhook request exactly as sent, and a valid signature for the right secret', async () => {
    await row('Order Completed').click();
    const detail = page.getByRole('region', { name: 'Message detail' });
    await expect.poll(() => detail.getByRole('heading', { level: 2 }).textContent()).toBe('Order Completed');
    expect(await detail.getByRole('tab', { name: 'Message', exact: true }).getAttribute('aria-selected')).toBe('true');
    const tree = detail.getByRole('tree', { name: 'Normalized message' });
    expect(await tree.textContent()).toContain('"revenue": 42');
    await detail.getByRole('button', { name: 'As received', exact: true }).click();
    await detail.getByRole('button', { name: 'Raw', exact: true }).click();
    const raw = await detail.getByLabel('Raw JSON').textContent();
    const stored = core.messages.list({ limit: 100 }).find((m) => m.event === 'Order Completed')!;
    expect(raw).toBe(core.messages.get(stored.id)!.raw);
    await detail.getByRole('button', { name: 'Tree', exact: true }).click();
    await detail.getByRole('button', { name: 'Normalized', exact: true }).click();
    await shot('message');

    await detail.getByRole('tab', { name: 'Webhook request' }).click();
    const arrived = receiver.received.find((r) => r.body.includes('Order Completed'))!;
    expect(arrived).toBeDefined();
    expect(await detail.getByLabel('Webhook URL', { exact: true }).textContent()).toBe(`${receiver.url}/hook`);
    await detail.getByRole('group', { name: 'Body view' }).getByRole('button', { name: 'Raw' }).click(); // the exact text, not the tree
    expect(await detail.getByLabel('Request body', { exact: true }).textContent()).toBe(arrived.body);
    const headers = detail.getByRole('table', { name: 'Request headers' });
    expect(await headers.getByRole('row', { name: /X-Signature/ }).textContent()).toContain(String(arrived.headers['x-signature']));
    expect(await headers.getByRole('row', { name: /X-Env/ }).textContent()).toContain('e2e');
    expect(await headers.getByRole('row', { name: /User-Agent/ }).textContent()).toContain('Sluice/1.0');
    // A credential header is masked until revealed (its scheme stays readable); it was sent as it is.
    expect(arrived.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const authorization = headers.getByRole('row', { name: /Authorization/ });
    expect(await authorization.textContent()).toContain('Bearer ••••••••');
    expect(await headers.textContent()).not.toContain(TOKEN);
    await authorization.getByRole('button', { name: 'Reveal Authorization' }).click();
    // Revealing asks the relay for the header (deliveries.revealHeader): the text changes when it answers.
    await expect.poll(() => authorization.textContent()).toContain(`Bearer ${TOKEN}`);
    await authorization.getByRole('button', { name: 'Hide Authorization' }).click();
    expect(await headers.textContent()).not.toContain(TOKEN);

    await detail.getByLabel('Shared secret', { exact: true }).fill('not-the-secret');
    await detail.getByRole('button', { name: 'Check X-Signature' }).click();
    await expect.poll(() => detail.getByRole('status').textContent()).toContain('✗ Signature does not match');
    await detail.getByLabel('Shared secret', { exact: true }).fill(SECRET);
    await detail.getByRole('button', { name: 'Check X-Signature' }).click();
    await expect.poll(() => detail.getByRole('status').textContent()).toContain('✓ Signature matches');
    expect(await detail.getByRole('status').textContent()).toContain(String(arrived.headers['x-signature']));

    await detail.getByRole('tabpanel').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await shot('webhook-request');
    // The README's screenshot: written when missing, or again with SLUICE_UPDATE_SCREENSHOT=1 (not on every run).
    const docsShot = path.join(repoRoot, 'docs/screenshot.png');
    if (!fs.existsSync(docsShot) || process.env.SLUICE_UPDATE_SCREENSHOT === '1') {
      fs.mkdirSync(path.dirname(docsShot), { recursive: true });
      fs.copyFileSync(path.join(screenshots, 'webhook-request.png'), docsShot);
    }

    // Copy as curl reproduces the signed request.
    await detail.getByRole('button', { name: 'Copy as curl' }).click();
    // The copy lands a moment after the click: until then the clipboard holds the ingest URL copied above.
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('curl -X POST');
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`curl -X POST '${receiver.url}/hook'`);
    expect(curl).toContain(`-H 'X-Signature: ${arrived.headers['x-signature']}'`);
    expect(curl).toContain(`-H 'Authorization: Bearer ${TOKEN}'`); // the request as sent: copying is asking for it
    expect(curl).toContain(`--data-binary '${arrived.body.replace(/'/g, `'\\''`)}'`);
    // The destination's own secret, read on request, gives the same verdict.
    await detail.getByLabel('Shared secret', { exact: true }).fill('');
    await detail.getByRole('button', { name: 'Use “hooks” shared secret' }).click();
    await expect.poll(() => detail.getByRole('status').textContent()).toContain('✓ Signature matches');

    await detail.getByRole('tab', { name: /Attempts/ }).click();
    const attempts = detail.getByRole('list', { name: 'Attempts' });
    expect(await attempts.getByRole('listitem', { name: /^Attempt 1: HTTP 200 in \d+ ms$/ }).count()).toBe(1);
  });

  it('shows retries as a waterfall against the 5 s timeout, with the error, the response and the next attempt', async () => {
    await row('Checkout').click();
    const detail = page.getByRole('region', { name: 'Message detail' });
    await expect.poll(() => detail.getByRole('heading', { level: 2 }).textContent()).toBe('Checkout');
    await detail.getByRole('tab', { name: /Attempts/ }).click();
    const attempt = detail.getByRole('listitem', { name: /^Attempt 1: HTTP 503 in \d+ ms$/ });
    await expect.poll(() => attempt.count(), { timeout: 10_000 }).toBe(1);
    expect(await attempt.textContent()).toContain('the receiver answered 503; will retry');
    expect(await detail.getByText('5 s timeout').count()).toBe(1);
    expect(await detail.getByRole('button', { name: 'Retry now' }).isEnabled()).toBe(true);
    await attempt.getByText(/^Response 503/).click();
    expect(await detail.getByRole('table', { name: 'Response headers of attempt 1' }).count()).toBe(1);
    expect(await detail.textContent()).toMatch(/next attempt\s*attempt \d+ (in \d+ s|now)/);
    await shot('attempts');
    // Retry now: a second attempt appears without reloading.
    await detail.getByRole('button', { name: 'Retry now' }).click();
    await expect.poll(() => detail.getByRole('listitem', { name: /^Attempt 2: HTTP 503/ }).count(), { timeout: 10_000 }).toBe(1);
  });

  it('keeps up with a burst: thousands of rows arrive in frames, only the rows in view are in the page, and the view does not jump when scrolled away', async () => {
    const before = await page.evaluate(() => (window as any).__sluice.store.getState().list.order.length as number);
    const N = 5000;
    for (let b = 0; b < N / 2500; b++) {
      const batch = Array.from({ length: 2500 }, (_, i) => ({ type: 'track', userId: `bulk_${b}_${i}`, event: 'Bulk Event' }));
      const res = await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_bulk' }, '/v1/batch', { batch });
      expect(res.status).toBe(200);
    }
    await expect
      .poll(() => page.evaluate(() => (window as any).__sluice.store.getState().list.order.length as number), { timeout: 20_000 })
      .toBe(before + N);
    expect(await list().getByRole('option').count()).toBeLessThan(80);

    // Scrolled away, new rows do not move what is in view, and a pill counts them.
    await list().evaluate((el) => (el.scrollTop = 48 * 300));
    await page.waitForTimeout(100);
    const firstInView = async () =>
      list().evaluate((el) => {
        const top = el.getBoundingClientRect().top;
        const rows = [...el.querySelectorAll('[role="option"]')].filter((r) => r.getBoundingClientRect().bottom > top + 1);
        rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
        return rows[0]?.getAttribute('data-id');
      });
    const anchor = await firstInView();
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_bulk' }, '/v1/batch', { batch: Array.from({ length: 40 }, (_, i) => ({ type: 'track', userId: `late_${i}`, event: 'Late' })) });
    await expect.poll(() => page.getByRole('button', { name: /40 new/ }).count(), { timeout: 10_000 }).toBe(1);
    expect(await firstInView()).toBe(anchor);
    expect(await page.getByRole('button', { name: 'Follow tail' }).getAttribute('aria-pressed')).toBe('false');
    await page.getByRole('button', { name: /40 new/ }).click();
    await expect.poll(() => list().evaluate((el) => el.scrollTop)).toBe(0);
    expect(await list().getByRole('option').first().textContent()).toContain('Late');
    expect(await page.getByRole('button', { name: 'Follow tail' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('on a long run keeps in memory only the newest rows and those around the view; rows let go come back in place when scrolled to', async () => {
    const state = () =>
      page.evaluate(() => {
        const { order, byId } = (window as any).__sluice.store.getState().list;
        return { listed: order.length as number, loaded: byId.size as number, oldestLoaded: byId.has(order[order.length - 1]) as boolean };
      });
    const before = (await state()).listed;
    for (let b = 0; b < 4; b++) {
      const batch = Array.from({ length: 2500 }, (_, i) => ({ type: 'track', userId: `far_${b}_${i}`, event: 'Far Event' }));
      expect((await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_bulk' }, '/v1/batch', { batch })).status).toBe(200);
    }
    await expect.poll(async () => (await state()).listed, { timeout: 20_000 }).toBe(before + 10_000);
    const grown = await state();
    expect(grown.loaded).toBeLessThan(grown.listed - 5000);
    expect(grown.oldestLoaded).toBe(false); // the first message, far down, was let go

    // At the end of the list the first message is back, in its place, with its outcome.
    await list().evaluate((el) => (el.scrollTop = el.scrollHeight));
    const first = row('Order Completed').last();
    await expect.poll(() => first.textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    expect(await first.textContent()).toContain('u_ada');
    await expect.poll(() => list().getByRole('option').filter({ hasText: 'Loading…' }).count(), { timeout: 10_000 }).toBe(0);
    expect((await state()).oldestLoaded).toBe(true);

    // Rows arriving meanwhile are held above the view (counted); Home selects the newest, which shows them
    // and goes back to the top.
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_bulk' }, '/v1/batch', { batch: Array.from({ length: 3 }, (_, i) => ({ type: 'track', userId: `held_${i}`, event: 'Held Event' })) });
    await expect.poll(() => page.getByRole('button', { name: /↑ 3 new/ }).count(), { timeout: 10_000 }).toBe(1);
    expect(await first.textContent()).toContain('✓ delivered'); // still in view
    await list().focus();
    await page.keyboard.press('Home');
    await expect.poll(() => list().evaluate((el) => el.scrollTop)).toBe(0);
    expect(await list().getByRole('option').first().textContent()).toContain('Held Event');
    expect(await list().getByRole('option').first().getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => page.getByRole('button', { name: 'Follow tail' }).getAttribute('aria-pressed')).toBe('true');

    // Scrolled away with rows held, a new search shows its newest results from the top (nothing held back).
    await list().evaluate((el) => (el.scrollTop = 48 * 100));
    await expect.poll(() => page.getByRole('button', { name: 'Follow tail' }).getAttribute('aria-pressed')).toBe('false');
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_bulk' }, '/v1/batch', { batch: [0, 1].map((i) => ({ type: 'track', userId: `fresh_${i}`, event: 'Fresh Event' })) });
    await expect.poll(() => page.getByRole('button', { name: /↑ 2 new/ }).count(), { timeout: 10_000 }).toBe(1);
    await page.getByRole('combobox', { name: 'Search messages' }).fill('fresh_');
    await expect.poll(() => list().getByRole('option').allTextContents()).toEqual([expect.stringContaining('fresh_1'), expect.stringContaining('fresh_0')]);
    expect(await page.getByRole('button', { name: /new$/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Follow tail' }).getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('button', { name: 'Clear filters', exact: true }).click();
    await expect.poll(() => list().getByRole('option').first().textContent()).toContain('Fresh Event');
  });

  it('pause freezes the view, not the relay', async () => {
    const count = () => page.evaluate(() => (window as any).__sluice.store.getState().list.order.length as number);
    const before = await count();
    await page.getByRole('button', { name: 'Pause live view' }).click();
    expect(await page.getByRole('button', { name: 'Pause live view' }).getAttribute('aria-pressed')).toBe('true');
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_paused', event: 'While Paused' });
    await expect.poll(() => page.getByRole('button', { name: /Paused · 1 new/ }).count(), { timeout: 10_000 }).toBe(1);
    expect(await count()).toBe(before);
    await until(() => (receiver.received.some((r) => r.body.includes('While Paused')) ? true : undefined), 10_000, 'the delivery while paused');
    await page.getByRole('button', { name: 'Pause live view' }).click();
    await expect.poll(count, { timeout: 10_000 }).toBe(before + 1);
    await expect.poll(() => row('While Paused').textContent(), { timeout: 10_000 }).toContain('✓ delivered');

    // Under a filter the pill does not promise rows: what arrived is counted before it is read.
    await page.getByRole('combobox', { name: 'Source', exact: true }).selectOption({ label: 'web' });
    await expect.poll(() => row('While Paused').count()).toBe(1);
    const filtered = await count();
    await page.getByRole('button', { name: 'Pause live view' }).click();
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_bulk' }, '/v1/track', { userId: 'u_elsewhere', event: 'Other Source While Paused' });
    await expect.poll(() => page.getByRole('button', { name: /Paused · 1 arrived \(filters apply\)/ }).count(), { timeout: 10_000 }).toBe(1);
    await page.getByRole('button', { name: 'Pause live view' }).click();
    await expect.poll(() => page.getByRole('button', { name: /^Paused/ }).count()).toBe(0);
    expect(await count()).toBe(filtered);
    await page.getByRole('button', { name: 'Clear filters', exact: true }).click();
  });

  it('follows the system theme', async () => {
    const dark = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: 'dark' });
    const p = await dark.newPage();
    await p.goto(ui.url);
    await p.getByRole('combobox', { name: 'Source', exact: true }).selectOption({ label: 'web' });
    await p.getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'Order Completed' }).click();
    await p.getByRole('tab', { name: 'Webhook request' }).click();
    const background = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(20, 22, 25)');
    await p.screenshot({ path: path.join(screenshots, 'dark.png') });
    await dark.close();
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
  });

  it('refuses a wrong token with a page that says what to do, and explains a missing one', async () => {
    const other = await browser.newContext();
    const p = await other.newPage();
    await p.goto(`${ui.baseUrl}/?token=wrong-token`);
    const alert = p.getByRole('alert');
    await expect.poll(() => alert.textContent(), { timeout: 10_000 }).toContain('refused this page’s access token');
    expect(await p.getByRole('heading', { name: 'This inspector link is not valid' }).count()).toBe(1);
    await p.screenshot({ path: path.join(screenshots, 'wrong-token.png') });
    // The tab keeps the token it was given, even a wrong one: its bare address is still "not valid".
    await p.goto(`${ui.baseUrl}/`);
    await expect.poll(() => p.getByRole('heading', { name: 'This inspector link is not valid' }).count(), { timeout: 10_000 }).toBe(1);
    // A new tab (its own sessionStorage) on the bare address has no token at all.
    const fresh = await other.newPage();
    await fresh.goto(`${ui.baseUrl}/`);
    await expect.poll(() => fresh.getByRole('alert').textContent()).toContain('opened without its access token');
    await other.close();
  });

  it('made no request off this host and logged no error', () => {
    expect(offsite).toEqual([]);
    expect(problems).toEqual([]);
  });
});
