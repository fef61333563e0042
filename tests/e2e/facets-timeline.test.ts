// Issue 29, point 5, in the inspector: the facets and timeline panel over the stream, in Chromium
// over a real core whose clock places the messages in time (40 Order Completed, then 6 Signed In five
// minutes later). A facet value clicked narrows the list and puts its clause in the search box; the
// timeline's bars set the list's time range by keyboard (Home, Enter) and by a brush (drag); axe finds
// nothing serious in the panel, light or dark.
import AxeBuilder from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[facets e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('facets and timeline', () => {
  let session: InspectorSession;
  const T0 = Math.floor((Date.now() - 600_000) / 60_000) * 60_000;
  let now = T0;

  beforeAll(async () => {
    session = await openInspector({ clock: { now: () => now }, config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    const web = { ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' };
    const orders = Array.from({ length: 40 }, (_, i) => ({ type: 'track', event: 'Order Completed', userId: `u_${i % 4}`, properties: { plan: i % 2 ? 'pro' : 'team plan' } }));
    expect((await post(web, '/v1/batch', { batch: orders })).status).toBe(200);
    now = T0 + 300_000;
    const signIns = Array.from({ length: 6 }, (_, i) => ({ type: 'track', event: 'Signed In', userId: `s_${i}` }));
    expect((await post(web, '/v1/batch', { batch: signIns })).status).toBe(200);
    await session.open('stream');
    await session.page.getByRole('button', { name: 'Facets and timeline' }).click();
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const panel = () => page().getByRole('region', { name: 'Facets and timeline' });
  const footer = () => page().getByTestId('stream-counts');
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');

  it('a facet value narrows the list and puts its clause in the search box', async () => {
    const signedIn = panel().getByRole('button', { name: 'Signed In 6: event, 6 messages; adds event:"Signed In" to the search' });
    await expect.poll(() => signedIn.count(), { timeout: 10_000 }).toBe(1);
    expect(await panel().getByRole('button', { name: /^Order Completed 40: event, 40 messages/ }).count()).toBe(1);
    await signedIn.click();
    await expect.poll(() => page().getByRole('combobox', { name: /search/i }).inputValue(), { timeout: 10_000 }).toBe('event:"Signed In"');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(6);
    await expect.poll(() => footer().textContent(), { timeout: 10_000 }).toMatch(/^6 of 46 messages match/);
    // The facets follow the search: only Signed In is left.
    await expect.poll(() => panel().getByRole('button', { name: /: event, / }).count(), { timeout: 10_000 }).toBe(1);
  });

  it("a payload field of the user's choosing is counted too", async () => {
    await page().getByRole('button', { name: 'Clear filters' }).click();
    await panel().getByRole('textbox', { name: 'Payload field' }).fill('properties.plan');
    await panel().getByRole('button', { name: 'Count values' }).click();
    const team = panel().getByRole('button', { name: 'team plan 20: properties.plan, 20 messages; adds properties.plan:"team plan" to the search' });
    await expect.poll(() => team.count(), { timeout: 10_000 }).toBe(1);
  });

  it("the timeline by keyboard: Home then Enter shows only the first bar's messages", async () => {
    const bars = panel().getByRole('group', { name: /^Messages over time, 10 seconds a bar/ }).getByRole('button');
    await expect.poll(() => bars.count(), { timeout: 10_000 }).toBe(31);
    expect(await bars.nth(0).getAttribute('aria-label')).toMatch(/: 40 messages$/);
    expect(await bars.nth(30).getAttribute('aria-label')).toMatch(/: 6 messages$/);
    await bars.nth(30).focus();
    await page().keyboard.press('Home');
    await page().keyboard.press('Enter');
    await expect.poll(() => page().getByRole('combobox', { name: 'Time range' }).inputValue(), { timeout: 10_000 }).toBe('custom');
    await expect.poll(() => footer().textContent(), { timeout: 10_000 }).toMatch(/^40 of 46 messages match/);
  });

  it('the timeline by brush: a drag across the last bars shows only their messages', async () => {
    await page().getByRole('button', { name: 'Clear filters' }).click();
    const bars = panel().getByRole('group', { name: /^Messages over time/ }).getByRole('button');
    await expect.poll(() => bars.count(), { timeout: 10_000 }).toBe(31);
    const a = (await bars.nth(24).boundingBox())!;
    const b = (await bars.nth(30).boundingBox())!;
    await page().mouse.move(a.x + a.width / 2, a.y + a.height - 2);
    await page().mouse.down();
    await page().mouse.move(b.x + b.width / 2, b.y + b.height - 2, { steps: 5 });
    await page().mouse.up();
    await expect.poll(() => footer().textContent(), { timeout: 10_000 }).toMatch(/^6 of 46 messages match/);
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(6);
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious accessibility problem in the panel (${scheme})`, async () => {
      await page().emulateMedia({ colorScheme: scheme });
      const result = await new AxeBuilder({ page: page() }).include('.facets-panel').analyze();
      expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`)).toEqual([]);
    });
  }
});
