// The desktop app itself, driven by Playwright's Electron support: the built app (out/, `npm run
// build`) opens its window, the renderer reaches the core over IPC (not WebSocket), and a message
// POSTed to the app's ingestion endpoint shows in the list. Runs where an Electron binary is
// installed and can open a window; elsewhere it skips, saying why (the binary is a download that
// `npm ci` makes; this machine has none).
import path from 'node:path';
import { _electron, type ElectronApplication, type Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRoot as root, ensureAppBuilt } from '../helpers/app-build.ts';
import { electronBinary, whyElectronCannotStart } from '../../electron/electron-binary.ts';
import { tempDir } from '../helpers/temp-dirs.ts';


// Not require('electron'): it downloads the binary when it is missing.
const skipReason = whyElectronCannotStart() ?? null;
if (skipReason) console.warn(`[electron smoke] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('the desktop app in Electron', () => {
  let app: ElectronApplication;
  let window: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    ensureAppBuilt();
    // Its own data folder: the app keeps its store in the platform's per-user data folder.
    const home = tempDir('sluice-electron-');
    app = await _electron.launch({
      executablePath: electronBinary()!,
      // Chromium refuses to run as root without --no-sandbox (containers, CI).
      args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), path.join(root, 'out/main/index.js')],
      env: { ...process.env, HOME: home, XDG_DATA_HOME: path.join(home, 'data'), APPDATA: path.join(home, 'appdata') } as Record<string, string>,
      timeout: 60_000,
    });
    window = await app.firstWindow();
    window.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    window.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  it('opens one window with the inspector, connected to the core through IPC', async () => {
    expect(app.windows()).toHaveLength(1);
    await expect.poll(() => window.title(), { timeout: 20_000 }).toMatch(/Sluice/);
    await expect
      .poll(() => window.evaluate(() => (window as unknown as { __sluice?: { transport: string } }).__sluice?.transport), { timeout: 20_000 })
      .toBe('ipc');
    // Served over app://, not file:// (electron/main/app-protocol.ts).
    expect(window.url()).toMatch(/^app:\/\/sluice\/index\.html(#.*)?$/);
    // The page has the preload's bridge and no Node.
    expect(await window.evaluate(() => typeof (window as unknown as { sluice?: unknown }).sluice)).toBe('object');
    expect(await window.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
  });

  it('shows a message POSTed to the app’s ingestion endpoint in the list', async () => {
    const info = (await window.evaluate(() =>
      (window as unknown as { sluice: { invoke(channel: string, request: unknown): Promise<unknown> } }).sluice.invoke('app.info', {}),
    )) as { ok: boolean; value: { ingestUrl: string; sources: { writeKey: string }[] } };
    expect(info.ok).toBe(true);
    const { ingestUrl, sources } = info.value;
    const response = await fetch(`${ingestUrl}/v1/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${sources[0]!.writeKey}:`).toString('base64')}` },
      body: JSON.stringify({ batch: [{ type: 'track', userId: 'u_electron', event: 'Electron Smoke' }] }),
    });
    expect(response.status).toBe(200);
    const list = window.getByRole('listbox', { name: 'Messages' });
    await expect.poll(() => list.getByRole('option').filter({ hasText: 'Electron Smoke' }).count(), { timeout: 20_000 }).toBe(1);
    expect(problems).toEqual([]);
  });
});
