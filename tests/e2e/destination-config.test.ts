// A destination the config file declares, in the Destinations view: marked with the file, its name
// read-only with the reason (renamed here it would come back beside the copy at the next start, and every
// message would go to both), its other settings saved until the next start. The built inspector in
// Chromium over a real core (headless host) and a real receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[destination-config e2e] skipped: ${skipReason}`);

const CONFIG_FILE = '/projects/shop/sluice.config.json';

describe.skipIf(skipReason !== null)('A destination the config file declares', () => {
  let session: InspectorSession;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    session = await openInspector({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [{ name: 'cfg', enabled: true, sources: ['web'], webhooks: [{ url: `${receiver.url}/cfg`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
      },
      configFile: CONFIG_FILE,
    });
    session.core.saveDestination({ name: 'mine', sources: ['web'], webhooks: [{ url: `${receiver.url}/mine` }] });
    await session.open('destinations');
  });

  afterAll(async () => {
    await session?.close();
    await receiver?.close();
  });

  const page = () => session.page;
  const editor = () => page().getByRole('form');
  const list = () => page().getByRole('complementary', { name: 'Destinations' });
  const nameInput = () => editor().getByLabel('Name', { exact: true });

  it('is marked with the file in the list; one made in the inspector is not', async () => {
    const cfg = list().getByRole('button', { name: /cfg/ });
    await expect.poll(() => cfg.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await cfg.getByText('from sluice.config.json', { exact: true }).getAttribute('title')).toBe(CONFIG_FILE);
    expect(await list().getByRole('button', { name: /mine/ }).getByText(/^from /).count()).toBe(0);
  });

  it('keeps its name read-only, saying where to rename it, and saves its other settings', async () => {
    await list().getByRole('button', { name: /cfg/ }).click();
    await expect.poll(() => editor().getByRole('heading', { name: 'cfg', exact: true }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await nameInput().getAttribute('readonly')).not.toBeNull();
    const hint = editor().locator('#dst-name-hint');
    expect(await hint.textContent()).toBe(
      'Declared in sluice.config.json, which Sluice applies by name at every start: rename it there. What you change here lasts until the next start.',
    );
    expect(await nameInput().getAttribute('aria-describedby')).toBe('dst-name-hint');
    // Typing changes nothing.
    await nameInput().press('End');
    await nameInput().pressSequentially('-copy');
    expect(await nameInput().inputValue()).toBe('cfg');

    const url = editor().getByLabel('Webhook 1 URL');
    await url.fill(`${receiver.url}/edited`);
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => editor().locator('.dst-save-status').textContent()).toMatch(/^Saved at /);
    expect(session.core.destinations.byName('cfg')!.webhooks.map((w) => w.url)).toEqual([`${receiver.url}/edited`]);
  });

  it('one made in the inspector keeps its name editable', async () => {
    await list().getByRole('button', { name: /mine/ }).click();
    await expect.poll(() => editor().getByRole('heading', { name: 'mine', exact: true }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await nameInput().getAttribute('readonly')).toBeNull();
    expect(await editor().getByText('Renaming keeps its deliveries and their history.').isVisible()).toBe(true);
  });
});
