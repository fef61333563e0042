// The stream's scrollbar stands for every matching message (issue 18, point 2): 3,000 messages, 200
// loaded; dragging the scrollbar to the bottom shows the oldest, to the middle the message at that
// place, each at its position among the matches, in Chromium over a real core. Twice: as is, and with
// the spacer capped at 1,000 rows' height (as a list taller than an element may be is: its scroll
// pixels scaled to the rows', components/scroll-scale.ts) — the same behaviour, by the same test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[scrollbar e2e] skipped: ${skipReason}`);

const TOTAL = 3000;
const ROW = 48;

describe.skipIf(skipReason !== null).each([
  { name: 'the rows at full height', maxPx: null },
  { name: 'a spacer capped at 1,000 rows: scroll pixels scaled', maxPx: 1000 * ROW },
])('a scrollbar for the whole result set: $name', ({ maxPx }) => {
  let session: InspectorSession;
  const page = () => session.page;
  const list = () => page().getByRole('listbox', { name: 'Messages' });
  /** The row at the top of the view: its position (aria-posinset) and the order number it carries. */
  const firstInView = () =>
    list().evaluate((el) => {
      const box = el.getBoundingClientRect();
      const row = document.elementFromPoint(box.left + 40, box.top + 4)?.closest('[role="option"]');
      return row ? { position: Number(row.getAttribute('aria-posinset')), text: row.textContent ?? '' } : null;
    });

  beforeAll(async () => {
    session = await openInspector();
    for (let from = 0; from < TOTAL; from += 500) {
      const batch = Array.from({ length: 500 }, (_, i) => ({ type: 'track', event: `Step ${from + i}`, userId: `u_${(from + i) % 7}` }));
      expect((await post(session.core, '/v1/batch', { batch })).status).toBe(200);
    }
    if (maxPx !== null) await session.page.addInitScript((px) => ((window as unknown as { __sluiceMaxScrollPx: number }).__sluiceMaxScrollPx = px), maxPx);
    await session.open();
  });
  afterAll(async () => {
    await session?.close();
  });

  it('is as tall as every message, with 200 of them loaded', async () => {
    await expect.poll(() => page().getByTestId('stream-counts').textContent()).toMatch(/^3,000 messages · 200 loaded/);
    await expect.poll(() => list().evaluate((el) => el.scrollHeight)).toBe(maxPx ?? TOTAL * ROW);
  });

  it('dragged to the bottom, shows the oldest messages in their place', async () => {
    await list().evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(() => page().locator('.stream-jumped').textContent(), { timeout: 10_000 }).toMatch(/^Showing from message [\d,]+ of 3,000/);
    await expect.poll(() => page().getByRole('option').filter({ hasText: 'Step 0' }).isVisible(), { timeout: 10_000 }).toBe(true);
    const oldest = page().getByRole('option').filter({ hasText: 'Step 0' });
    expect(await oldest.getAttribute('aria-posinset')).toBe(String(TOTAL));
    await session.shot('stream-scrollbar-bottom');
  });

  it('dragged to the middle, shows the message at that place', async () => {
    /** Scrolls the view to row `row` (0 the newest), the scroll pixels scaled as the list scales them. */
    const scrollToRow = (row: number) =>
      list().evaluate(
        (el, { row, rowPx, total }) => {
          const ratio = el.scrollHeight >= total * rowPx ? 1 : (total * rowPx - el.clientHeight) / (el.scrollHeight - el.clientHeight);
          el.scrollTop = Math.round((row * rowPx) / ratio);
          return Math.floor((el.scrollTop * ratio + 4) / rowPx); // the row 4 px into the view (firstInView's point)
        },
        { row, rowPx: ROW, total: TOTAL },
      );
    for (const row of [1500, 1400]) {
      const at = await scrollToRow(row);
      expect(Math.abs(at - row)).toBeLessThanOrEqual(maxPx === null ? 0 : 3);
      // Row at + 1 from the newest is message number TOTAL - 1 - at (Step 2999 is row 1).
      await expect.poll(firstInView, { timeout: 10_000 }).toEqual({ position: at + 1, text: expect.stringContaining(`Step ${TOTAL - 1 - at}`) });
    }
    // Messages arriving meanwhile: the rows in view stay (their positions move down by as many; with a
    // capped spacer the scale changes too, and the scroll position follows it).
    const before = await firstInView();
    const batch = Array.from({ length: 300 }, (_, i) => ({ type: 'track', event: `Later ${i}`, userId: 'u_late' }));
    expect((await post(session.core, '/v1/batch', { batch })).status).toBe(200);
    await expect.poll(() => page().getByTestId('stream-counts').textContent(), { timeout: 10_000 }).toMatch(/^3,300 messages/);
    const step = (text: string) => /Step \d+/.exec(text)?.[0];
    await expect.poll(async () => { const now = await firstInView(); return now && { position: now.position, step: step(now.text) }; }, { timeout: 10_000 }).toEqual({
      position: before!.position + 300,
      step: step(before!.text),
    });
    // Under a search, arrivals that match are counted again (a second or two later) and the list grows
    // below the view's rows, not above (their place is not known without the count): with a capped
    // spacer the scale changes, and the view stays on the same rows.
    await page().getByRole('combobox', { name: 'Search messages' }).fill('step');
    await expect.poll(() => page().getByTestId('stream-counts').textContent(), { timeout: 10_000 }).toMatch(/^3,000 of 3,300 messages match/);
    await scrollToRow(1200);
    await expect.poll(firstInView, { timeout: 10_000 }).toMatchObject({ text: expect.stringContaining('Step') });
    const underSearch = await firstInView();
    const more = Array.from({ length: 600 }, (_, i) => ({ type: 'track', event: `Step ${TOTAL + i}`, userId: 'u_late' }));
    expect((await post(session.core, '/v1/batch', { batch: more })).status).toBe(200);
    await expect.poll(() => page().getByTestId('stream-counts').textContent(), { timeout: 10_000 }).toMatch(/^3,600 of 3,900 messages match/);
    await new Promise((r) => setTimeout(r, 300));
    expect(step((await firstInView())!.text)).toBe(step(underSearch!.text));
    await page().getByRole('button', { name: 'Back to newest' }).click();
    await expect.poll(firstInView).toEqual({ position: 1, text: expect.stringContaining(`Step ${TOTAL + 599}`) });
    expect(session.problems).toEqual([]);
  });
});
