// Issues in the inspector (issue 29, point 2), in Chromium over a real core and a real receiver that
// answers 400: reached from the navigation by keyboard, the group of crm's failed deliveries shows its
// destination, URL, status, error kind, counts and first/last seen; "Show messages" opens the stream on
// exactly its messages (not the other source's); with the receiver fixed, "Retry all" fills a progress
// bar to the end and the group closes itself; failing again it opens again, and the stream's "Retry
// failed…" retries the current search's failed deliveries with its progress. axe clean, light and dark.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import { expectAccessible } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { callOk } from '../helpers/contract.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[issues e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('Issues in the inspector', () => {
  let session: InspectorSession;
  let crm: Receiver;
  const page = () => session.page;
  const view = () => page().getByRole('region', { name: 'Issues' });
  const groups = () => view().getByRole('list', { name: /^Issues/ }).getByRole('listitem');
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const box = () => page().getByRole('combobox', { name: 'Search messages' });
  const nav = (name: string) => page().getByRole('navigation', { name: 'Views' }).getByRole('button', { name, exact: true });
  // The web messages' deliveries (crm is web's only destination) that failed.
  const failedAtCrm = async () =>
    (await callOk(createHandlers(session.core), 'messages.list', { limit: 100 })).messages.filter((m) => m.sourceId === webId() && m.delivery?.status === 'failed').length;
  const webId = () => session.core.sources.byName('web')!.id;
  const send = (writeKey: string, event: string, n: number) =>
    post({ ingestUrl: session.core.ingestUrl, writeKey }, '/v1/batch', { batch: Array.from({ length: n }, (_, i) => ({ type: 'track', userId: `u_${i}`, event })) });

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
      }),
    );
    session = await openInspector({ config });
    session.core.saveDestination({ name: 'crm', sources: ['web'], webhooks: [{ url: `${crm.url}/crm` }] });
    session.core.saveDestination({ name: 'warehouse', sources: ['ios'], webhooks: [{ url: session.core.receiver.hookUrl('warehouse') }] });
    expect((await send('wk_web', 'Order Completed', 3)).status).toBe(200);
    expect((await send('wk_ios', 'Order Completed', 2)).status).toBe(200);
    for (const end = Date.now() + 15_000; (await failedAtCrm()) !== 3; await new Promise((resolve) => setTimeout(resolve, 50))) {
      if (Date.now() > end) throw new Error(`only ${await failedAtCrm()} of the 3 web messages show a failed delivery after 15 s`);
    }
    await session.open('stream');
    await rows().nth(4).waitFor();
  });
  afterAll(async () => {
    expect(session?.problems ?? []).toEqual([]);
    await session?.close();
    await crm?.close();
  });

  it('lists the group by keyboard, and opens the stream on exactly its messages', async () => {
    await nav('Issues').focus();
    await page().keyboard.press('Enter');
    await expect.poll(() => groups().count(), { timeout: 10_000 }).toBe(1);
    const group = groups().first();
    // On screen, whole: the list has the height under the header.
    const rowBox = await group.boundingBox();
    expect(rowBox!.height).toBeGreaterThan(80);
    expect(await group.evaluate((el) => { const r = el.getBoundingClientRect(); return document.elementFromPoint(r.left + 20, r.top + 20) !== null && el.contains(document.elementFromPoint(r.left + 20, r.top + 20)); })).toBe(true);
    const text = await group.textContent();
    expect(text).toContain('Open crm');
    expect(text).toContain('Refused (4xx) · HTTP 400');
    expect(text).toContain(`${crm.url}/crm`);
    expect(text).toContain('3 failed · 3 seen');
    expect(text).toMatch(/first (just now|\d+ s ago), last (just now|\d+ s ago)/);
    expect(await view().getByRole('status').first().textContent()).toBe('1 open issue.');
    await expectAccessible(page(), '.issues');
    await session.shot('issues');

    await group.getByRole('button', { name: /^Show messages of crm/ }).focus();
    await page().keyboard.press('Enter');
    await expect.poll(() => page().evaluate(() => window.location.hash)).toBe('#/stream');
    expect(await box().inputValue()).toMatch(/^issue:\d+$/);
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(3);
    // The ios messages (delivered to the warehouse) are not the group's.
    const ids = await rows().evaluateAll((els) => els.map((el) => el.textContent ?? ''));
    expect(ids.every((t) => t.includes('web'))).toBe(true);
  });

  it('Retry all fills its bar to the end, and the group closes itself once its deliveries succeed', async () => {
    crm.fallback = { status: 200, body: 'ok' };
    await nav('Issues').click();
    const group = groups().first();
    await group.getByRole('button', { name: /^Retry all of crm/ }).focus();
    await page().keyboard.press('Enter');
    const bar = group.getByRole('progressbar', { name: /^Retry of crm/ });
    await expect.poll(() => bar.count(), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => group.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(/^Retried 3 deliveries: 3 sent again\./);
    expect(await bar.getAttribute('value')).toBe(await bar.getAttribute('max'));
    await expect.poll(failedAtCrm, { timeout: 15_000 }).toBe(0);
    // Closed: gone from the open ones, shown closed among all.
    await expect.poll(() => groups().count(), { timeout: 10_000 }).toBe(0);
    await view().getByRole('combobox', { name: 'Show' }).selectOption('all');
    await expect.poll(() => groups().first().textContent(), { timeout: 10_000 }).toMatch(/^Closed crm/);
    expect(await groups().first().textContent()).toContain('closed · 3 seen');
    await view().getByRole('combobox', { name: 'Show' }).selectOption('open');
  });

  it('the stream’s Retry failed… retries the current search’s failed deliveries, with progress', async () => {
    crm.fallback = { status: 400, body: 'no' };
    expect((await send('wk_web', 'Signed Up', 2)).status).toBe(200);
    await expect.poll(failedAtCrm, { timeout: 15_000 }).toBe(2);
    await expect.poll(() => groups().first().textContent(), { timeout: 10_000 }).toContain('2 failed · 5 seen'); // the same group, open again

    crm.fallback = { status: 200, body: 'ok' };
    await nav('Stream').click();
    await box().fill('event:"Signed Up"');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(2);
    const opener = page().getByRole('button', { name: /^Retry failed…/ });
    await opener.focus();
    await page().keyboard.press('Enter');
    const dialog = page().getByRole('dialog', { name: 'Retry failed deliveries' });
    await expect.poll(() => dialog.textContent()).toContain('search “event:"Signed Up"”');
    await expectAccessible(page(), 'dialog[open]');
    await dialog.getByRole('button', { name: 'Retry them' }).click();
    await expect.poll(() => dialog.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(/^Retried 2 deliveries: 2 sent again\./);
    expect(await dialog.getByRole('progressbar', { name: 'Retry progress' }).count()).toBe(1);
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
    await expect.poll(failedAtCrm, { timeout: 15_000 }).toBe(0);
  });
});
