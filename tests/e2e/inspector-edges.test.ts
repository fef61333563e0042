// Small things of the inspector (issue 24, point 11), each in Chromium over a real core, real receivers
// and a real plan file: after a first event with no destination the inspector says how to get a signed
// delivery (and gets one in a click); counts agree with their nouns ("1 message"); the Syntax help
// closes on Esc and gives the focus back, leaving the filters alone; a field written without its colon
// says what was meant; "Add to plan" shows the change and asks before it writes; a forward's
// Authorization header reaches the page masked, and Reveal reads it from the core.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import { expectAccessible } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post, tempDir } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[inspector edges e2e] skipped: ${skipReason}`);

const UPSTREAM_KEY = 'wk_upstream_secret';

describe.skipIf(skipReason !== null)('small things of the inspector', () => {
  let session: InspectorSession;
  let upstream: Receiver;
  const dir = tempDir('sluice-edges-e2e-');
  const planFile = path.join(dir, 'plan.json');

  beforeAll(async () => {
    upstream = await startReceiver();
    fs.writeFileSync(planFile, '{ "events": {} }\n');
    const config = parseConfig(
      JSON.stringify({
        sources: [
          { name: 'web', writeKey: 'wk_web', kind: 'web' },
          { name: 'app', writeKey: 'wk_app', kind: 'server' },
        ],
        destinations: [{ name: 'upstream', sources: ['app'], kind: 'tracking-api', trackingApi: { url: upstream.url, writeKey: UPSTREAM_KEY, batchSize: 1, flushMs: 0 } }],
        trackingPlans: [{ name: 'app plan', sources: ['app'], file: planFile }],
      }),
    );
    session = await openInspector({ config });
    await session.open('stream');
  });
  afterAll(async () => {
    await session?.close();
    await upstream?.close();
  });

  const page = () => session.page;
  const detail = () => page().getByRole('region', { name: 'Message detail' });
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const counts = () => page().getByTestId('stream-counts');
  const box = () => page().getByRole('combobox', { name: 'Search messages' });
  const send = (writeKey: string, event: string, properties: Record<string, unknown> = {}) =>
    post({ ingestUrl: session.core.ingestUrl, writeKey }, '/v1/track', { userId: 'u_1', event, properties });

  it('after a first event with no destination, says how to get a signed delivery, and gets one in a click', async () => {
    expect((await send('wk_web', 'First Event')).status).toBe(200);
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => counts().textContent()).toBe('1 message · 1 loaded');
    const hint = detail().getByRole('region', { name: 'Stored, but sent nowhere' });
    await expect.poll(() => hint.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await hint.textContent()).toContain('No enabled destination receives source “web”');
    await expectAccessible(page(), '.detail');
    await session.shot('edges-first-event-hint');

    await hint.getByRole('button', { name: 'Deliver to the built-in receiver' }).click();
    const done = detail().getByRole('region', { name: 'Delivering to the built-in receiver' });
    await expect.poll(() => done.getByRole('status').textContent(), { timeout: 10_000 }).toMatch(/^Made the destination “Built-in receiver” \(sluice:\/\/receiver\/demo, signed/);
    expect((await send('wk_web', 'Second Event')).status).toBe(200);
    await expect.poll(() => rows().filter({ hasText: 'Second Event' }).textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    expect(session.core.receiver.inbox('demo').map((entry) => entry.signature)).toEqual(['valid']);
    await expect.poll(() => counts().textContent()).toBe('2 messages · 2 loaded');
  });

  it('the Syntax help closes on Esc, gives the focus back to its button, and leaves the search as it was', async () => {
    await box().fill('type:track');
    await expect.poll(() => counts().textContent()).toMatch(/^\d+ of \d+ messages? match/);
    const syntax = page().getByRole('button', { name: 'Syntax' });
    await syntax.click();
    const help = page().getByRole('region', { name: 'Search syntax' });
    await expect.poll(() => help.isVisible()).toBe(true);
    await help.getByRole('button', { name: 'userId:u_*' }).focus();
    await page().keyboard.press('Escape');
    await expect.poll(() => help.count()).toBe(0);
    expect(await syntax.getAttribute('aria-expanded')).toBe('false');
    expect(await page().evaluate(() => document.activeElement?.textContent)).toBe('Syntax');
    expect(await box().inputValue()).toBe('type:track');
    // Open again, Esc from its button: the same.
    await syntax.press('Enter');
    await expect.poll(() => help.isVisible()).toBe(true);
    await syntax.press('Escape');
    await expect.poll(() => help.count()).toBe(0);
    expect(await box().inputValue()).toBe('type:track');
  });

  it('a field without its colon says what was meant, and the fix is one click', async () => {
    expect((await send('wk_web', 'Big Order', { revenue: 25 })).status).toBe(200);
    expect((await send('wk_web', 'Small Order', { revenue: 5 })).status).toBe(200);
    await box().fill('properties.revenue>=10');
    const problem = page().locator('.search-error');
    await expect.poll(() => problem.textContent()).toContain('did you mean properties.revenue:>=10?');
    await problem.getByRole('button', { name: 'Search properties.revenue:>=10' }).click();
    expect(await box().inputValue()).toBe('properties.revenue:>=10');
    await expect.poll(() => rows().allTextContents(), { timeout: 10_000 }).toEqual([expect.stringContaining('Big Order')]);
    await expect.poll(() => counts().textContent()).toMatch(/^1 of \d+ messages matches/);
    await box().fill('');
    await expect.poll(() => counts().textContent()).toMatch(/^\d+ messages · \d+ loaded$/);
  });

  it('“Add to plan” shows what it adds to which file and asks first; Esc writes nothing', async () => {
    expect((await send('wk_app', 'Coupon Applied', { code: 'SPRING' })).status).toBe(200);
    const before = fs.readFileSync(planFile, 'utf8');
    await page().getByRole('button', { name: 'Tracking plans', exact: true }).click();
    const plan = page().getByRole('region', { name: 'app plan' });
    const add = plan.getByRole('table', { name: 'Unplanned events' }).getByRole('row').filter({ hasText: 'Coupon Applied' }).getByRole('button', { name: 'Add to plan' });
    await expect.poll(() => add.count(), { timeout: 10_000 }).toBe(1);
    await add.click();
    const dialog = page().getByRole('dialog', { name: 'Add “Coupon Applied” to app plan?' });
    await expect.poll(() => dialog.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await dialog.textContent()).toContain(`the plan file ${planFile}`);
    const change = await dialog.locator('.plan-change').textContent();
    expect(change).toContain('+   "Coupon Applied": {');
    expect(change).toContain('"code"');
    expect(fs.readFileSync(planFile, 'utf8')).toBe(before); // asked, not written
    // Like every modal (components/Dialog.tsx), in <body>: not inside the plans view, its styles or a form.
    expect(await dialog.evaluate((el) => el.parentElement === document.body)).toBe(true);
    await expectAccessible(page(), '.plan-dialog');
    await session.shot('edges-add-to-plan');
    await page().keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(fs.readFileSync(planFile, 'utf8')).toBe(before);

    await add.click();
    await dialog.getByRole('button', { name: 'Write to plan.json' }).click();
    await expect.poll(() => plan.getByRole('status', { name: 'Added to the plan' }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(Object.keys((JSON.parse(fs.readFileSync(planFile, 'utf8')) as { events: object }).events)).toEqual(['Coupon Applied']);
  });

  it('a forward’s Authorization reaches the page masked; Reveal reads it from the core', async () => {
    const key = Buffer.from(`${UPSTREAM_KEY}:`).toString('base64');
    await page().getByRole('button', { name: 'Stream', exact: true }).click();
    const clear = page().locator('.top-bar').getByRole('button', { name: 'Clear filters' });
    if (await clear.isEnabled()) await clear.click(); // whatever an earlier test left
    expect((await send('wk_app', 'Forwarded Order')).status).toBe(200);
    const forwarded = rows().filter({ hasText: 'Forwarded Order' });
    await expect.poll(() => forwarded.textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await forwarded.click();
    await detail().getByRole('tab', { name: 'Forward request' }).click();
    const table = detail().getByRole('table', { name: 'Request headers' });
    const auth = table.getByRole('row').filter({ hasText: 'Authorization' });
    await expect.poll(() => auth.locator('code').textContent()).toBe('Basic ••••••••');
    // Not in the page at all until revealed: neither in what it shows nor in what it holds.
    expect(await page().content()).not.toContain(key);
    expect(await page().evaluate(() => JSON.stringify((window as any).__sluice.store.getState().detail))).not.toContain(key);
    await auth.getByRole('button', { name: 'Reveal Authorization' }).click();
    await expect.poll(() => auth.locator('code').textContent()).toBe(`Basic ${key}`);
    await auth.getByRole('button', { name: 'Hide Authorization' }).click();
    await expect.poll(() => auth.locator('code').textContent()).toBe('Basic ••••••••');
    // Copy as curl sends what was sent, the key included (a deliberate copy).
    await detail().getByRole('button', { name: 'Copy as curl' }).click();
    await expect.poll(() => page().evaluate(() => navigator.clipboard.readText())).toContain(`Authorization: Basic ${key}`);
    expect(session.problems).toEqual([]);
  });
});
