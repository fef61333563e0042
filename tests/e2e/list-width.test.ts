// The stream list's width while nothing is open (issue 29, point 7): in a 1,440 px window the list
// takes the width (it took 540 px of it, the rest an empty detail pane); opening a message gives the
// detail its share (the splitter's width, kept), and closing it (Esc) gives the width back. Measured
// in Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[list width e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('the stream list’s width at 1,440 px', () => {
  let session: InspectorSession;
  const page = () => session.page;
  const list = () => page().getByRole('listbox', { name: 'Messages' });
  const widths = () =>
    page().evaluate(() => ({
      window: window.innerWidth,
      rail: document.querySelector('.nav-rail')!.getBoundingClientRect().width,
      list: document.querySelector('.list-pane')!.getBoundingClientRect().width,
      detail: document.querySelector('.detail')!.getBoundingClientRect().width,
      splitters: document.querySelectorAll('.panes > .splitter').length,
    }));

  beforeAll(async () => {
    session = await openInspector({}, { width: 1440, height: 900 });
    const track = (n: number) => ({ type: 'track', event: 'Order Completed', userId: `u_${n}`, properties: { order_id: `ord_${n}` } });
    expect((await post(session.core, '/v1/batch', { batch: Array.from({ length: 20 }, (_, n) => track(n)) })).status).toBe(200);
    await session.open();
    await list().getByRole('option').nth(19).waitFor();
  });
  afterAll(async () => {
    expect(session?.problems ?? []).toEqual([]);
    await session?.close();
  });

  it('takes the width while nothing is open, gives the detail its share when a message opens, and takes it back on Esc', async () => {
    const closed = await widths();
    expect(closed.window).toBe(1440);
    // The rail, the list and the detail's column of hints fill the window; the hints take at most 320 px.
    expect(closed.list).toBeGreaterThanOrEqual(1440 - closed.rail - 320 - 1);
    expect(closed.list).toBeGreaterThan(1000);
    expect(closed.detail).toBeLessThanOrEqual(320);
    expect(closed.splitters).toBe(0);
    // The hints are still there.
    expect(await page().getByRole('region', { name: 'Message detail' }).textContent()).toContain('Select a message');
    await session.shot('list-width-nothing-open');

    await list().getByRole('option').first().click();
    await expect.poll(() => page().getByRole('region', { name: 'Message detail' }).getByRole('heading', { level: 2 }).textContent()).toBe('Order Completed');
    const opened = await widths();
    expect(opened.list).toBe(560); // the splitter's width (its default)
    expect(opened.detail).toBeGreaterThan(700);
    expect(opened.splitters).toBe(1);

    // The splitter's width is kept across the close and the next open.
    await page().getByRole('separator', { name: 'Resize the list' }).focus();
    await page().keyboard.press('ArrowRight');
    const moved = (await widths()).list;
    expect(moved).toBeGreaterThan(560);

    await list().focus();
    await page().keyboard.press('Escape');
    await expect.poll(async () => (await widths()).list).toBeGreaterThan(1000);
    expect(await page().getByRole('region', { name: 'Message detail' }).textContent()).toContain('Select a message');
    await page().keyboard.press('Enter');
    await expect.poll(async () => (await widths()).list).toBe(moved);
  });
});
