// Saved searches in Chromium (issue 29, point 3): save the current search and filters under a name,
// reload, pick it from beside the search box and get them back; a taken name says so; rename and
// delete; the dialog is axe clean in light and dark. The search box offers them in its dropdown: all
// when it takes the focus, those that fit as you type, taken with ↓ and Enter (Enter alone still
// searches what is typed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../electron/core/api/contract-handlers.ts';
import { expectAccessible } from '../helpers/a11y.ts';
import { callOk } from '../helpers/contract.ts';
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

  it('the search box offers the saved searches that fit what is typed; ↓ and Enter take one, with its filters', async () => {
    const handlers = createHandlers(session.core);
    const all = { kind: 'all' as const };
    await callOk(handlers, 'searches.save', { name: 'Orders', filters: { search: 'order', type: 'track', status: null, sourceId: null, time: all } });
    await callOk(handlers, 'searches.save', { name: 'Pricing pages', filters: { search: 'type:page', type: null, status: null, sourceId: null, time: all } });
    await page().reload();
    await page().waitForFunction(() => (window as any).__sluice?.store.getState().connection.kind === 'open');
    await rows().nth(2).waitFor();
    const offered = () => page().getByRole('listbox', { name: 'Suggestions' }).getByRole('group', { name: 'Saved searches' }).getByRole('option');

    // Focused, empty: every saved search, none chosen yet.
    await box().focus();
    await expect.poll(() => offered().allTextContents()).toEqual([expect.stringMatching(/^★ Orders order · track$/), expect.stringMatching(/^★ Pricing pages type:page$/)]);
    expect(await box().getAttribute('aria-expanded')).toBe('true');
    expect(await box().getAttribute('aria-activedescendant')).toBeNull();
    await expectAccessible(page(), '.search-suggestions');

    // Typed: those whose name or query holds it; ↓ chooses, Enter takes — the query in the box, its filters on the stream.
    await box().pressSequentially('pri');
    await expect.poll(() => offered().allTextContents()).toEqual([expect.stringMatching(/^★ Pricing pages/)]);
    await box().press('ArrowDown');
    expect(await box().getAttribute('aria-activedescendant')).toBe(await offered().first().getAttribute('id'));
    await box().press('Enter');
    expect(await box().inputValue()).toBe('type:page');
    await expect.poll(() => offered().count()).toBe(0);
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain('Pricing');

    await box().fill('');
    await box().pressSequentially('ORD');
    await expect.poll(() => offered().allTextContents()).toEqual([expect.stringMatching(/^★ Orders/)]);
    await box().press('ArrowDown');
    await box().press('Enter');
    expect(await box().inputValue()).toBe('order');
    expect(await page().getByRole('combobox', { name: 'Type' }).inputValue()).toBe('track');
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain('Order Completed');

    // Enter with nothing chosen searches what is typed, not a saved search; Esc closes the offer.
    await page().getByRole('combobox', { name: 'Type' }).selectOption('');
    await box().fill('');
    await box().pressSequentially('signed');
    await expect.poll(() => offered().count()).toBe(0);
    await box().fill('');
    await box().pressSequentially('order');
    await expect.poll(() => offered().count()).toBe(1);
    await box().press('Escape');
    await expect.poll(() => offered().count()).toBe(0);
    await box().fill('');
    await box().pressSequentially('pri');
    await expect.poll(() => offered().count()).toBe(1);
    await box().press('Enter');
    expect(await box().inputValue()).toBe('pri');
    await expect.poll(() => rows().count()).toBe(1);
    expect(await rows().first().textContent()).toContain('Pricing');
  });
});
