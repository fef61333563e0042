// The inspector link in Chromium against a real `sluice serve` on a real data folder: the page takes
// the token out of its address (kept in the tab's sessionStorage), so the browser's history holds
// none; a reload stays connected, and so does a reload after the host restarted on the same folder;
// after `--new-token` the old tab says its link is not valid, naming the real port.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason, launchBrowser } from '../helpers/browser.ts';
import { startCli, type RunningCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/core.ts';
import { ensureRenderer, screenshotsDir } from '../helpers/inspector-page.ts';
import { closedPort } from '../helpers/ports.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[inspector link e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('the inspector link across restarts, in Chromium', () => {
  const dataDir = path.join(tempDir(), 'data');
  let port: number;
  let serve: RunningCli | undefined;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let firstToken: string;
  const problems: string[] = [];
  const offsite: string[] = [];

  /** `sluice serve` on the data folder, always on the same inspector port (the page's origin). */
  async function start(...args: string[]): Promise<RunningCli> {
    serve = await startCli(['--data-dir', dataDir, '--ui-port', String(port), ...args]);
    return serve;
  }

  async function stop(): Promise<void> {
    expect(await serve!.stop()).toBe(0);
    serve = undefined;
  }

  const connection = (p: Page = page) => p.evaluate(() => (window as any).__sluice?.store.getState().connection.kind as string | undefined);
  const connected = (p: Page = page) => p.waitForFunction(() => (window as any).__sluice?.store.getState().connection.kind === 'open', undefined, { timeout: 10_000 });
  /** Every entry of this tab's session history (Chromium's, through the DevTools protocol). */
  const history = async () => ((await cdp.send('Page.getNavigationHistory')) as { entries: { url: string }[] }).entries.map((e) => e.url);

  beforeAll(async () => {
    ensureRenderer();
    fs.mkdirSync(screenshotsDir, { recursive: true });
    port = await closedPort();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    context.on('request', (request) => {
      if (!/^(http|ws):\/\/127\.0\.0\.1:\d+\//.test(request.url()) || new URL(request.url()).port !== String(port)) offsite.push(request.url());
    });
  }, 60_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    await serve?.stop();
  });

  it('takes the token out of the address after reading it: no history entry holds it, a reload stays connected', async () => {
    const cli = await start();
    firstToken = cli.ready.token;
    expect(cli.ready.ui).toBe(`http://127.0.0.1:${port}/?token=${firstToken}`);
    await page.goto(`${cli.ready.ui}#/stream`);
    await connected();
    expect(page.url()).toBe(`http://127.0.0.1:${port}/#/stream`);
    expect(await page.evaluate(() => sessionStorage.getItem('sluice.token'))).toBe(firstToken);
    // A view change adds an entry; none of the entries has the token.
    await page.getByRole('button', { name: 'Destinations', exact: true }).click();
    await expect.poll(() => page.url()).toBe(`http://127.0.0.1:${port}/#/destinations`);
    await page.reload();
    await connected();
    expect(page.url()).toBe(`http://127.0.0.1:${port}/#/destinations`);
    const entries = await history();
    expect(entries.length).toBeGreaterThanOrEqual(2);
    for (const url of entries) expect(url).not.toContain(firstToken);
    expect(entries.join(' ')).not.toContain('token=');
    // Back to the stream through history: still connected, still no token.
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`http://127.0.0.1:${port}/#/stream`);
    expect(await connection()).toBe('open');
  });

  it('stays connected after the host restarts on the same data folder and the tab is reloaded', async () => {
    await stop();
    const cli = await start();
    expect(cli.ready.token).toBe(firstToken);
    await page.reload();
    await connected();
    // The page works, not only its socket: the view lists the stream's source picker.
    await expect.poll(() => page.getByRole('combobox', { name: 'Source', exact: true }).count(), { timeout: 10_000 }).toBe(1);
    for (const url of await history()) expect(url).not.toContain(firstToken);
    await page.screenshot({ path: path.join(screenshotsDir, 'inspector-link-after-restart.png') });
  });

  it('after --new-token, the old tab says its link is not valid and shows the real port', async () => {
    await stop();
    const cli = await start('--new-token');
    expect(cli.ready.token).not.toBe(firstToken);
    await page.reload();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent(), { timeout: 10_000 }).toContain('refused this page’s access token');
    expect(await page.getByRole('heading', { name: 'This inspector link is not valid' }).count()).toBe(1);
    expect(await connection()).toBe('unauthorized');
    const shown = await alert.locator('code').textContent();
    expect(shown).toContain(`$ npx sluice serve --ui-port ${port}`);
    expect(shown).toContain(`Inspector  http://127.0.0.1:${port}/?token=…`);
    expect(shown).not.toContain('8788');
    await page.screenshot({ path: path.join(screenshotsDir, 'inspector-link-not-valid.png') });
    // The new link, opened in the same tab, connects and replaces the kept token.
    await page.goto(cli.ready.ui);
    await connected();
    expect(page.url()).toBe(`http://127.0.0.1:${port}/`);
    expect(await page.evaluate(() => sessionStorage.getItem('sluice.token'))).toBe(cli.ready.token);
  });

  it('a new tab on the bare address explains the missing token with the real port', async () => {
    const other = await browser.newContext();
    try {
      const p = await other.newPage();
      await p.goto(`http://127.0.0.1:${port}/`);
      const alert = p.getByRole('alert');
      await expect.poll(() => alert.textContent(), { timeout: 10_000 }).toContain('opened without its access token');
      expect(await alert.locator('code').textContent()).toContain(`http://127.0.0.1:${port}/?token=…`);
    } finally {
      await other.close();
    }
  });

  it('made no request off this host and logged nothing but the sockets lost while the host restarted', () => {
    expect(offsite).toEqual([]);
    // Chromium logs each socket that fails to connect (the host down for a moment, the old token
    // refused), and the page's check whether the host answers while it is down.
    const expected = [/^error: WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/api\?token=[^']+' failed/, /^error: Failed to load resource: net::ERR_CONNECTION_REFUSED$/];
    expect(problems.filter((p) => !expected.some((e) => e.test(p)))).toEqual([]);
  });
});
