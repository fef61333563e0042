// The stream's two panes keep apart whatever their content (issue 24, point 8): with a search that
// matches thousands of messages in a narrow window, the footer's counts wrap inside the list, and
// nothing in the list pane (footer, buttons, the Go to time form) reaches over the detail pane.
// Asserted by geometry, in Chromium.
import type { Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[stream layout e2e] skipped: ${skipReason}`);

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Where the panes and the list pane's parts are, and the lines the footer's counts take. */
function geometry(page: Page) {
  return page.evaluate(() => {
    const box = (el: Element | null): Box | null => {
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    const list = document.querySelector('.list-pane')!;
    const counts = document.querySelector('[data-testid="stream-counts"]')!;
    const range = document.createRange();
    range.selectNodeContents(counts);
    const lines = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => ({ left: r.left, right: r.right, top: r.top, bottom: r.bottom }));
    // Every element of the list pane that takes part in its layout (the rows are clipped by their scroller; a popover is checked apart).
    const parts = [...list.querySelectorAll('.filter-bar, .filter-bar *, .stream-list-wrap, .stream-list, .stream-footer, .stream-footer > *, .stream-footer button')]
      .filter((el) => !el.closest('.search-help, .search-suggestions, .stream-jump-form') && el.getClientRects().length > 0)
      .map((el) => ({ what: `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} “${(el.textContent ?? '').slice(0, 40)}”`, box: box(el)! }));
    return {
      list: box(list)!,
      listOverflow: list.scrollWidth - list.clientWidth,
      splitter: box(document.querySelector('.panes > .splitter'))!,
      detail: box(document.querySelector('.detail'))!,
      title: box(document.querySelector('.detail-title h2')),
      footer: box(document.querySelector('.stream-footer'))!,
      lines,
      parts,
      form: box(document.querySelector('.stream-jump-form')),
    };
  });
}

/** The panes side by side, apart; each part of the list inside the list. */
function expectApart(g: Awaited<ReturnType<typeof geometry>>): void {
  expect(g.list.right).toBeLessThanOrEqual(g.splitter.left + 0.5);
  expect(g.splitter.right).toBeLessThanOrEqual(g.detail.left + 0.5);
  expect(g.listOverflow).toBe(0);
  const outside = g.parts.filter((p) => p.box.left < g.list.left - 0.5 || p.box.right > g.list.right + 0.5).map((p) => `${p.what}: ${p.box.left}–${p.box.right}`);
  expect(outside, `list ${g.list.left}–${g.list.right}`).toEqual([]);
  if (g.title) expect(g.title.left).toBeGreaterThanOrEqual(g.detail.left);
}

describe.skipIf(skipReason !== null)('the stream’s panes with long counts in a narrow window', () => {
  let session: InspectorSession;
  const page = () => session.page;
  const counts = () => page().getByTestId('stream-counts');

  beforeAll(async () => {
    session = await openInspector({}, { width: 900, height: 700 });
    const track = (n: number) => ({ type: 'track', event: 'Order Completed', userId: `u_${n % 50}`, properties: { order_id: `ord_${n}`, revenue: n } });
    expect((await post(session.core, '/v1/batch', { batch: Array.from({ length: 2500 }, (_, n) => track(n)) })).status).toBe(200);
    expect((await post(session.core, '/v1/batch', { batch: Array.from({ length: 122 }, (_, n) => ({ type: 'identify', userId: `u_${n}` })) })).status).toBe(200);
    await session.open();
  });
  afterAll(async () => {
    await session?.close();
  });

  it('the footer’s counts wrap inside the list, and the list stays beside the detail', async () => {
    const list = page().getByRole('listbox', { name: 'Messages' });
    await list.getByRole('option').first().click();
    await expect.poll(() => page().locator('.detail-title h2').count()).toBe(1);
    await page().getByRole('combobox', { name: 'Search messages' }).fill('type:track');
    await expect.poll(() => counts().textContent()).toBe('2,500 of 2,622 messages match · 200 loaded, more as you scroll');
    const g = await geometry(page());
    expectApart(g);
    // The counts take more than one line, each within the footer.
    expect(new Set(g.lines.map((line) => Math.round(line.top))).size).toBeGreaterThan(1);
    for (const line of g.lines) {
      expect(line.left).toBeGreaterThanOrEqual(g.footer.left);
      expect(line.right).toBeLessThanOrEqual(g.footer.right + 0.5);
    }
    // The footer grew to hold them (not cut at a fixed height): its last line is inside it.
    expect(Math.max(...g.lines.map((line) => line.bottom))).toBeLessThanOrEqual(g.footer.bottom + 0.5);
    await session.shot('stream-layout-narrow');
  });

  it('the list at its narrowest, and the Go to time form, stay inside the list pane', async () => {
    const splitter = page().getByRole('separator', { name: 'Resize the list' });
    await splitter.focus();
    for (let i = 0; i < 4; i++) await splitter.press('Shift+ArrowLeft');
    await expect.poll(() => splitter.getAttribute('aria-valuenow')).toBe('360');
    await page().getByRole('button', { name: 'Go to time…' }).click();
    const g = await geometry(page());
    expectApart(g);
    expect(g.list.right - g.list.left).toBeLessThan(400);
    expect(g.form).not.toBeNull();
    expect(g.form!.left).toBeGreaterThanOrEqual(g.list.left);
    expect(g.form!.right).toBeLessThanOrEqual(g.list.right + 0.5);
    await session.shot('stream-layout-narrowest');
    await page().getByRole('button', { name: 'Go to time…' }).click();
    expect(session.problems).toEqual([]);
  });
});
