// Tracking plans end to end: the built inspector in Chromium over a real core (headless host) whose
// config puts an inline plan to work on the web source. A conforming message, a wrong type, a missing
// required field and an unplanned event arrive; the stream badges the rows and filters on violations;
// the detail lists each violation and shows it beside its field in the JSON tree; the Tracking plans
// view counts them, opens the stream on an event's violations, adds the unplanned event to the plan
// (plans.list then has it) and re-checks the stored messages with live progress.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import type { TrackingPlan } from '../../shared/tracking-plan.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { callOk } from '../helpers/contract.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[tracking plans e2e] skipped: ${skipReason}`);

/** Screenshots for the README, in both themes. */
const SHOTS = '/tmp/plan-shots';

const PLAN: TrackingPlan = {
  events: {
    'Order Completed': {
      type: 'object',
      properties: { price: { type: 'number' }, currency: { type: 'string' } },
      required: ['price'],
    },
  },
};

describe.skipIf(skipReason !== null)('Tracking plans in the inspector', () => {
  let session: InspectorSession;

  beforeAll(async () => {
    const config = parseConfig(
      JSON.stringify({
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [],
        trackingPlans: [{ name: 'web plan', sources: ['web'], plan: PLAN, unplanned: 'flag', violations: 'flag' }],
      }),
    );
    session = await openInspector({ config });
    fs.mkdirSync(SHOTS, { recursive: true });
    const track = (userId: string, event: string, properties: Record<string, unknown>) => ({ type: 'track', userId, event, properties });
    const sent = await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', {
      batch: [
        track('good', 'Order Completed', { price: 12.5, currency: 'EUR' }),
        track('wrong', 'Order Completed', { price: '12', currency: 'EUR' }),
        track('missing', 'Order Completed', { currency: 'EUR' }),
        track('new', 'Coupon Applied', { code: 'SPRING', amount: 5 }),
      ],
    });
    expect(sent.status).toBe(200);
    await session.open('stream');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const row = (userId: string) => rows().filter({ hasText: userId });
  const shot = async (name: string) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      await page().screenshot({ path: path.join(SHOTS, `${name}-${scheme}.png`) });
    }
    await page().emulateMedia({ colorScheme: 'light' });
  };

  it('badges rows with violations and filters the stream on them', async () => {
    const p = page();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(4);
    expect(await row('wrong').locator('.row-violations').textContent()).toBe('⚠ 1 violation');
    expect(await row('missing').locator('.row-violations').textContent()).toBe('⚠ 1 violation');
    expect(await row('new').locator('.row-violations').textContent()).toBe('⚠ 1 violation');
    expect(await row('good').locator('.row-violations').count()).toBe(0);

    const toggle = p.getByRole('search', { name: 'Filter messages' }).getByRole('button', { name: 'Violations' });
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(3);
    expect(await row('good').count()).toBe(0);
    await toggle.click();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(4);
  });

  it('lists the violations in the detail and shows each beside its field in the tree', async () => {
    const p = page();
    await row('wrong').click();
    const detail = p.getByRole('region', { name: 'Message detail' });
    const tab = detail.getByRole('tab', { name: /^Violations/ });
    await expect.poll(() => tab.textContent(), { timeout: 10_000 }).toBe('Violations1');

    // The Message tab's tree has the note beside price already.
    const normalized = detail.getByRole('tree', { name: 'Normalized message' });
    expect(await normalized.locator('[data-pointer="/properties/price"]').textContent()).toMatch(/^"price": "12",⚠ Datatype-Mismatch: .*must be a number/);

    await tab.click();
    const items = detail.getByRole('list', { name: 'Violations' }).getByRole('listitem');
    expect(await items.count()).toBe(1);
    const text = await items.first().textContent();
    expect(text).toContain('Datatype-Mismatch');
    expect(text).toContain('properties.price');
    expect(text).toContain('plan “web plan”');
    expect(text).toMatch(/must be a number; got the string "12"/);

    const tree = detail.getByRole('tree', { name: 'Message with violations' });
    const price = tree.locator('[data-pointer="/properties/price"]');
    expect(await price.locator('.j-annot').textContent()).toMatch(/must be a number; got the string "12"/);
    // Choosing the violation focuses its field.
    await items.first().getByRole('button').click();
    await expect.poll(() => p.evaluate(() => document.activeElement?.getAttribute('data-pointer'))).toBe('/properties/price');
    await shot('detail-violations');

    // A missing required field has no node: its note is on the parent object.
    await row('missing').click();
    await expect.poll(() => detail.getByRole('heading', { level: 2 }).textContent()).toBe('Order Completed');
    await expect.poll(() => detail.getByRole('tree', { name: 'Message with violations' }).locator('.j-missing').textContent(), { timeout: 10_000 }).toMatch(
      /^⚠ Required-Missing: missing: price — .*price is required/,
    );
    const missingText = await detail.getByRole('tree', { name: 'Message with violations' }).locator('[data-pointer="/properties"]').count();
    expect(missingText).toBe(1);
  });

  it('counts planned and unplanned events, opens the stream on an event’s violations, adds to the plan and re-checks', async () => {
    const p = page();
    await p.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Tracking plans' }).click();
    const plan = p.getByRole('region', { name: 'web plan' });
    const planned = plan.getByRole('table', { name: 'Planned events' });
    const unplanned = plan.getByRole('table', { name: 'Unplanned events' });
    const cells = async (table: typeof planned, name: string) =>
      (await table.getByRole('row').filter({ hasText: name }).first().getByRole('cell').allTextContents()).slice(0, 2);
    await expect.poll(() => cells(planned, 'Order Completed'), { timeout: 10_000 }).toEqual(['3', '2']);
    await expect.poll(() => cells(unplanned, 'Coupon Applied'), { timeout: 10_000 }).toEqual(['1', '1']);
    expect(await plan.getByText('inline: the plan is written in the config file').isVisible()).toBe(true);

    // The schema, folded in a tree.
    await planned.getByRole('button', { name: 'Schema of Order Completed' }).click();
    expect(await planned.getByRole('tree', { name: 'Schema of Order Completed' }).textContent()).toContain('"required"');
    await shot('plans-view');

    // The violated count opens the stream on that event's messages with violations.
    await planned.getByRole('button', { name: /^2 violated/ }).click();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(2);
    expect(await p.getByRole('search', { name: 'Filter messages' }).getByRole('button', { name: 'Violations' }).getAttribute('aria-pressed')).toBe('true');
    expect(await p.getByLabel('Search messages').inputValue()).toBe('Order Completed');
    expect(new Set(await rows().locator('.row-user').allTextContents())).toEqual(new Set(['wrong', 'missing']));

    // Add to plan: the unplanned event's schema is inferred from its stored example.
    await p.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Tracking plans' }).click();
    await plan.getByRole('button', { name: 'Add “Coupon Applied” to web plan' }).click();
    const added = plan.getByRole('status', { name: 'Added to the plan' });
    await expect.poll(() => added.textContent(), { timeout: 10_000 }).toMatch(/^Added Coupon Applied to web plan: its schema was inferred from 1 stored example\./);
    expect(await added.getByRole('tree', { name: 'Inferred schema of Coupon Applied' }).textContent()).toContain('"code"');
    const { plans } = await callOk(createHandlers(session.core), 'plans.list', {});
    expect(Object.keys(plans[0]!.plan!.events).sort()).toEqual(['Coupon Applied', 'Order Completed']);
    await expect.poll(() => cells(planned, 'Coupon Applied'), { timeout: 10_000 }).toEqual(['1', '1']);

    // Re-check: Coupon Applied is planned now, so its stored violation goes; the bar reaches the end.
    const recheck = p.getByRole('region', { name: 'Re-check stored messages' });
    expect(await recheck.textContent()).toContain('It does not block or release anything');
    await recheck.getByRole('button', { name: 'Re-check stored messages' }).click();
    await expect.poll(() => recheck.getByRole('status').textContent(), { timeout: 20_000 }).toBe('Finished: 4 messages re-checked · 1 changed its violations.');
    expect(await recheck.getByRole('progressbar', { name: 'Re-check progress' }).getAttribute('aria-valuenow')).toBe('100');
    expect(await recheck.getByRole('button', { name: 'Re-check stored messages' }).isEnabled()).toBe(true);
    await expect.poll(() => cells(planned, 'Coupon Applied'), { timeout: 10_000 }).toEqual(['1', '0']);
    await shot('plans-rechecked');

    // The stream read its rows again: the coupon's badge is gone.
    await p.getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Stream' }).click();
    await p.keyboard.press('Escape');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(4);
    await expect.poll(() => row('new').locator('.row-violations').count(), { timeout: 10_000 }).toBe(0);

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
