// Issue 18, "Clarity", end to end: the built inspector in Chromium over a real core (headless host),
// two destinations posting to real receivers on 127.0.0.1, driven by role and label as a user would.
// With two destinations and replays, the detail's tab counts are the shown delivery's and every replay
// has its own name; a retrying delivery says which attempt comes next; a final 4xx says it was not
// retried and shows no give-up time; identify/alias/group rows have titles; the bulk replay starts from
// the current filter; Pause live view sits on the stream only and is told apart from Hold deliveries;
// primary buttons keep ≥ 4.5:1 in both themes; scheduled audience syncs that send nothing add no rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '@playwright/test';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[clarity e2e] skipped: ${skipReason}`);

/** The WCAG contrast of an element's text on its background, as the page computes their colours. */
async function contrastOf(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel)!;
    const style = getComputedStyle(el);
    const rgb = (css: string) => css.match(/[\d.]+/g)!.slice(0, 3).map(Number);
    const lum = ([r, g, b]: number[]) => {
      const f = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
    };
    const [a, b] = [lum(rgb(style.color)), lum(rgb(style.backgroundColor))].sort((x, y) => y - x);
    return (a! + 0.05) / (b! + 0.05);
  }, selector);
}

describe.skipIf(skipReason !== null)('clarity of the inspector’s words and controls', () => {
  let session: InspectorSession;
  let myapp: Receiver;
  let warehouse: Receiver;
  /** Added to the core's clock: moves the audience scheduler on without waiting. */
  let offset = 0;

  beforeAll(async () => {
    myapp = await startReceiver();
    warehouse = await startReceiver();
    session = await openInspector({
      clock: { now: () => Date.now() + offset },
      config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] },
    });
    session.core.saveDestination({ name: 'myapp', sources: ['web'], webhooks: [{ url: `${myapp.url}/hook`, headers: {} }] });
    session.core.saveDestination({ name: 'warehouse', sources: ['web'], webhooks: [{ url: `${warehouse.url}/hook`, headers: {} }] });
    await session.open('stream');
  });

  afterAll(async () => {
    await session?.close();
    await myapp?.close();
    await warehouse?.close();
  });

  const page = () => session.page;
  const list = () => page().getByRole('listbox', { name: 'Messages' });
  const row = (text: string | RegExp) => list().getByRole('option').filter({ hasText: text });
  const detail = () => page().getByRole('region', { name: 'Message detail' });
  const facts = () => detail().locator('dl.facts');

  it('a retrying delivery says which attempt comes next; a final 4xx says it was not retried, with no give-up time', async () => {
    myapp.script({ status: 503 });
    myapp.fallback = { status: 400 };
    await post(session.core, '/v1/track', { userId: 'u_ada', event: 'Checkout' });
    await myapp.waitFor(1);
    // The row: the attempt to come, with its countdown, and the last attempt's error, each named as such.
    await expect.poll(() => row('Checkout').locator('.row-outcome').textContent(), { timeout: 10_000 }).toMatch(/^⟳ next: attempt 2 (in \d+ s|now) · last: HTTP 503$/);
    await row('Checkout').click();
    await detail().getByRole('tab', { name: /^Attempts/ }).click();
    await detail().getByLabel('Delivery').selectOption({ label: 'myapp — retrying' });
    await expect.poll(() => facts().textContent(), { timeout: 10_000 }).toMatch(/retrying — 1 attempt failed, the last: 503 Service Unavailable; next: attempt 2 (in \d+ s|now)/);
    expect(await facts().textContent()).toMatch(/next attempt\s*attempt 2 (in \d+ s|now) \(\d\d:\d\d:\d\d\.\d{3}\)/);
    expect(await facts().textContent()).toContain('retries until');

    // Retry now: the receiver answers 400, which is final.
    await detail().getByRole('button', { name: 'Retry now' }).click();
    await expect.poll(() => facts().textContent(), { timeout: 10_000 }).toContain('failed: 400 Bad Request — not retried (4xx)');
    const text = (await facts().textContent())!;
    expect(text).not.toMatch(/gives up|retries until|next attempt/);
    expect(text).toContain('the receiver answered 400; a 4xx is final, the request will not be retried');
    await expect.poll(() => row('Checkout').locator('.row-outcome').textContent(), { timeout: 10_000 }).toBe('✗ failed: HTTP 400 · not retried (4xx)');
    await session.shot('clarity-attempts-final-4xx');
  });

  it('with two destinations and two replays, each delivery has its own name and Attempts counts the one shown', async () => {
    await detail().getByRole('tab', { name: /^Replay/ }).click();
    const send = detail().getByRole('button', { name: 'Send replay' });
    for (let n = 1; n <= 2; n++) {
      await expect.poll(() => send.isEnabled(), { timeout: 10_000 }).toBe(true);
      await send.click();
      await expect.poll(() => detail().getByRole('region', { name: /^Replay #\d+$/ }).count(), { timeout: 10_000 }).toBe(n);
    }
    await until(() => (session.core.deliveries.countByStatus().failed === 3 ? true : undefined), 10_000, 'the two replays failed');

    const picker = detail().getByLabel('Delivery');
    const time = '\\d\\d:\\d\\d:\\d\\d';
    await expect
      .poll(async () => (await picker.locator('option').allTextContents()).join('\n'), { timeout: 10_000 })
      .toMatch(new RegExp(`^myapp — failed\nwarehouse — delivered\nmyapp · replay 1 · ${time} — failed\nmyapp · replay 2 · ${time} — failed$`));
    // The replay cards carry the same names.
    expect(await detail().getByRole('region', { name: /^Replay #\d+$/ }).first().textContent()).toMatch(/myapp · replay 2 · \d\d:\d\d:\d\d/);

    // Five attempts in all (2 + 1 + 1 + 1); the tab counts the delivery shown, and says so.
    const attemptsTab = detail().getByRole('tab', { name: /^Attempts/ });
    await picker.selectOption({ label: 'warehouse — delivered' });
    await expect.poll(() => attemptsTab.textContent()).toBe('Attempts1');
    expect(await attemptsTab.getAttribute('title')).toBe('1 attempt of the delivery shown above');
    await picker.selectOption({ label: 'myapp — failed' });
    await expect.poll(() => attemptsTab.textContent()).toBe('Attempts2');
    // The Webhook request tab shows one request: no number; Replay counts the message's replays.
    expect(await detail().getByRole('tab', { name: /request$/ }).textContent()).toBe('Webhook request');
    expect(await detail().getByRole('tab', { name: /^Replay/ }).textContent()).toBe('Replay2');
    await attemptsTab.click();
    expect(await detail().getByRole('list', { name: 'Attempts' }).getByRole('listitem').count()).toBe(2);
    expect(await detail().getByText('of 4 deliveries of this message. The Webhook request and Attempts tabs show this one.', { exact: false }).isVisible()).toBe(true);
    await session.shot('clarity-detail-deliveries');
  });

  it('bulk replay starts from the current filter, and says so; all failed stays a choice', async () => {
    const clear = page().getByRole('button', { name: 'Clear filters' });
    await page().getByLabel('Search messages').fill('Checkout');
    await expect.poll(() => clear.isEnabled(), { timeout: 10_000 }).toBe(true); // the filter is applied
    await page().getByRole('button', { name: /^Replay…/ }).click();
    const dialog = page().getByRole('dialog', { name: 'Replay messages' });
    expect(await dialog.getByRole('radio', { name: /^The messages matching the current filter/ }).isChecked()).toBe(true);
    expect(await dialog.textContent()).toContain('“Checkout”');
    expect(await dialog.getByRole('radio', { name: 'All failed deliveries, whatever the filter' }).isChecked()).toBe(false);
    await expect.poll(() => dialog.locator('.bulk-count').textContent(), { timeout: 10_000 }).toBe(
      'This replays the 1 message matching the current filter as 2 new deliveries.',
    );
    await dialog.getByRole('radio', { name: 'All failed deliveries, whatever the filter' }).check();
    await expect.poll(() => dialog.locator('.bulk-count').textContent(), { timeout: 10_000 }).toBe('This replays the 1 failed delivery, whatever the filter.');
    await session.shot('clarity-bulk-replay');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await clear.click();
    await expect.poll(() => clear.isEnabled()).toBe(false);
  });

  it('primary buttons read at ≥ 4.5:1 and look enabled in both themes', async () => {
    await row('Checkout').click();
    await detail().getByRole('tab', { name: /^Replay/ }).click();
    await expect.poll(() => detail().getByRole('button', { name: 'Send replay' }).isEnabled(), { timeout: 10_000 }).toBe(true);
    for (const scheme of ['light', 'dark'] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      const ratio = await contrastOf(page(), '.replay-tab .btn-primary');
      expect(ratio, scheme).toBeGreaterThanOrEqual(4.5);
      expect(await page().locator('.replay-tab .btn-primary').evaluate((el) => getComputedStyle(el).opacity)).toBe('1');
    }
    await session.shot('clarity-primary-dark');
    await page().emulateMedia({ colorScheme: 'light' });
  });

  it('identify, alias and group rows have titles, in the detail too', async () => {
    await post(session.core, '/v1/batch', {
      batch: [
        { type: 'identify', userId: 'u_ada', traits: { email: 'ada@example.com', name: 'Ada' } },
        { type: 'alias', userId: 'u_ada', previousId: 'anon_9' },
        { type: 'group', userId: 'u_ada', groupId: 'g_42', traits: { name: 'Acme Inc' } },
      ],
    });
    const name = (type: string) => list().getByRole('option').filter({ has: page().locator(`.type-${type}`) }).locator('.row-name');
    await expect.poll(() => name('identify').textContent(), { timeout: 10_000 }).toBe('ada@example.com');
    expect(await name('alias').textContent()).toBe('anon_9 → u_ada');
    expect(await name('group').textContent()).toBe('g_42 · Acme Inc');
    await session.shot('clarity-row-titles');
    await list().getByRole('option').filter({ has: page().locator('.type-group') }).click();
    await expect.poll(() => detail().getByRole('heading', { level: 2 }).textContent()).toBe('g_42 · Acme Inc');
  });

  it('Pause live view is on the stream only, told apart from Hold deliveries', async () => {
    const pause = page().getByRole('button', { name: 'Pause live view' });
    expect(await pause.textContent()).toBe('❚❚ Pause live view');
    expect(await pause.getAttribute('title')).toContain('Sluice keeps receiving and delivering messages');
    expect(await page().getByRole('button', { name: 'Clear filters' }).count()).toBe(1);

    await page().getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Destinations' }).click();
    await expect.poll(() => pause.count()).toBe(0);
    expect(await page().getByRole('button', { name: 'Clear filters' }).count()).toBe(0);
    expect(await page().getByRole('status', { name: 'Live rate' }).isVisible()).toBe(true);
    await session.shot('clarity-topbar-destinations');

    await page().getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Settings' }).click();
    const hold = page().getByRole('switch', { name: 'Hold deliveries' });
    await expect.poll(() => hold.isVisible(), { timeout: 10_000 }).toBe(true);
    const description = await page().locator(`#${await hold.getAttribute('aria-describedby')}`).textContent();
    expect(description).toContain('Stops Sluice sending to every destination');
    expect(description).toContain('Not the stream’s Pause live view, which only freezes the list on screen.');
    expect(await pause.count()).toBe(0);
  });

  it('scheduled audience syncs that send nothing add no rows; the syncs that sent something stay in sight', async () => {
    const core = session.core;
    const sourceId = core.sources.byName('web')!.id;
    await post(core, '/v1/track', { userId: 'u_ada', event: 'Order Completed' }); // a member already
    const saved = await core.audiences.save({
      sourceId,
      name: 'Buyers',
      rule: { match: 'all', conditions: [{ kind: 'event', event: 'Order Completed', operator: 'at_least', count: 1 }] },
      intervalSeconds: 30,
    });
    await until(() => (core.audiences.repo.syncs(saved.id, 10).length === 1 ? true : undefined), 10_000, 'the first sync');
    // Four demo intervals with nothing new.
    for (let i = 0; i < 4; i++) {
      offset += 30_000;
      await core.audiences.tick();
    }
    expect(core.audiences.repo.syncs(saved.id, 10)).toHaveLength(1);

    await page().getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Audiences' }).click();
    await page().getByRole('complementary', { name: 'Audiences' }).getByRole('button', { name: /^Buyers/ }).click();
    const audience = page().getByRole('region', { name: 'Buyers' });
    const history = audience.getByRole('table', { name: 'Sync history' });
    await expect.poll(() => history.getByRole('row', { name: /^Sync at / }).count(), { timeout: 10_000 }).toBe(1);
    const note = audience.getByRole('note', { name: 'Checks since the last sync' });
    await expect.poll(() => note.textContent(), { timeout: 10_000 }).toMatch(
      /^Nothing changed since the sync at \d\d:\d\d:\d\d: the scheduled checks since found nothing to send and are not listed\. Last check/,
    );
    await session.shot('clarity-audience-quiet');

    // Someone joins: that sync is recorded, on top.
    await post(core, '/v1/track', { userId: 'u_bob', event: 'Order Completed' });
    offset += 30_000;
    const [joined] = await core.audiences.tick();
    expect(joined).toMatchObject({ joined: 1, left: 0 });
    expect(joined!.syncId).not.toBeNull();
    await expect.poll(() => history.getByRole('row', { name: /^Sync at / }).count(), { timeout: 10_000 }).toBe(2);
    expect(await history.getByRole('row', { name: /^Sync at / }).first().textContent()).toMatch(/scheduled · [\d.]+ m?s\s*2\s*1\s*0\s*1 message/);
    await expect.poll(() => note.count()).toBe(0);
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
