// The Settings view end to end: the built inspector in Chromium over a real core (headless host) and a
// real webhook receiver, driven by role and label. A chosen dark theme is applied (the page's colours
// change) and survives a reload; holding deliveries shows the banner on every view and keeps a new
// message's delivery queued with nothing sent; resuming delivers it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[settings e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('Settings view', () => {
  let session: InspectorSession;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    session = await openInspector({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: `${receiver.url}/in`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
      },
    });
    session.core.writeKey = 'wk_web';
    await session.open('settings');
  });

  afterAll(async () => {
    await session?.close();
    await receiver?.close();
  });

  const page = () => session.page;
  const background = () => page().evaluate(() => getComputedStyle(document.body).backgroundColor);
  const themeRadio = (name: string) => page().getByRole('radiogroup', { name: 'Theme' }).getByRole('radio', { name, exact: true });
  const banner = () => page().getByRole('status', { name: 'Deliveries held' });

  it('shows where this Sluice is: version, ingest URL, receiver, data directory, transport', async () => {
    const p = page().getByRole('region', { name: 'This Sluice' });
    await expect.poll(() => p.getByLabel('Ingest URL', { exact: true }).textContent(), { timeout: 10_000 }).toBe(session.core.ingestUrl);
    expect(await p.getByLabel('Built-in receiver', { exact: true }).textContent()).toBe(session.core.receiver.url);
    expect(await p.getByLabel('Data directory', { exact: true }).textContent()).toBe(session.core.dataDir);
    expect(await p.getByLabel('Version', { exact: true }).textContent()).toMatch(/^\d+\.\d+\.\d+/);
    expect(await p.getByLabel('UI transport', { exact: true }).textContent()).toMatch(/^WebSocket/);
    expect(await p.getByRole('button', { name: 'Copy data directory' }).isVisible()).toBe(true);
  });

  it('switches to the dark theme, applied at once and kept across a reload; System goes back to the system’s', async () => {
    const p = page();
    expect(await themeRadio('System').getAttribute('aria-checked')).toBe('true');
    const light = await background();
    expect(light).toBe('rgb(255, 255, 255)'); // the browser reports a light system theme

    await themeRadio('Dark').click();
    await expect.poll(background).not.toBe(light);
    const dark = await background();
    expect(dark).toBe('rgb(20, 22, 25)');
    expect(await p.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await themeRadio('Dark').getAttribute('aria-checked')).toBe('true');

    await p.reload();
    await p.waitForFunction(() => (window as any).__sluice?.store.getState().connection.kind === 'open', undefined, { timeout: 10_000 });
    expect(await background()).toBe(dark);
    expect(await themeRadio('Dark').getAttribute('aria-checked')).toBe('true');
    await session.shot('settings');

    await themeRadio('System').click();
    await expect.poll(background).toBe(light);
    expect(await p.evaluate(() => localStorage.getItem('sluice.theme'))).toBeNull();
  });

  it('holds deliveries: the banner on every view, the new message queued and nothing sent; resume delivers it', async () => {
    const p = page();
    const hold = p.getByRole('switch', { name: 'Hold deliveries' });
    await expect.poll(() => hold.isEnabled(), { timeout: 10_000 }).toBe(true);
    expect(await hold.isChecked()).toBe(false);
    expect(await banner().count()).toBe(0);

    await hold.click();
    await expect.poll(() => banner().isVisible()).toBe(true);
    expect(await hold.isChecked()).toBe(true);
    expect(session.core.delivery.held).toBe(true);
    expect(await banner().textContent()).toContain('Deliveries held — 0 waiting; nothing is sent to destinations until you resume.');
    expect(await p.getByText('Held in memory only: restarting Sluice resumes delivery.', { exact: false }).first().isVisible()).toBe(true);

    expect((await post(session.core, '/v1/track', { userId: 'u_held', event: 'Held Order' })).status).toBe(200);
    await expect.poll(() => banner().textContent(), { timeout: 10_000 }).toContain('Deliveries held — 1 waiting;');

    // The stream shows the row queued, with the banner still there.
    await p.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Stream' }).click();
    const row = p.getByRole('option').filter({ hasText: 'Held Order' });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.getAttribute('data-outcome')).toBe('pending');
    expect(await row.textContent()).toContain('… queued');
    expect(await banner().isVisible()).toBe(true);
    expect(receiver.received).toHaveLength(0);
    await session.shot('settings-held');

    await banner().getByRole('button', { name: 'Resume deliveries' }).click();
    await expect.poll(() => row.getAttribute('data-outcome'), { timeout: 10_000 }).toBe('delivered');
    expect(await banner().count()).toBe(0);
    expect(session.core.delivery.held).toBe(false);
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'track', event: 'Held Order', userId: 'u_held' });
  });

  it('shows a hold made in another window without a reload, and its resume too', async () => {
    const p = page();
    const second = await session.context.newPage();
    await second.goto(`${session.ui.url}#/settings`);
    const hold = second.getByRole('switch', { name: 'Hold deliveries' });
    await expect.poll(() => hold.isEnabled(), { timeout: 10_000 }).toBe(true);
    await hold.click();
    await expect.poll(() => banner().isVisible(), { timeout: 10_000 }).toBe(true);
    await second.getByRole('status', { name: 'Deliveries held' }).getByRole('button', { name: 'Resume deliveries' }).click();
    await expect.poll(() => banner().count(), { timeout: 10_000 }).toBe(0);
    expect(await hold.isChecked()).toBe(false);
    await second.close();
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
