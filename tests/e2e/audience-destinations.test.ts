// An audience's destinations chosen in the editor, end to end: the built inspector in Chromium over a
// real core (headless host), two destinations posting to two hooks of the built-in receiver. The
// choice is made with the keyboard, saved, shown in the detail and again in the editor, and the
// sync reaches only the destination chosen.
import { expectAccessible as expectAccessibleIn } from '../helpers/a11y.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[audience destinations e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('Audience editor: destinations', () => {
  let session: InspectorSession;
  let ids: { crm: number; warehouse: number };

  beforeAll(async () => {
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    const hook = (name: string) => `${session.core.receiver.url}/hooks/${name}`;
    // Both connected to web: by default an audience of web would sync to both.
    const crm = session.core.saveDestination({ name: 'crm', sources: ['web'], webhooks: [{ url: hook('crm') }] });
    const warehouse = session.core.saveDestination({ name: 'warehouse', sources: ['web'], webhooks: [{ url: hook('warehouse') }] });
    ids = { crm: crm.id, warehouse: warehouse.id };
    const res = await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', {
      batch: [
        { type: 'identify', userId: 'ada', traits: { plan: 'pro' } },
        { type: 'identify', userId: 'bob', traits: { plan: 'free' } },
      ],
    });
    expect(res.status).toBe(200);
    await session.open('audiences');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  /** The users each hook got the audience's trait for. */
  const synced = (hook: string) =>
    session.core.receiver
      .inbox(hook)
      .map((entry) => JSON.parse(entry.body) as { userId?: string; traits?: Record<string, unknown> })
      .filter((body) => body.traits?.pro_users !== undefined)
      .map((body) => body.userId);

  it('chooses one destination by keyboard; the sync reaches it alone, and the choice is shown', async () => {
    const p = page();
    const editor = p.getByRole('form', { name: 'New audience' });
    await expect.poll(() => editor.isVisible(), { timeout: 10_000 }).toBe(true);
    await editor.getByLabel('Name', { exact: true }).fill('Pro Users');
    const condition = editor.getByRole('group', { name: 'Condition 1' });
    await condition.getByLabel('Condition 1 trait').fill('plan');
    await condition.getByLabel('Condition 1 value', { exact: true }).fill('pro');
    await editor.getByLabel('Seconds between syncs').fill('3600');

    // The default: the source's destinations, both ticked and not editable.
    const destinations = editor.getByRole('group', { name: 'Destinations' });
    const bySource = destinations.getByRole('radio', { name: /The destinations of “web”/ });
    expect(await bySource.isChecked()).toBe(true);
    expect(await destinations.getByText('every enabled one connected to it at each sync', { exact: false }).textContent()).toBe(
      '— every enabled one connected to it at each sync (now: crm, warehouse)',
    );
    const crmBox = destinations.getByRole('checkbox', { name: /^crm/ });
    const warehouseBox = destinations.getByRole('checkbox', { name: /^warehouse/ });
    expect([await crmBox.isChecked(), await crmBox.isDisabled(), await warehouseBox.isChecked(), await warehouseBox.isDisabled()]).toEqual([true, true, true, true]);

    // Only the ticked ones, by keyboard: arrow to the second radio, tab to crm, space unticks it.
    await bySource.focus();
    await p.keyboard.press('ArrowDown');
    const onlyTicked = destinations.getByRole('radio', { name: 'Only the destinations ticked below' });
    expect(await onlyTicked.isChecked()).toBe(true);
    expect([await crmBox.isChecked(), await crmBox.isDisabled()]).toEqual([true, false]); // starts from what it sends to now
    await p.keyboard.press('Tab');
    expect(await crmBox.evaluate((el) => el === document.activeElement)).toBe(true);
    await p.keyboard.press('Space');
    expect([await crmBox.isChecked(), await warehouseBox.isChecked()]).toEqual([false, true]);
    const preview = editor.getByRole('region', { name: 'Preview' }).getByRole('status');
    await expect.poll(() => preview.textContent(), { timeout: 10_000 }).toBe('1 member now, of 2 users of the source');
    await session.shot('audience-destinations');
    await expectAccessibleIn(session.page, '.aud-editor');

    await editor.getByRole('button', { name: 'Create audience' }).click();
    const detail = p.getByRole('region', { name: 'Pro Users' });
    await expect.poll(() => detail.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await detail.getByText('Sends to', { exact: false }).textContent()).toBe('Sends to warehouse');
    await expect.poll(() => session.core.audiences.list().map((a) => a.destinationIds)).toEqual([[ids.warehouse]]);

    // Demo mode syncs at once: ada reaches the warehouse; the crm hears nothing of the audience.
    await expect.poll(() => synced('warehouse'), { timeout: 10_000 }).toEqual(['ada']);
    await session.core.audiences.idle();
    await session.core.delivery.idle();
    expect(synced('crm')).toEqual([]);
  });

  it('the editor shows the saved choice again, and going back to the source’s destinations is saved too', async () => {
    const p = page();
    const detail = p.getByRole('region', { name: 'Pro Users' });
    await detail.getByRole('button', { name: 'Edit' }).click();
    const editor = p.getByRole('form', { name: 'Edit Pro Users' });
    const destinations = editor.getByRole('group', { name: 'Destinations' });
    expect(await destinations.getByRole('radio', { name: 'Only the destinations ticked below' }).isChecked()).toBe(true);
    expect(await destinations.getByRole('checkbox', { name: /^crm/ }).isChecked()).toBe(false);
    expect(await destinations.getByRole('checkbox', { name: /^warehouse/ }).isChecked()).toBe(true);

    await destinations.getByRole('radio', { name: /The destinations of “web”/ }).check();
    await editor.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => session.core.audiences.list().map((a) => a.destinationIds), { timeout: 10_000 }).toEqual([null]);
    await expect.poll(() => p.getByRole('region', { name: 'Pro Users' }).getByText('Sends to', { exact: false }).textContent(), { timeout: 10_000 }).toBe(
      'Sends to the destinations of web: crm, warehouse',
    );
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
