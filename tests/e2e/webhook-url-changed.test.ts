// The Webhook request tab after a destination's URL changed (issue 24, point 9), in Chromium over a real
// core and real receivers: an older message shows the request it was sent with, to the URL it went to,
// and says the destination posts elsewhere now; the destination's new URL, which that delivery never
// posted to, says so as a fact — never a guessed "410 Gone / circuit breaker / added later". A URL
// naming the built-in receiver (sluice://receiver/<hook>) shows where it posts now.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[webhook-url-changed e2e] skipped: ${skipReason}`);

const SECRET = 'changed-url-secret';

describe.skipIf(skipReason !== null)('the Webhook request tab of a destination whose URL changed', () => {
  let session: InspectorSession;
  let before: Receiver;
  let after: Receiver;
  const destination = (url: string) => ({ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url, headers: {} }], sharedSecret: SECRET, options: { bodyShape: 'seed', concurrency: 8 } });

  beforeAll(async () => {
    before = await startReceiver();
    after = await startReceiver();
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [destination(`${before.url}/hook`)] } as never });
    await session.open('stream');
  });
  afterAll(async () => {
    await session?.close();
    await before?.close();
    await after?.close();
  });

  const page = () => session.page;
  const detail = () => page().getByRole('region', { name: 'Message detail' });
  const urls = () => detail().getByRole('group', { name: 'Webhook URL' }).getByRole('button');
  const row = (event: string) => page().getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: event });
  const send = (event: string) => post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_1', event });
  const open = async (event: string) => {
    await expect.poll(() => row(event).textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await row(event).click();
    await expect.poll(() => detail().locator('h2').textContent()).toBe(event);
    await detail().getByRole('tab', { name: 'Webhook request' }).click();
  };
  const edit = (url: string) => {
    const id = session.core.destinations.byName('hooks')!.id;
    session.core.saveDestination({ id, ...destination(url) });
  };

  it('an older message shows the request as sent, and says the destination posts elsewhere now', async () => {
    expect((await send('Before Change')).status).toBe(200);
    await before.waitFor(1);
    edit(`${after.url}/hook`);
    await open('Before Change');
    // The request that was sent comes first, and is the one shown.
    expect(await urls().allTextContents()).toEqual([`${before.url}/hook · sent, no longer the destination’s`, `${after.url}/hook · not sent`]);
    expect(await detail().locator('.request-line .url').textContent()).toBe(`${before.url}/hook`);
    expect(await detail().getByRole('note').textContent()).toBe(
      `The destination’s URL changed after this request: it posts to ${after.url}/hook now. This request went to the URL above.`,
    );
    // Its signature can still be checked: it was sent.
    const check = detail().getByRole('region', { name: 'Signature check' });
    await check.getByRole('button', { name: 'Use “hooks” shared secret' }).click();
    await expect.poll(() => check.locator('.verdict-title').textContent()).toBe('✓ Signature matches');
    await session.shot('webhook-url-changed-sent');
  });

  it('the destination’s URL now, to which that delivery never posted, says so — and nothing made up', async () => {
    await urls().filter({ hasText: `${after.url}/hook` }).click();
    const note = detail().getByRole('note');
    await expect.poll(() => note.textContent()).toBe(
      `The destination’s URL changed after this delivery was sent: its request went to ${before.url}/hook. This URL is the destination’s now: a new delivery or a replay posts here. So there is no signature to check here.`,
    );
    // \b410\b: the page holds random ports (41037), which a bare 410 matched one run in a few.
    expect(await detail().textContent()).not.toMatch(/\b410\b|circuit breaker|added to the destination later/);
    expect(await detail().getByRole('region', { name: /check$/ }).count()).toBe(0);
    expect(after.received).toHaveLength(0);
    await session.shot('webhook-url-changed-not-sent');
  });

  it('a URL naming the built-in receiver shows where it posts now', async () => {
    edit('sluice://receiver/orders');
    expect((await send('To The Receiver')).status).toBe(200);
    await open('To The Receiver');
    expect(await detail().locator('.request-line .url').textContent()).toBe('sluice://receiver/orders');
    expect(await detail().locator('.request-address').textContent()).toBe(
      `The built-in receiver, by name: sent to it wherever it listened then; now at ${session.core.receiver.url}/hooks/orders.`,
    );
    expect(session.core.receiver.inbox('orders').map((entry) => entry.signature)).toEqual(['valid']);
    expect(session.problems).toEqual([]);
  });
});
