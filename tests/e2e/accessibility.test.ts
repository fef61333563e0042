// Accessibility of every view, end to end: the built inspector in Chromium over a real core (headless
// host) holding realistic data — messages of every type with properties and traits, two destinations
// (one posting to the built-in receiver, one to a loopback receiver that answers 400, so deliveries
// fail), a source made in the inspector, a tracking plan with a
// violation, an audience, a deletion request. For each view of the rail and the states that matter
// (the message detail on each tab, the search syntax help, the editors, the dialogs, the Issues view's
// groups), in the light
// and the dark theme: no serious or critical axe-core violation (WCAG 2.0/2.1 A and AA, colour
// contrast included); every visible control reached by Tab from the top; nothing clickable that the
// keyboard cannot focus; the stream's rows reached by the list's keys.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import { axeProblems, pointerOnly, tabWalk } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { callOk } from '../helpers/contract.ts';
import { post, tempDir } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[accessibility e2e] skipped: ${skipReason}`);

/** Clickable without a focusable control of their own, on purpose: printed so the reason is on record. */
const POINTER_ONLY_ALLOWED: Record<string, string> = {
  '.j-folded': 'a folded JSON node’s summary: a click unfolds it, as its ▸ button just before it does (which the keyboard reaches)',
};

// Each test runs axe over several views in both themes: 40-55 s on a quiet two-core machine, more when
// other test files share the cores. A bound, not a measure: give each three minutes.
describe.skipIf(skipReason !== null)('accessibility of every view, both themes', { timeout: 180_000 }, () => {
  let session: InspectorSession;
  let crm: Receiver;
  const dir = tempDir('sluice-a11y-e2e-');

  beforeAll(async () => {
    crm = await startReceiver();
    crm.fallback = { status: 400, body: '{"error":"unknown field"}', headers: { 'content-type': 'application/json' } };
    const config = parseConfig(
      JSON.stringify({
        sources: [
          { name: 'web', writeKey: 'wk_web', kind: 'web' },
          { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
        ],
        destinations: [],
        trackingPlans: [
          {
            name: 'web plan',
            sources: ['web'],
            plan: { events: { 'Order Completed': { type: 'object', properties: { price: { type: 'number' }, currency: { type: 'string' } }, required: ['price'] } } },
          },
        ],
        audiences: [{ source: 'web', name: 'Pro users', rule: { conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] }, intervalSeconds: 3600 }],
      }),
    );
    session = await openInspector({ config });
    const { core } = session;
    core.saveDestination({ name: 'warehouse', sources: ['web', 'ios'], sharedSecret: 'a11y-secret', webhooks: [{ url: core.receiver.hookUrl('warehouse') }] });
    core.saveDestination({ name: 'crm', sources: ['web'], webhooks: [{ url: `${crm.url}/crm` }] });
    const context = { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (Macintosh)', library: { name: 'analytics.js', version: '2.11.1' }, page: { path: '/checkout' } };
    const web = await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', {
      batch: [
        { type: 'identify', userId: 'u_ada', traits: { email: 'ada@example.com', name: 'Ada Lovelace', plan: 'pro' }, context },
        { type: 'page', anonymousId: 'anon_7', name: 'Pricing', properties: { path: '/pricing', url: 'https://shop.example/pricing', title: 'Pricing' }, context },
        { type: 'group', userId: 'u_ada', groupId: 'acme', traits: { name: 'Acme Inc', employees: 40 }, context },
        { type: 'alias', previousId: 'anon_7', userId: 'u_ada', context },
        { type: 'identify', userId: 'u_gone', traits: { email: 'gone@example.com' }, context },
        {
          type: 'track',
          userId: 'u_ada',
          event: 'Order Completed',
          properties: { order_id: 'ord_123', price: 42.5, currency: 'EUR', products: [{ sku: 'sku_17', name: 'Mug', quantity: 2 }, { sku: 'sku_4', name: 'Tea', quantity: 1 }] },
          context,
        },
        { type: 'track', userId: 'u_bob', event: 'Order Completed', properties: { order_id: 'ord_124', price: '12', currency: 'EUR' }, context },
      ],
    });
    expect(web.status).toBe(200);
    const ios = await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_ios' }, '/v1/batch', {
      batch: [{ type: 'screen', userId: 'u_ada', name: 'Basket', properties: { items: 3 }, context: { app: { name: 'Shop', version: '3.2.0' }, os: { name: 'iOS' } } }],
    });
    expect(ios.status).toBe(200);
    const handlers = createHandlers(core);
    await callOk(handlers, 'deletions.create', { userId: 'u_gone', purge: false });
    await callOk(handlers, 'sources.save', { name: 'server', writeKey: 'wk_server_a11y', kind: 'server' });
    // Every web message fails at crm (400, final) and reaches the warehouse (the built-in receiver's hook).
    const failed = async () => (await callOk(handlers, 'messages.list', { limit: 100 })).messages.filter((m) => m.delivery?.status === 'failed').length;
    for (const end = Date.now() + 15_000; (await failed()) !== 7; await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() > end) throw new Error(`only ${await failed()} of the 7 web messages show a failed delivery after 15 s`);
    }
    await session.open('stream');
  });

  afterAll(async () => {
    await session?.close();
    await crm?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const page = () => session.page;
  const nav = (name: string) => page().getByRole('navigation', { name: 'Views' }).getByRole('button', { name, exact: true });
  const list = () => page().getByRole('listbox', { name: 'Messages' });
  const detail = () => page().getByRole('region', { name: 'Message detail' });

  /** axe in both themes, the Tab walk and the pointer-only check, on the page as it is now. */
  async function check(label: string): Promise<void> {
    const started = Date.now();
    const axe = await axeProblems(page(), label);
    const axed = Date.now();
    const walk = await tabWalk(page());
    if (process.env.A11Y_DEBUG) console.log(`${label}: axe ${axed - started} ms, Tab walk ${Date.now() - axed} ms (${walk.order.length} stops)`);
    const unreached = walk.missed.map((m) => `${label}: Tab never reaches ${m}`);
    const pointer = (await pointerOnly(page(), POINTER_ONLY_ALLOWED)).map((m) => `${label}: clickable but not focusable: ${m}`);
    expect([...axe, ...unreached, ...pointer], [...axe, ...unreached, ...pointer].join('\n')).toEqual([]);
    expect(walk.controls).toBeGreaterThan(0);
  }

  /** A screenshot in the dark theme (test-results/screenshots/<name>.png). */
  async function darkShot(name: string): Promise<void> {
    await page().emulateMedia({ colorScheme: 'dark' });
    await session.shot(name);
    await page().emulateMedia({ colorScheme: 'light' });
  }

  async function openView(name: string, ready: () => Promise<boolean>): Promise<void> {
    await nav(name).click();
    await expect.poll(ready, { timeout: 10_000 }).toBe(true);
  }

  it('prints the exceptions it makes, with their reasons', () => {
    for (const [selector, reason] of Object.entries(POINTER_ONLY_ALLOWED)) console.info(`[accessibility e2e] pointer-only allowed: ${selector} — ${reason}`);
  });

  it('the checks find what they look for: faint text, a control Tab skips, a clickable span', async () => {
    await expect.poll(() => list().getByRole('option').count(), { timeout: 10_000 }).toBe(8);
    await page().evaluate(() => {
      const planted = document.createElement('div');
      planted.id = 'a11y-planted';
      planted.innerHTML = '<p style="color:#999;background:#aaa">Faint words</p><button type="button" tabindex="-1">Skipped by Tab</button><span style="cursor:pointer">Click-only</span>';
      document.body.append(planted);
    });
    const axe = await axeProblems(page(), 'planted');
    expect(axe.filter((p) => p.includes('color-contrast') && p.includes('#a11y-planted'))).toHaveLength(2); // light and dark
    expect((await tabWalk(page())).missed).toEqual(['<button> “Skipped by Tab”']);
    expect(await pointerOnly(page(), POINTER_ONLY_ALLOWED)).toEqual(['<span class=""> “Click-only”']);
    await page().evaluate(() => document.getElementById('a11y-planted')?.remove());
  });

  it('stream: the list, its rows reached by the list’s keys, and the detail on each tab', async () => {
    const p = page();
    await expect.poll(() => list().getByRole('option').count(), { timeout: 10_000 }).toBe(8);
    await darkShot('a11y-dark-stream-list');
    await check('stream');

    // The rows by keyboard: focus the list, ↓ selects, Enter opens.
    await list().focus();
    await p.keyboard.press('Home');
    await expect.poll(() => list().getAttribute('aria-activedescendant')).toMatch(/^msg-\d+$/);
    for (let i = 0; i < 8; i++) {
      const active = await list().getAttribute('aria-activedescendant');
      if (((await p.locator(`[id="${active}"]`).textContent()) ?? '').includes('u_bob')) break;
      await p.keyboard.press('ArrowDown');
    }
    await p.keyboard.press('Enter');
    await expect.poll(() => detail().getByRole('heading', { name: 'Order Completed' }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await detail().textContent()).toContain('ord_124');

    // Each tab, moved to by the tab list's arrow keys.
    const tabs = detail().getByRole('tablist', { name: 'Message detail' });
    const names = await tabs.getByRole('tab').evaluateAll((els) => els.map((el) => (el.textContent ?? '').replace(/\d+$/, '').trim()));
    expect(names).toEqual(['Message', 'Violations', 'Webhook request', 'Attempts', 'Replay', 'Try']);
    await tabs.getByRole('tab', { selected: true }).focus();
    await p.keyboard.press('Home');
    for (const name of names) {
      await expect.poll(() => tabs.getByRole('tab', { selected: true }).textContent()).toMatch(new RegExp(`^${name}`));
      await expect.poll(() => p.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('tab');
      if (name === 'Webhook request') await darkShot('a11y-dark-stream-webhook');
      await check(`stream · detail · ${name}`);
      await tabs.getByRole('tab', { selected: true }).focus();
      await p.keyboard.press('ArrowRight');
    }
  });

  it('stream: the search syntax help, completion, time range, and the dialogs Replay…, Export…, Clear these…, Import…', async () => {
    const p = page();
    const filters = p.getByRole('search', { name: 'Filter messages' });
    await filters.getByRole('button', { name: 'Syntax' }).click();
    await expect.poll(() => p.getByRole('region', { name: 'Search syntax' }).isVisible()).toBe(true);
    await check('stream · search syntax help');
    await filters.getByRole('button', { name: 'Syntax' }).click();

    // The completion open (axe sees it; the Tab walk then closes it, as leaving the box does), a custom
    // time range and the footer's Go to time… form.
    const search = filters.getByRole('combobox', { name: 'Search messages' });
    await search.focus();
    await p.keyboard.type('type:');
    await expect.poll(() => p.getByRole('listbox', { name: 'Suggestions' }).getByRole('option').count()).toBeGreaterThan(0);
    await filters.getByRole('combobox', { name: 'Time range' }).selectOption('custom');
    await expect.poll(() => p.getByRole('group', { name: 'Custom time range' }).isVisible()).toBe(true);
    await p.getByRole('button', { name: 'Go to time…' }).click();
    await search.focus();
    await p.keyboard.press('ArrowDown');
    await expect.poll(() => search.getAttribute('aria-expanded')).toBe('true');
    await check('stream · completion, custom range, Go to time…');
    await p.getByRole('button', { name: 'Go to time…' }).click();
    await search.fill('');
    await filters.getByRole('combobox', { name: 'Time range' }).selectOption('all');
    await expect.poll(() => list().getByRole('option').count(), { timeout: 10_000 }).toBeGreaterThanOrEqual(8);

    const dialogs: [string, RegExp][] = [
      ['Replay…', /Replay messages/],
      ['Export…', /Export/],
      ['Clear these…', /Clear/],
    ];
    for (const [button, title] of dialogs) {
      await filters.getByRole('button', { name: button }).click();
      const dialog = p.getByRole('dialog', { name: title });
      await expect.poll(() => dialog.isVisible(), { timeout: 10_000 }).toBe(true);
      await check(`stream · ${button} dialog`);
      await p.keyboard.press('Escape');
      await expect.poll(() => p.getByRole('dialog').count()).toBe(0);
    }

    const file = path.join(dir, 'events.ndjson');
    fs.writeFileSync(file, `${JSON.stringify({ type: 'track', userId: 'u_cy', event: 'Imported' })}\n`);
    await filters.getByLabel('File to import').setInputFiles(file);
    const importing = p.getByRole('dialog', { name: 'Import events.ndjson' });
    await expect.poll(() => importing.isVisible(), { timeout: 10_000 }).toBe(true);
    await check('stream · Import… dialog');
    await p.keyboard.press('Escape');
    await expect.poll(() => p.getByRole('dialog').count()).toBe(0);
  });

  it('destinations: the list, the editor and the delete confirmation', async () => {
    await openView('Destinations', () => page().getByRole('complementary', { name: 'Destinations' }).getByRole('button', { name: /^warehouse/ }).isVisible());
    await check('destinations · editor of warehouse');
    await page().getByRole('button', { name: 'Delete destination…' }).click();
    await expect.poll(() => page().getByRole('dialog', { name: 'Delete destination' }).isVisible(), { timeout: 10_000 }).toBe(true);
    await check('destinations · delete confirmation');
    await page().keyboard.press('Escape');
    await expect.poll(() => page().getByRole('dialog').count()).toBe(0);
    await page().getByRole('button', { name: '+ New destination' }).click();
    await check('destinations · new destination');
  });

  it('sources: the list and the editor', async () => {
    await openView('Sources', () => page().getByRole('region', { name: 'web', exact: true }).isVisible());
    await check('sources');
    await page().getByRole('button', { name: 'Edit source server' }).click();
    await expect.poll(() => page().getByRole('form', { name: 'Edit source server' }).isVisible()).toBe(true);
    await check('sources · editor');
    await page().keyboard.press('Escape');
    await page().getByRole('button', { name: '+ New source' }).click();
    await check('sources · new source');
    await page().keyboard.press('Escape');
  });

  it('composer', async () => {
    await openView('Composer', () => page().getByRole('heading', { name: 'Composer' }).isVisible());
    await check('composer');
  });

  it('audiences: the detail and the editor', async () => {
    await openView('Audiences', () => page().getByRole('heading', { name: 'Pro users' }).isVisible());
    await check('audiences · detail');
    await page().getByRole('button', { name: 'Edit', exact: true }).click();
    await expect.poll(() => page().getByRole('form').first().isVisible()).toBe(true);
    await check('audiences · editor');
    await page().getByRole('button', { name: '+ New' }).click();
    await expect.poll(() => page().getByRole('form', { name: 'New audience' }).isVisible()).toBe(true);
    await check('audiences · new audience');
  });

  it('tracking plans', async () => {
    await openView('Tracking plans', () => page().getByText('web plan').first().isVisible());
    await check('tracking plans');
  });

  it('issues: the groups, and the stream’s Retry failed… dialog', async () => {
    // crm's failed deliveries (400, final) make one open group.
    await openView('Issues', async () => (await page().getByRole('list', { name: /^Issues/ }).getByRole('listitem').count()) === 1);
    await darkShot('a11y-dark-issues');
    await check('issues');
    await page().getByRole('combobox', { name: 'Show' }).selectOption('all');
    await check('issues · open and closed');
    await nav('Stream').click();
    await page().getByRole('button', { name: /^Retry failed…/ }).click();
    await expect.poll(() => page().getByRole('dialog', { name: 'Retry failed deliveries' }).isVisible(), { timeout: 10_000 }).toBe(true);
    await check('stream · Retry failed… dialog');
    await page().keyboard.press('Escape');
    await expect.poll(() => page().getByRole('dialog').count()).toBe(0);
  });

  it('deletions: the list and the confirmation', async () => {
    await openView('Deletions', () => page().getByRole('listitem', { name: 'Deletion request for u_gone' }).isVisible());
    await check('deletions');
    const form = page().getByRole('form', { name: 'New deletion request' });
    await form.getByRole('textbox', { name: 'User ID' }).fill('u_ada');
    await form.getByRole('checkbox', { name: /Also delete the user’s stored messages/ }).check();
    await form.getByRole('button', { name: 'Request deletion' }).click();
    await expect.poll(() => page().getByRole('dialog', { name: 'Purge user u_ada?' }).isVisible(), { timeout: 10_000 }).toBe(true);
    await check('deletions · purge confirmation');
    await page().keyboard.press('Escape');
    await expect.poll(() => page().getByRole('dialog').count()).toBe(0);
    expect(session.core.deletionRequests.recent(10).map((r) => r.userId)).toEqual(['u_gone']);
  });

  it('receiver', async () => {
    await openView('Receiver', () => page().getByRole('heading', { name: 'Built-in receiver' }).isVisible());
    await check('receiver');
    await page().locator('.inbox-summary').first().click();
    await expect.poll(() => page().locator('.inbox-detail').first().isVisible(), { timeout: 10_000 }).toBe(true);
    await check('receiver · a request opened');
  });

  it('settings', async () => {
    await openView('Settings', () => page().getByRole('heading', { name: 'Settings' }).first().isVisible());
    await darkShot('a11y-dark-settings');
    await check('settings');
  });

  it('logged no page errors and made no off-site requests', () => {
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
