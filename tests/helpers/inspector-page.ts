// Opens the built inspector (out/renderer) in Chromium, served by the headless host over a real core.
// For the per-view end-to-end tests: each gets its own core, host, browser and page, and the page's
// console errors and off-site requests, which a test should assert are empty.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { UiServer } from '../../electron/host/ui-server.ts';
import { launchBrowser } from './browser.ts';
import { startCore, type TestCore } from './core.ts';
import type { CoreOptions } from '../../electron/core/index.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rendererDir = path.join(repoRoot, 'out/renderer');
export const screenshotsDir = path.join(repoRoot, 'test-results/screenshots');

/** `npm test` builds the renderer first; run alone, a test builds it when it is missing. */
export function ensureRenderer(dir: string = rendererDir): void {
  if (fs.existsSync(path.join(dir, 'index.html'))) return;
  execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'renderer/vite.config.ts'], {
    cwd: repoRoot,
    stdio: 'inherit',
    timeout: 180_000,
  });
}

export interface InspectorSession {
  core: TestCore;
  ui: UiServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Page errors, console errors and warnings. */
  problems: string[];
  /** Requests to anything but the headless host. */
  offsite: string[];
  /** Opens a view by its hash route (`'destinations'`, `'composer'`, ...) and waits for the app to connect. */
  open(view?: string): Promise<void>;
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openInspector(coreOptions: Partial<CoreOptions> = {}, viewport = { width: 1440, height: 900 }): Promise<InspectorSession> {
  ensureRenderer();
  fs.mkdirSync(screenshotsDir, { recursive: true });
  const core = await startCore(coreOptions);
  const ui = new UiServer({ core, host: '127.0.0.1', port: 0, rendererDir });
  await ui.listen();
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport, colorScheme: 'light' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.baseUrl });
  const page = await context.newPage();
  const problems: string[] = [];
  const offsite: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
  });
  context.on('request', (request) => {
    if (!request.url().startsWith(ui.baseUrl) && !request.url().startsWith(ui.baseUrl.replace('http', 'ws'))) offsite.push(request.url());
  });
  return {
    core,
    ui,
    browser,
    context,
    page,
    problems,
    offsite,
    async open(view = 'stream') {
      await page.goto(`${ui.url}#/${view}`);
      await page.waitForFunction(() => (window as any).__sluice?.store.getState().connection.kind === 'open', undefined, { timeout: 10_000 });
    },
    async shot(name) {
      await page.screenshot({ path: path.join(screenshotsDir, `${name}.png`) });
    },
    async close() {
      await context.close().catch(() => {});
      await browser.close().catch(() => {});
      await ui.close();
      await core.dispose();
    },
  };
}
