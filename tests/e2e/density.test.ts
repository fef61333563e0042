// The stream's row density in Chromium over a real core (headless host): *Compact rows* puts each
// message on one line (the row is one line high, its user, source and outcome beside its name), the
// virtualized list places rows by that height (the 40th row, scrolled to the end, sits whole at the
// bottom of the view), and the choice survives a reload (kept in the browser, like the list's width).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[density e2e] skipped: ${skipReason}`);

const TOTAL = 40;

describe.skipIf(skipReason !== null)('Row density in the stream', () => {
  let session: InspectorSession;

  beforeAll(async () => {
    const config = parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] }));
    session = await openInspector({ config });
    const batch = Array.from({ length: TOTAL }, (_, i) => ({ type: 'track', userId: `u${i}`, event: `Event ${i}` }));
    expect((await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch })).status).toBe(200);
    await session.open('stream');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const list = () => page().getByRole('listbox', { name: 'Messages' });
  const row = (n: number) => list().locator(`[role="option"][aria-posinset="${n}"]`);
  const toggle = () => page().getByRole('button', { name: 'Compact rows' });
  /** The row's box, and where its name and its outcome sit (one line: the same middle). */
  const shape = (n: number) =>
    row(n).evaluate((el) => {
      const box = el.getBoundingClientRect();
      const mid = (sel: string) => {
        const r = el.querySelector(sel)!.getBoundingClientRect();
        return Math.round(r.top + r.height / 2);
      };
      return { top: Math.round(box.top), height: Math.round(box.height), name: mid('.row-name'), outcome: mid('.row-outcome') };
    });

  it('shows two lines per message by default, one when compact, with the list placing rows by that height', async () => {
    await expect.poll(() => row(1).count(), { timeout: 10_000 }).toBe(1);
    expect(await toggle().getAttribute('aria-pressed')).toBe('false');
    const [first, second] = [await shape(1), await shape(2)];
    expect(first.height).toBe(48);
    expect(first.outcome - first.name).toBeGreaterThan(12); // the outcome on the second line
    expect(second.top - first.top).toBe(48);

    await toggle().click();
    await expect.poll(() => toggle().getAttribute('aria-pressed')).toBe('true');
    await expect.poll(async () => (await shape(1)).height, { timeout: 5_000 }).toBe(26);
    const [a, b] = [await shape(1), await shape(2)];
    expect(Math.abs(a.outcome - a.name)).toBeLessThanOrEqual(3); // one line (their fonts differ by a pixel)
    expect(b.top - a.top).toBe(26);
    await list().screenshot({ path: '/tmp/density-compact.png' });
    // The list's height is the rows': scrolled to the end, the last row sits whole at the bottom.
    await list().evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(() => row(TOTAL).count(), { timeout: 5_000 }).toBe(1);
    const view = await list().evaluate((el) => Math.round(el.getBoundingClientRect().bottom));
    const last = await shape(TOTAL);
    expect(last.top + last.height).toBeLessThanOrEqual(view);
    expect(last.top + last.height).toBeGreaterThan(view - 26);
    expect(await row(TOTAL).textContent()).toContain(`Event 0`);
  });

  it('keeps the choice across a reload, and goes back to two lines', async () => {
    await page().reload();
    await page().waitForFunction(() => (window as any).__sluice?.store.getState().connection.kind === 'open', undefined, { timeout: 10_000 });
    await expect.poll(() => row(1).count(), { timeout: 10_000 }).toBe(1);
    expect(await toggle().getAttribute('aria-pressed')).toBe('true');
    expect((await shape(1)).height).toBe(26);
    await toggle().click();
    await expect.poll(async () => (await shape(1)).height, { timeout: 5_000 }).toBe(48);
    expect(session.problems).toEqual([]);
  });
});
