// What ingestion accepted past Segment's limits, and what it refused, as the inspector shows them (issue
// 24, point 10): the built inspector in Chromium over a real core. A batch over 500 KB is stored with
// Segment's warning — a badge on each row, a banner in the detail — and a request refused as a whole
// (bad JSON, an unknown write key) is a row of its own that says why, under no source when it named none.
import AxeBuilder from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[ingest limits e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('Segment limits and refused requests in the inspector', () => {
  let session: InspectorSession;

  beforeAll(async () => {
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    const web = { ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' };
    const batch = Array.from({ length: 55 }, (_, i) => ({ type: 'track', event: 'Big Batch', userId: `big-${i}`, properties: { pad: 'x'.repeat(10_000) } }));
    expect((await post(web, '/v1/batch', { batch })).status).toBe(200);
    expect((await post(web, '/v1/track', { userId: 'small-user', event: 'Small' })).status).toBe(200);
    expect((await post(web, '/v1/batch', '{"batch":[{"type":"track"')).status).toBe(400);
    expect((await post({ ...web, writeKey: 'wk_unknown' }, '/v1/track', { userId: 'u', event: 'Lost' })).status).toBe(401);
    await session.open('stream');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const row = (text: string) => rows().filter({ hasText: text });

  it('badges each message of a batch over 500 KB, and says why in its detail', async () => {
    await expect.poll(() => row('the whole request was refused').count(), { timeout: 10_000 }).toBe(2);
    const big = row('big-54');
    expect(await big.locator('.row-segment-warning').textContent()).toBe('⚠ Segment limit');
    expect(await big.locator('.row-segment-warning').getAttribute('title')).toMatch(/^Segment would refuse this: over 500 KB \(its batch is 55\d,\d{3} bytes\)\. Sluice accepted it\.$/);
    expect(await row('small-user').locator('.row-segment-warning').count()).toBe(0);

    await big.click();
    const detail = page().getByRole('region', { name: 'Message detail' });
    const banner = detail.locator('.detail-segment-warning');
    await expect.poll(() => banner.textContent(), { timeout: 10_000 }).toMatch(
      /^Segment would refuse this: over 500 KB \(its batch is 55\d,\d{3} bytes\)\. Sluice accepted it; sent to Segment as is, it would be lost\.$/,
    );
    expect(await banner.getAttribute('role')).toBe('note');
  });

  it('shows each refused request as a row that says why, with what was sent in its detail', async () => {
    const json = row('the body is not valid JSON');
    expect(await json.locator('.row-source').textContent()).toBe('web');
    const unknown = row('unknown write key');
    expect(await unknown.locator('.row-name').textContent()).toBe("the whole request was refused (401): unknown write key; copy it from Sluice's Sources view");
    expect(await unknown.locator('.row-source').textContent()).toBe('no source');
    expect(await unknown.getAttribute('data-outcome')).toBe('rejected');

    await json.click();
    const detail = page().getByRole('region', { name: 'Message detail' });
    await expect.poll(() => detail.getByRole('note').first().textContent(), { timeout: 10_000 }).toMatch(
      /^Rejected at ingestion: the whole request was refused \(400\): the body is not valid JSON.*\(invalid_json\)\. It is stored as received and never forwarded\.$/,
    );
    const received = detail.getByRole('tree', { name: 'Message as received' });
    await expect.poll(() => received.textContent(), { timeout: 10_000 }).toContain('"preview": "{\\"batch\\":[{\\"type\\":\\"track\\""');
  });

  it('has no serious accessibility problem in the rows and the detail', async () => {
    const result = await new AxeBuilder({ page: page() }).include('[aria-label="Message detail"]').include('[role="listbox"]').analyze();
    expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
