// The stream's keyboard in Chromium (issue 29, point 4): j/k move, Enter opens, r opens the replay,
// ? shows the map in a dialog (axe clean in both themes), Esc closes, and no key fires while typing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[keyboard e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('the stream keyboard', () => {
  let session: InspectorSession;
  const page = () => session.page;
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const selected = () => page().locator('[role="option"][aria-selected="true"] .row-name');
  const detailTitle = () => page().locator('.detail-head h2');

  beforeAll(async () => {
    session = await openInspector();
    const batch = ['Alpha', 'Bravo', 'Charlie', 'Delta'].map((event) => ({ type: 'track', event, userId: 'u_keys' }));
    // One call per message, oldest first: the list shows Delta, Charlie, Bravo, Alpha.
    for (const m of batch) expect((await post(session.core, '/v1/track', m)).status).toBe(200);
    await session.open();
    await rows().nth(3).waitFor();
  });
  afterAll(async () => {
    expect(session?.problems ?? []).toEqual([]);
    await session?.close();
  });

  it('j and k move the selection from the page, Enter opens it, Esc closes it', async () => {
    await page().locator('body').click({ position: { x: 700, y: 500 } });
    await page().keyboard.press('j');
    await expect.poll(() => selected().textContent()).toContain('Delta');
    await page().keyboard.press('j');
    await page().keyboard.press('j');
    await expect.poll(() => selected().textContent()).toContain('Bravo');
    await page().keyboard.press('k');
    await expect.poll(() => selected().textContent()).toContain('Charlie');
    await page().keyboard.press('Enter');
    await expect.poll(() => detailTitle().textContent()).toBe('Charlie');
    // With no filter to clear, Esc closes the message.
    await page().locator('body').click({ position: { x: 700, y: 880 } });
    await page().keyboard.press('Escape');
    await expect.poll(() => detailTitle().count()).toBe(0);
  });

  it('typing j in the search box types it and moves nothing', async () => {
    const box = page().getByRole('combobox', { name: 'Search messages' });
    await page().keyboard.press('/');
    expect(await page().evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Search messages');
    const before = await selected().textContent();
    await page().keyboard.type('jk?r');
    expect(await box.inputValue()).toBe('jk?r');
    expect(await selected().textContent()).toBe(before);
    expect(await page().getByRole('dialog').count()).toBe(0);
    await page().keyboard.press('Escape'); // clears the search (a filter)
    await expect.poll(() => box.inputValue()).toBe('');
    await expect.poll(() => rows().count()).toBe(4);
  });

  it('r opens the selected message on its Replay tab, where Send replays it', async () => {
    await page().locator('body').click({ position: { x: 700, y: 880 } });
    await page().keyboard.press('k');
    const name = (await selected().textContent()) ?? '';
    await page().keyboard.press('r');
    await expect.poll(() => page().getByRole('tab', { name: /^Replay/ }).getAttribute('aria-selected')).toBe('true');
    expect(await detailTitle().textContent()).toBe(name);
  });

  it('? shows the keyboard map in a dialog; keys do nothing under it; Esc closes it', async () => {
    await page().locator('body').click({ position: { x: 700, y: 880 } });
    const before = await selected().textContent();
    await page().keyboard.press('?');
    const dialog = page().getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    for (const k of ['j', 'k', 'r', 'p', 'Enter', '/', '?']) {
      await expect.poll(() => dialog.getByRole('row').filter({ has: page().locator('kbd', { hasText: new RegExp(`^${k === '?' ? '\\?' : k === '/' ? '/' : k}$`) }) }).count()).toBe(1);
    }
    await page().keyboard.press('j');
    expect(await selected().textContent()).toBe(before);
    await expectAccessible(page(), '.keys-dialog');
    await session.shot('keyboard-map');
    await page().keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
  });
});
