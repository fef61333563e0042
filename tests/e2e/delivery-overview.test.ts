// The delivery overview in Chromium (issue 29, point 1) over a real core (headless host): a destination
// that delivers (with a filter that drops debug events), one whose receiver answers 500 (retrying), a
// tracking plan that blocks. The view counts each step; a step's count opens the stream on exactly its
// messages (the search box holds delivery:"name:step", the list those rows); every control is reached
// by Tab, and axe finds nothing serious or critical in the light or the dark theme.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import { axeProblems, tabWalk } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[delivery overview e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('the delivery overview', () => {
  let session: InspectorSession;
  let ok: Receiver;
  let down: Receiver;
  const page = () => session.page;
  const funnel = (name: string) => page().getByRole('region', { name });
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');

  beforeAll(async () => {
    [ok, down] = await Promise.all([startReceiver(), startReceiver()]);
    down.fallback = { status: 500, body: 'down' };
    session = await openInspector({
      config: parseConfig(JSON.stringify({
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [
          { name: 'shop', enabled: true, sources: ['web'], webhooks: [{ url: `${ok.url}/shop`, headers: {} }], filters: [{ if: 'event:Debug*', drop: true }] },
          { name: 'crm', enabled: true, sources: ['web'], webhooks: [{ url: `${down.url}/crm`, headers: {} }] },
        ],
        trackingPlans: [{ name: 'strict', sources: ['web'], unplanned: 'allow', violations: 'block', plan: { events: { Checkout: { type: 'object', required: ['total'] } } } }],
      })),
    });
    const batch = [
      ...['o1', 'o2', 'o3'].map((messageId) => ({ type: 'track', userId: 'u', messageId, event: 'Order Completed', properties: { total: 5 } })),
      { type: 'track', userId: 'u', messageId: 'd1', event: 'Debug Ping' },
      { type: 'track', userId: 'u', messageId: 'd2', event: 'Debug Pong' },
      { type: 'track', userId: 'u', messageId: 'b1', event: 'Checkout', properties: {} },
    ];
    expect((await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch })).status).toBe(200);
    await ok.waitFor(3, 15_000);
    await down.waitFor(1, 15_000);
    await session.open('deliveries');
  });
  afterAll(async () => {
    await session?.close();
    await ok?.close();
    await down?.close();
  });

  it("counts each destination's steps", async () => {
    const shop = funnel('shop');
    await expect.poll(() => shop.getByRole('row', { name: /^Received from its sources/ }).textContent(), { timeout: 10_000 }).toContain('6');
    const count = (row: RegExp) => shop.getByRole('row', { name: row }).getByRole('cell').first().textContent();
    expect(await count(/^Delivered/)).toBe('3');
    expect(await count(/^dropped by the destination's filters/)).toBe('2');
    expect(await count(/^blocked by a tracking plan/)).toBe('1');
    expect(await count(/^Failed/)).toBe('0');
    await expect.poll(() => funnel('crm').getByRole('row', { name: /^Retrying/ }).getByRole('cell').first().textContent(), { timeout: 10_000 }).toBe('5');
    await shop.getByText(/Reasons not sent/).click();
    expect(await shop.getByRole('list', { name: 'Reasons shop did not send' }).textContent()).toContain('dropped by filter 1 (if: event:Debug*)');
    await session.shot('delivery-overview');
  });

  it('has no serious or critical axe problem in either theme, and Tab reaches every control', async () => {
    expect(await axeProblems(page(), 'delivery overview')).toEqual([]);
    const walk = await tabWalk(page());
    expect(walk.missed).toEqual([]);
    // The rail, the window, the counts (shop: received, skipped, two kinds, attempted, delivered; crm: more), the reasons.
    expect(walk.controls).toBeGreaterThan(20);
  });

  it("opens a step's count as the stream filtered to exactly its messages, from the keyboard", async () => {
    const button = funnel('shop').getByRole('button', { name: /dropped by the destination's filters — open in the stream \(shop\)/ });
    await button.focus();
    await page().keyboard.press('Enter');
    await expect.poll(() => page().getByRole('combobox', { name: 'Search messages' }).inputValue()).toBe('delivery:shop:skipped-filter');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(2);
    const texts = await rows().allTextContents();
    expect(texts.every((t) => /Debug P(ing|ong)/.test(t))).toBe(true);
    // Back, and the crm's retrying ones: the five its filters let through (all but the blocked checkout).
    await session.open('deliveries');
    await funnel('crm').getByRole('button', { name: /retrying — open in the stream \(crm\)/i }).click();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(5);
    expect((await rows().allTextContents()).some((t) => t.includes('Checkout'))).toBe(false);
  });
});
