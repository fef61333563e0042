// Issue 29, point 6, in the inspector: a request refused because its body is not JSON shows, in its
// detail, the line and column where the JSON breaks and the lines around it with the column marked
// (found on the whole body, past the stored preview). The built inspector in Chromium over a real
// core; axe in the light and the dark theme.
import AxeBuilder from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[rejected JSON e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)("a rejected body's JSON error in the detail", () => {
  let session: InspectorSession;
  const body = ['{"batch": [', '  {"type": "track", "event": "Fine", "userId": "u1"},', '  {"type": "track" "event": "Broken"}', ']}'].join('\n');

  beforeAll(async () => {
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    expect((await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', body)).status).toBe(400);
    await session.open('stream');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;

  it('shows the line, the column and the lines around it, the column marked', async () => {
    const row = page().getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'the whole request was refused' });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    await row.click();
    const detail = page().getByRole('region', { name: 'Message detail' });
    // Line 3: `  {"type": "track" "event": "Broken"}` — the `"` after `"track" ` is the 20th character.
    const figure = detail.getByRole('figure', { name: 'Where the JSON breaks: line 3, column 20' });
    await expect.poll(() => figure.count(), { timeout: 10_000 }).toBe(1);
    expect(await figure.locator('figcaption').textContent()).toBe('The body stops being JSON at line 3, column 20:');
    const lines = await figure.locator('.json-error-lines').textContent();
    expect(lines).toBe(
      [
        '1 │ {"batch": [',
        '2 │   {"type": "track", "event": "Fine", "userId": "u1"},',
        '3 │   {"type": "track" "event": "Broken"}',
        `  │ ${' '.repeat(19)}^ column 20`,
        '4 │ ]}',
        '',
      ].join('\n'),
    );
    expect(await detail.getByRole('note').first().textContent()).toMatch(/the body is not valid JSON at line 3, column 20: /);
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious accessibility problem in the detail (${scheme})`, async () => {
      await page().emulateMedia({ colorScheme: scheme });
      const result = await new AxeBuilder({ page: page() }).include('[aria-label="Message detail"]').analyze();
      expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    });
  }
});
