// Issues' rows follow their groups when the list changes order (issue 29), in Chromium over a real core
// and a real receiver that answers 400. The list is read again as deliveries change, the latest seen
// first: when an older group sees a new failure it moves to the top, and a row that keeps state of its
// own and the keyboard focus on its "Show messages" must move with it — Enter then opens the group it
// names, not the one that took its place on screen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { callOk } from '../helpers/contract.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[issues-order e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('Issues rows when the groups change order', () => {
  let session: InspectorSession;
  let hook: Receiver;
  const page = () => session.page;
  const groups = () => page().getByRole('region', { name: 'Issues' }).getByRole('list', { name: /^Issues/ }).getByRole('listitem');
  const issues = async () => (await callOk(createHandlers(session.core), 'issues.list', { state: 'open' })).issues;
  const fail = async (writeKey: string, destination: string, seen: number) => {
    expect((await post({ ingestUrl: session.core.ingestUrl, writeKey }, '/v1/batch', { batch: [{ type: 'track', userId: 'u', event: 'Order Completed' }] })).status).toBe(200);
    for (const end = Date.now() + 15_000; !(await issues()).some((i) => i.destinationName === destination && i.seen === seen); await new Promise((r) => setTimeout(r, 50))) {
      if (Date.now() > end) throw new Error(`no group of ${destination} with ${seen} seen after 15 s`);
    }
  };

  beforeAll(async () => {
    hook = await startReceiver();
    hook.fallback = { status: 400, body: 'no' };
    const config = parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }, { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' }], destinations: [] }));
    session = await openInspector({ config });
    session.core.saveDestination({ name: 'alpha', sources: ['web'], webhooks: [{ url: `${hook.url}/alpha` }] });
    session.core.saveDestination({ name: 'beta', sources: ['ios'], webhooks: [{ url: `${hook.url}/beta` }] });
    await fail('wk_web', 'alpha', 1);
    await new Promise((r) => setTimeout(r, 20)); // beta's failure is seen later than alpha's
    await fail('wk_ios', 'beta', 1);
    await session.open('issues');
  });
  afterAll(async () => {
    expect(session?.problems ?? []).toEqual([]);
    await session?.close();
    await hook?.close();
  });

  it('the focus stays on the group it was on when another group moves above it', async () => {
    await expect.poll(() => groups().allTextContents(), { timeout: 10_000 }).toEqual([expect.stringMatching(/^Open beta/), expect.stringMatching(/^Open alpha/)]);
    const beta = (await issues()).find((i) => i.destinationName === 'beta')!;
    await groups().first().getByRole('button', { name: /^Show messages of beta/ }).focus();

    await fail('wk_web', 'alpha', 2); // alpha is now the latest seen: first
    await expect.poll(() => groups().allTextContents(), { timeout: 10_000 }).toEqual([expect.stringMatching(/^Open alpha/), expect.stringMatching(/^Open beta/)]);
    const focused = await page().evaluate(() => ({ label: document.activeElement?.getAttribute('aria-label') ?? '', row: document.activeElement?.closest('li')?.getAttribute('aria-posinset') }));
    expect(focused).toEqual({ label: expect.stringMatching(/^Show messages of beta/), row: '2' });

    await page().keyboard.press('Enter');
    await expect.poll(() => page().evaluate(() => window.location.hash)).toBe('#/stream');
    expect(await page().getByRole('combobox', { name: 'Search messages' }).inputValue()).toBe(beta.query);
  });
});
