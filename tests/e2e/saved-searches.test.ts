// Saved searches in Chromium (issue 29, point 3): save the current search and filters under a name,
// reload, pick it from beside the search box and get them back; a taken name says so; rename and
// delete; the dialog is axe clean in light and dark.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[saved searches e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('saved searches', () => {
  let session: InspectorSession;
  const page = () => session.page;
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const box = () => page().getByRole('combobox', { name: 'Search messages' });
  const dialog = () => page().getByRole('dialog', { name: 'Saved searches' });

  beforeAll(async () => {
    session = await openInspector();
    for (const [type, event] of [['track', 'Order Completed'], ['track', 'Signed Up'], ['page', 'Pricing']] as const) {
      expect((await post(session.core, `/v1/${type}`, type === 'page' ? { name: event, userId: 'u_s' } : { event, userId: 'u_s' })).status).toBe(200);
    }
    await session.open();
    await rows().nth(2).waitFor();
  });
  afterAll(async () => {
    expect(session?.problems ?? []).toEqual([]);
    await session?.close();
  });

  it('saves the search and filters under a name; after a reload, picking it brings them back', async () => {
    await page().getByRole('combobox', { name: 'Type' }).selectOption('track');
    await box().fill('order');
    await expect.poll(() => rows().count()).toBe(1);
    await page().getByRole('button', { name: 'Saved…' }).click();
    await expect.poll(() => dialog().isVisible()).toBe(true);
    await dialog().getByRole('textbox', { name: 'Save the current search as' }).fill('Orders');
    await dialog().getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => dialog().getByRole('list', { name: 'Saved searches' }).getByRole('button', { name: 'Orders', exact: true }).count()).toBe(1);
    // A taken name (any case) says so.
    await dialog().getByRole('textbox', { name: 'Save the current search as' }).fill('ORDERS');
    await dialog().getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => dialog().getByRole('alert').textContent()).toMatch(/already named “ORDERS”: choose another name/);
    await expectAccessible(page(), '.saved-dialog');
    await session.shot('saved-searches');
    await page().keyboard.press('Escape');
    await expect.poll(() => dialog().count()).toBe(0);

    await page().reload();
    await page().waitForFunction(() => (window as any).__sluice?.store.getState().connection.kind === 'open');
    await rows().nth(2).waitFor();
    expect(await box().inputValue()).toBe('');
    await page().getByRole('button', { name: 'Saved…' }).click();
    await dialog().getByRole('button', { name: 'Orders', exact: true }).click();
    await expect.poll(() => dialog().count()).toBe(0);
    expect(await box().inputValue()).toBe('order');
    expect(await page().getByRole('combobox', { name: 'Type' }).inputValue()).toBe('track');
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain('Order Completed');
  });

  it('renames and deletes', async () => {
    await page().getByRole('button', { name: 'Saved…' }).click();
    await dialog().getByRole('button', { name: 'Rename Orders' }).click();
    await dialog().getByRole('textbox', { name: 'New name for Orders' }).fill('Checkout');
    await dialog().getByRole('button', { name: 'Rename', exact: true }).click();
    await expect.poll(() => dialog().getByRole('button', { name: 'Checkout', exact: true }).count()).toBe(1);
    await dialog().getByRole('button', { name: 'Delete Checkout' }).click();
    await expect.poll(() => dialog().getByText('No saved search yet.').count()).toBe(1);
    await page().keyboard.press('Escape');
  });
});
