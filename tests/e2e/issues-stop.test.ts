// Stopping a bulk retry from the inspector, in Chromium over a real core and a real receiver: a group of
// 1,200 failed deliveries (the receiver answers 400) is retried with "Retry all"; the core's pause
// between two chunks is lengthened so that the job waits after its first chunk of 500 until it is
// stopped, whatever the machine's speed. Its "Stop retrying crm …" is reached by keyboard, the bar then
// says it stopped and how far it got, the focus is on that sentence, and the group keeps the 700
// deliveries the job did not reach, still failed. The stream's "Retry failed…" dialog, closed while its
// retry counts and opened again, shows that retry with its Stop. axe clean in both themes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import { RETRY_CHUNK } from '../../electron/core/delivery/bulk-retry.ts';
import { expectAccessible } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { callOk } from '../helpers/contract.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[issues-stop e2e] skipped: ${skipReason}`);

const N = 1200;

describe.skipIf(skipReason !== null)('Stopping a bulk retry in the inspector', () => {
  let session: InspectorSession;
  let crm: Receiver;
  const page = () => session.page;
  const view = () => page().getByRole('region', { name: 'Issues' });
  const groups = () => view().getByRole('list', { name: /^Issues/ }).getByRole('listitem');
  const nav = (name: string) => page().getByRole('navigation', { name: 'Views' }).getByRole('button', { name, exact: true });
  const openGroup = async () => (await callOk(createHandlers(session.core), 'issues.list', { state: 'open' })).issues[0];
  /** The job as the core lists it, once it matches (it then waits out its pause between two chunks). */
  const job = async (match: (j: { jobId: number; done: number; total: number; state: string; issueId: number | null }) => boolean) => {
    for (const end = Date.now() + 15_000; ; await new Promise((r) => setTimeout(r, 20))) {
      const found = (await callOk(createHandlers(session.core), 'issues.retries', {})).jobs.find(match);
      if (found) return found;
      if (Date.now() > end) throw new Error('no such retry job after 15 s');
    }
  };

  beforeAll(async () => {
    crm = await startReceiver();
    crm.fallback = { status: 400, body: 'no' };
    const config = parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] }));
    session = await openInspector({ config, bulkRetryPauseMs: 600_000 });
    session.core.saveDestination({ name: 'crm', sources: ['web'], webhooks: [{ url: `${crm.url}/crm` }], options: { concurrency: 16 } });
    for (let i = 0; i < N; i += 400) {
      const batch = Array.from({ length: 400 }, (_, j) => ({ type: 'track', userId: `u_${i + j}`, event: 'Order Completed' }));
      expect((await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch })).status).toBe(200);
    }
    for (const end = Date.now() + 60_000; (await openGroup())?.failed !== N; await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() > end) throw new Error(`the ${N} deliveries did not all fail in 60 s: ${JSON.stringify(await openGroup())}`);
    }
    await session.open('issues');
  }, 120_000);
  afterAll(async () => {
    expect(session?.problems ?? []).toEqual([]);
    await session?.close();
    await crm?.close();
  });

  it('Stop, reached by keyboard, stops the group’s retry after its first chunk: the bar says so and the group keeps the rest', async () => {
    crm.fallback = { status: 200, body: 'ok' };
    await expect.poll(() => groups().first().textContent(), { timeout: 10_000 }).toContain('1,200 failed');
    const group = groups().first();
    await group.getByRole('button', { name: /^Retry all of crm/ }).focus();
    await page().keyboard.press('Enter');
    const stop = group.getByRole('button', { name: /^Stop retrying crm — Refused \(4xx\), HTTP 400$/ });
    await expect.poll(() => stop.count(), { timeout: 10_000 }).toBe(1);
    await job((j) => j.issueId !== null && j.state === 'running' && j.done === RETRY_CHUNK);
    const status = group.getByRole('status');
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Retrying: 500 of 1,200 deliveries looked at, 500 sent again.');
    await expectAccessible(page(), '.issues');
    await session.shot('issues-retry-running');

    // Keyboard: from "Retry all" (disabled while it runs, so from "Show messages") Tab reaches Stop.
    await group.getByRole('button', { name: /^Show messages of crm/ }).focus();
    for (let i = 0; i < 3 && !(await stop.evaluate((el) => el === document.activeElement)); i++) await page().keyboard.press('Tab');
    expect(await stop.evaluate((el) => el === document.activeElement)).toBe(true);
    await page().keyboard.press('Enter');

    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe(`Stopped after 500 of 1,200: 500 sent again; the rest left as they were.`);
    expect(await stop.count()).toBe(0);
    expect(await status.evaluate((el) => el === document.activeElement)).toBe(true);
    const bar = group.getByRole('progressbar', { name: /^Retry of crm/ });
    expect([await bar.getAttribute('value'), await bar.getAttribute('max')]).toEqual(['500', '1200']);
    expect(await group.getByRole('button', { name: /^Retry all of crm/ }).isEnabled()).toBe(true);

    // The 500 sent again are delivered; the 700 after them were never touched and the group keeps them.
    await expect.poll(() => crm.received.length, { timeout: 30_000 }).toBe(N + RETRY_CHUNK);
    await session.core.delivery.idle();
    expect(await openGroup()).toMatchObject({ failed: N - RETRY_CHUNK, retrying: 0, closedAt: null });
    await expect.poll(() => group.textContent(), { timeout: 10_000 }).toContain('700 failed');
    await expectAccessible(page(), '.issues');
    await session.shot('issues-retry-stopped');
  }, 90_000);

  it('the stream’s Retry failed…, opened again while its retry runs, shows it with its Stop', async () => {
    await nav('Stream').click();
    const opener = page().getByRole('button', { name: /^Retry failed…/ });
    await opener.click();
    let dialog = page().getByRole('dialog', { name: 'Retry failed deliveries' });
    await dialog.getByRole('button', { name: 'Retry them' }).click();
    // It counts a chunk, then waits: closed meanwhile, it goes on.
    const counting = await job((j) => j.issueId === null && j.state === 'counting' && j.total === RETRY_CHUNK);
    await expect.poll(() => dialog.getByRole('button', { name: 'Stop retrying the failed deliveries of the search' }).count(), { timeout: 10_000 }).toBe(1);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await opener.click();
    dialog = page().getByRole('dialog', { name: 'Retry failed deliveries' });
    expect(await dialog.textContent()).toContain('A retry of failed deliveries started earlier is under way');
    await expectAccessible(page(), 'dialog[open]');
    await dialog.getByRole('button', { name: 'Stop retrying the failed deliveries of the search' }).click();
    await expect.poll(() => dialog.getByRole('status').textContent(), { timeout: 10_000 }).toBe('Stopped after 0 of 500: 0 sent again; the rest left as they were.');
    expect(await job((j) => j.jobId === counting.jobId)).toMatchObject({ state: 'cancelled', done: 0 });
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await openGroup()).toMatchObject({ failed: N - RETRY_CHUNK, retrying: 0 });
  }, 60_000);
});
