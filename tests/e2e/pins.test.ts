// Pins in Chromium (issue 29, point 3): `p` pins the selected message, its row says so, the Pinned
// toggle and the search `pinned:true` list only the pinned ones (axe clean in light and dark), the
// detail's Pin button un-pins, and a clear keeps a pinned message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[pins e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('pins', () => {
  let session: InspectorSession;
  const page = () => session.page;
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const box = () => page().getByRole('combobox', { name: 'Search messages' });
  const names = () => rows().locator('.row-name').allTextContents();

  beforeAll(async () => {
    session = await openInspector();
    for (const event of ['Alpha', 'Bravo', 'Charlie', 'Delta']) expect((await post(session.core, '/v1/track', { type: 'track', event, userId: 'u_pin' })).status).toBe(200);
    await session.open();
    await rows().nth(3).waitFor();
  });
  afterAll(async () => {
    expect(session?.problems ?? []).toEqual([]);
    await session?.close();
  });

  it('p pins the selected message; its row says so; the Pinned toggle and pinned:true list only it', async () => {
    await page().locator('body').click({ position: { x: 700, y: 880 } });
    await page().keyboard.press('j');
    await page().keyboard.press('j'); // Charlie
    await expect.poll(() => page().locator('[role="option"][aria-selected="true"] .row-name').textContent()).toBe('Charlie');
    await page().keyboard.press('p');
    const charlie = rows().filter({ hasText: 'Charlie' });
    await expect.poll(() => charlie.locator('.row-pinned').count()).toBe(1);
    expect(await rows().locator('.row-pinned').count()).toBe(1);

    const toggle = page().getByRole('button', { name: 'Pinned', exact: true });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(names).toEqual(['Charlie']);
    expect(await box().inputValue()).toBe('pinned:true');
    await expectAccessible(page(), '.list-pane');
    await session.shot('pins-pinned-view');
    await toggle.click();
    await expect.poll(() => rows().count()).toBe(4);

    // Typed, with another clause.
    await box().fill('pinned:true event:Charlie');
    await expect.poll(names).toEqual(['Charlie']);
    await box().fill('-pinned:true');
    await expect.poll(names).toEqual(['Delta', 'Bravo', 'Alpha']);
    await box().fill('');
    await expect.poll(() => rows().count()).toBe(4);
  });

  it('a clear of everything keeps the pinned message; the detail un-pins it', async () => {
    expect((await session.core.operations['storage.clear']({ scope: { all: true }, dryRun: false })).messages).toBe(3);
    await expect.poll(names).toEqual(['Charlie']);
    await rows().first().click();
    const pin = page().getByRole('button', { name: 'Pinned' }).and(page().locator('.pin-toggle'));
    await expect.poll(() => pin.getAttribute('aria-pressed')).toBe('true');
    await expectAccessible(page(), '.detail-head');
    await pin.click();
    await expect.poll(() => page().locator('.pin-toggle').getAttribute('aria-pressed')).toBe('false');
    await expect.poll(() => rows().locator('.row-pinned').count()).toBe(0);
    // Un-pinned, the next clear removes it.
    expect((await session.core.operations['storage.clear']({ scope: { all: true }, dryRun: false })).messages).toBe(1);
  });
});
