// Settings › Storage › Reset… in Chromium over a real core (headless host): reached and answered by
// keyboard alone, it asks first — with the count, what is forgotten and what stays, the safe answer
// focused — forgets nothing until confirmed, then the core's reset runs: the store and the stream are
// empty while the source stays. axe finds no serious or critical problem in the dialog, light and dark.
import AxeBuilder from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[reset e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('Reset in the inspector', () => {
  let session: InspectorSession;

  beforeAll(async () => {
    const config = parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] }));
    session = await openInspector({ config });
    const track = (userId: string) => ({ type: 'track', userId, event: 'Order Completed', properties: { n: 1 } });
    const sent = await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch: [track('u1'), track('u2'), track('u3')] });
    expect(sent.status).toBe(200);
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const views = () => page().getByRole('navigation', { name: 'Views' });
  const storage = () => page().getByRole('region', { name: 'Storage' });
  const dialog = () => page().getByRole('dialog', { name: 'Reset Sluice' });

  it('asks with what it forgets, then empties the store and the stream; the source stays', async () => {
    await session.open('stream');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(3);
    await views().getByRole('button', { name: 'Settings' }).click();

    // By keyboard: focus the button, Enter opens the dialog with the safe answer focused.
    await storage().getByRole('button', { name: 'Reset…' }).focus();
    await page().keyboard.press('Enter');
    const question =
      'Reset Sluice? It forgets all 3 messages, with their deliveries and attempts, refused requests, profiles, audience syncs and members, deletion requests, the receiver’s inbox and injected faults. Sources, destinations, audiences, tracking plans, saved searches and the retention stay. This cannot be undone.';
    await expect.poll(() => dialog().getByText(question).count(), { timeout: 10_000 }).toBe(1);
    expect(await page().evaluate(() => document.activeElement?.textContent)).toBe('Keep everything');

    for (const scheme of ['light', 'dark'] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      const result = await new AxeBuilder({ page: page() }).include('dialog').analyze();
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${scheme}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`);
      expect(bad).toEqual([]);
    }
    await page().emulateMedia({ colorScheme: 'light' });

    // Esc keeps everything.
    await page().keyboard.press('Escape');
    await expect.poll(() => dialog().count()).toBe(0);
    expect(session.core.messages.list({ limit: 100 }).length).toBe(3);

    await storage().getByRole('button', { name: 'Reset…' }).focus();
    await page().keyboard.press('Enter');
    await expect.poll(() => dialog().getByText(question).count(), { timeout: 10_000 }).toBe(1);
    await page().keyboard.press('Tab');
    expect(await page().evaluate(() => document.activeElement?.textContent)).toBe('Reset and forget');
    await page().keyboard.press('Enter');
    await expect
      .poll(() => dialog().getByRole('status').textContent(), { timeout: 10_000 })
      .toBe('Reset: 3 messages forgotten, with everything received about them; sources, destinations and settings stay.');
    await dialog().getByRole('button', { name: 'Done' }).click();
    expect(session.core.messages.list({ limit: 100 })).toEqual([]);

    await views().getByRole('button', { name: 'Stream' }).click();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(0);
    expect(session.core.sources.byName('web')).toBeDefined();
    expect(session.problems).toEqual([]);
  });
});
