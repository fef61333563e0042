// Tracking plans end to end: the built inspector in Chromium over a real core (headless host) whose
// config puts an inline plan to work on the web source, a Segment Protocols export on ios and a plan
// file in Sluice's format on server. A conforming message, a wrong type, a missing required field and
// an unplanned event arrive; the stream badges the rows and filters on violations; the detail lists
// each violation and shows it beside its field in the JSON tree; the Tracking plans view counts them,
// opens the stream on an event's violations (event and plan chips), adds the unplanned event to the
// plan (plans.list then has it) and re-checks the stored messages with live progress, after which the
// stream's rows lose their badge in place. An export takes no addition (the buttons say why); a
// broken edit of a plan file shows its load error. axe finds no serious or critical problem in the
// view and the detail, in either theme.
import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import type { TrackingPlan } from '../../shared/tracking-plan.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { callOk } from '../helpers/contract.ts';
import { post, tempDir } from '../helpers/core.ts';
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

const SEGMENT_EXPORT = path.resolve(import.meta.dirname, '../fixtures/plans/segment-config-api.json');

describe.skipIf(skipReason !== null)('Tracking plans in the inspector', () => {
  let session: InspectorSession;
  const dir = tempDir('sluice-plans-e2e-');
  const exportFile = path.join(dir, 'segment-export.json');
  const serverFile = path.join(dir, 'server-plan.json');

  beforeAll(async () => {
    fs.copyFileSync(SEGMENT_EXPORT, exportFile);
    fs.writeFileSync(serverFile, JSON.stringify(PLAN));
    const config = parseConfig(
      JSON.stringify({
        sources: [
          { name: 'web', writeKey: 'wk_web', kind: 'web' },
          { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
          { name: 'server', writeKey: 'wk_server', kind: 'server' },
        ],
        destinations: [],
        trackingPlans: [
          { name: 'web plan', sources: ['web'], plan: PLAN, unplanned: 'flag', violations: 'flag' },
          { name: 'ios export', sources: ['ios'], file: exportFile },
          { name: 'server plan', sources: ['server'], file: serverFile },
        ],
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
    fs.rmSync(dir, { recursive: true, force: true });
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
  /** axe on the page in both themes (with its experimental check that a control's name starts with its visible words): no serious or critical problem. */
  const axe = async (include: string) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      const result = await new AxeBuilder({ page: page() })
        .include(include)
        .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
        .analyze();
      const bad = result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${scheme}: ${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary}`).join('; ')}`);
      expect(bad).toEqual([]);
    }
    await page().emulateMedia({ colorScheme: 'light' });
  };
  const views = () => page().getByRole('navigation', { name: 'Views' });
  const chips = () => page().getByRole('group', { name: 'Also narrowed to' });

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

    // Folding the object that holds a note keeps a trace of it on the folded line.
    const missingTree = detail.getByRole('tree', { name: 'Message with violations' });
    await missingTree.getByRole('button', { name: 'root', exact: true, expanded: true }).click();
    expect(await missingTree.getByRole('button', { name: /^1 inside: a note is folded in here/ }).textContent()).toBe('⚠ 1 inside');
    await missingTree.getByRole('button', { name: /^1 inside/ }).click();
    expect(await missingTree.locator('.j-missing').count()).toBe(1);

    await axe('[aria-label="Message detail"]');
  });

  it('counts planned and unplanned events, opens the stream on an event’s violations, adds to the plan and re-checks', async () => {
    const p = page();
    await views().getByRole('button', { name: 'Tracking plans' }).click();
    const plan = p.getByRole('region', { name: 'web plan' });
    const planned = plan.getByRole('table', { name: 'Planned events' });
    const unplanned = plan.getByRole('table', { name: 'Unplanned events' });
    const cells = async (table: typeof planned, name: string) =>
      (await table.getByRole('row').filter({ hasText: name }).first().getByRole('cell').allTextContents()).slice(0, 2);
    await expect.poll(() => cells(planned, 'Order Completed'), { timeout: 10_000 }).toEqual(['3', '2']);
    await expect.poll(() => cells(unplanned, 'Coupon Applied'), { timeout: 10_000 }).toEqual(['1', '1']);
    expect(await plan.getByText('inline: the plan is written in the config file').isVisible()).toBe(true);

    // The schema, folded in a tree.
    await planned.getByRole('row').filter({ hasText: 'Order Completed' }).getByRole('button', { name: 'Schema' }).click();
    expect(await planned.getByRole('tree', { name: 'Schema of Order Completed' }).textContent()).toContain('"required"');
    await shot('plans-view');

    // The violated count opens the stream on that event's messages that break the plan: exact event
    // and plan filters, each a chip that says so.
    await planned.getByRole('button', { name: /^2 violated/ }).click();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(2);
    expect(new Set(await rows().locator('.row-user').allTextContents())).toEqual(new Set(['wrong', 'missing']));
    expect(await chips().getByRole('button').allTextContents()).toEqual(['event: Order Completed ×', 'plan: web plan ×']);
    await shot('stream-plan-chips');
    expect(await p.getByLabel('Search messages').inputValue()).toBe('');
    expect(await p.getByLabel('Source', { exact: true }).inputValue()).not.toBe(''); // the plan's one source
    // Removing the plan chip: every Order Completed of the source.
    await chips().getByRole('button', { name: 'plan: web plan' }).click();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(3);
    expect(await chips().getByRole('button').allTextContents()).toEqual(['event: Order Completed ×']);

    // Esc clears the filters, chips included; the stream badges the coupon. The re-check below must
    // update it with no filter change (which would reload the list anyway).
    await p.keyboard.press('Escape');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(4);
    expect(await chips().count()).toBe(0);
    expect(await row('new').locator('.row-violations').count()).toBe(1);

    // Add to plan: the unplanned event's schema is inferred from its stored example, shown, and added once confirmed.
    await views().getByRole('button', { name: 'Tracking plans' }).click();
    await unplanned.getByRole('row').filter({ hasText: 'Coupon Applied' }).getByRole('button', { name: 'Add to plan' }).click();
    const confirm = p.getByRole('dialog', { name: 'Add “Coupon Applied” to web plan?' });
    await expect.poll(() => confirm.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await confirm.textContent()).toContain('the plan in memory only');
    await confirm.getByRole('button', { name: 'Add to the plan in memory' }).click();
    const added = plan.getByRole('status', { name: 'Added to the plan' });
    await expect.poll(() => added.textContent(), { timeout: 10_000 }).toMatch(/^Added Coupon Applied to web plan: its schema was inferred from 1 stored example\./);
    // An inline plan: the addition lives in memory; stored messages keep their violation until re-checked
    // (its Violated count stays).
    expect(await added.textContent()).toContain('lives in memory until Sluice restarts');
    expect(await added.textContent()).toContain('keep the violations they were stored with');
    expect(await added.getByRole('tree', { name: 'Inferred schema of Coupon Applied' }).textContent()).toContain('"code"');
    const { plans } = await callOk(createHandlers(session.core), 'plans.list', {});
    expect(Object.keys(plans[0]!.plan!.events).sort()).toEqual(['Coupon Applied', 'Order Completed']);
    await expect.poll(() => cells(planned, 'Coupon Applied'), { timeout: 10_000 }).toEqual(['1', '1']);

    // Re-check (from the banner): Coupon Applied is planned now, so its stored violation goes; the bar reaches the end.
    const recheck = p.getByRole('region', { name: 'Re-check stored messages' });
    expect(await recheck.textContent()).toContain('It does not block or release anything');
    await added.getByRole('button', { name: 'Re-check now' }).click();
    await expect.poll(() => recheck.getByRole('status').textContent(), { timeout: 20_000 }).toBe('Finished: 4 messages re-checked · 1 changed its violations.');
    expect(await recheck.getByRole('progressbar', { name: 'Re-check progress' }).getAttribute('aria-valuenow')).toBe('100');
    expect(await recheck.getByRole('button', { name: 'Re-check stored messages' }).isEnabled()).toBe(true);
    await expect.poll(() => cells(planned, 'Coupon Applied'), { timeout: 10_000 }).toEqual(['1', '0']);
    expect(await added.textContent()).toContain('Stored messages were re-checked since');
    await shot('plans-rechecked');
    await axe('.plans-view');

    // The stream read its rows again in place, with no filter change: the coupon's badge is gone.
    await views().getByRole('button', { name: 'Stream' }).click();
    await expect.poll(() => row('new').locator('.row-violations').count(), { timeout: 10_000 }).toBe(0);
    expect(await rows().count()).toBe(4);
    expect(await row('wrong').locator('.row-violations').count()).toBe(1);

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });

  it('takes no addition to a plan read from a vendor export, and says why', async () => {
    const p = page();
    const sent = await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_ios' }, '/v1/track', {
      userId: 'ios-user',
      event: 'Wishlist Opened',
      properties: {},
      context: { library: { name: 'analytics-ios', version: '4.1.0' } },
    });
    expect(sent.status).toBe(200);
    await views().getByRole('button', { name: 'Tracking plans' }).click();
    await p.getByRole('complementary', { name: 'Tracking plans' }).getByRole('button', { name: /^ios export/ }).click();
    const plan = p.getByRole('region', { name: 'ios export' });
    expect(await plan.getByText('Segment Protocols export').first().isVisible()).toBe(true);
    const add = plan.getByRole('table', { name: 'Unplanned events' }).getByRole('row').filter({ hasText: 'Wishlist Opened' }).getByRole('button', { name: 'Add to plan' });
    await expect.poll(() => add.count(), { timeout: 10_000 }).toBe(1);
    expect(await add.isDisabled()).toBe(true);
    const description = await add.evaluate((button) =>
      (button.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
    expect(description).toContain('“Wishlist Opened” to ios export');
    expect(description).toContain(`read from a Segment Protocols export: Sluice does not write to it`);
    expect(description).toContain(`sluice plan import ${exportFile} --out plan.json`);
    for (const button of await plan.getByRole('button', { name: /from examples$/ }).all()) expect(await button.isDisabled()).toBe(true);
    await shot('plans-read-only');
    await axe('.plans-view');
    expect(session.problems).toEqual([]);
  });

  it('shows a plan file’s load error after a broken edit, with the version still in use', async () => {
    const p = page();
    await views().getByRole('button', { name: 'Tracking plans' }).click();
    const list = p.getByRole('complementary', { name: 'Tracking plans' });
    await list.getByRole('button', { name: /^server plan/ }).click();
    const plan = p.getByRole('region', { name: 'server plan' });
    await expect.poll(() => plan.getByRole('table', { name: 'Planned events' }).count(), { timeout: 10_000 }).toBe(1);
    expect(await plan.getByRole('alert').count()).toBe(0);
    fs.writeFileSync(serverFile, '{ "events": ');
    const banner = plan.locator('.plan-load-error');
    await expect.poll(() => banner.count(), { timeout: 10_000 }).toBe(1);
    expect(await banner.getAttribute('role')).toBe('alert');
    expect(await banner.textContent()).toMatch(/^The plan did not load\./);
    expect(await banner.textContent()).toMatch(/The previous version \(\w+, loaded .*\) stays in use until the file loads again/);
    expect(await list.getByRole('button', { name: /^server plan/ }).textContent()).toContain('⚠ load error');
    // Fixed and saved: it loads again and the banner goes.
    fs.writeFileSync(serverFile, JSON.stringify(PLAN));
    await expect.poll(() => banner.count(), { timeout: 10_000 }).toBe(0);
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
