// The Webhook tab's signature checks and a receiver's 410 in the inspector, end to end in Chromium over
// a real core (headless host) and real receivers: a destination signing with both schemes posts to two
// webhooks, one answering 410 Gone. Each check's controls have names of their own; a verdict does not
// outlive the message it was made for; a URL the delivery made no request to says so instead of
// offering a check; the list's 410 reason reaches a screen reader; "Re-enabled" goes once the URL is
// gone again.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[webhook-tab-checks e2e] skipped: ${skipReason}`);

const SHARED = 'checks-e2e-secret';
const WHSEC = `whsec_${randomBytes(32).toString('base64')}`;

describe.skipIf(skipReason !== null)('Signature checks and a gone URL in the inspector', () => {
  let session: InspectorSession;
  let ok: Receiver;
  let gone: Receiver;

  beforeAll(async () => {
    ok = await startReceiver();
    gone = await startReceiver();
    gone.fallback = { status: 410, body: 'this endpoint was removed' };
    session = await openInspector({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [
          {
            name: 'both-hooks',
            enabled: true,
            sources: ['web'],
            webhooks: [
              { url: `${ok.url}/hook`, headers: {} },
              { url: `${gone.url}/hook`, headers: {} },
            ],
            signing: 'both',
            sharedSecret: SHARED,
            signingSecrets: [WHSEC],
            options: { bodyShape: 'seed', concurrency: 32 },
          },
        ],
      },
    });
    await session.open('stream');
  });

  afterAll(async () => {
    await session?.close();
    await ok?.close();
    await gone?.close();
  });

  const page = () => session.page;
  const detail = () => page().getByRole('region', { name: 'Message detail' });
  const row = (event: string) => page().getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: event });
  const send = (event: string) => post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_1', event });
  const goneUrl = () => `${gone.url}/hook`;

  it('names each check’s controls apart, and its Show toggle keeps its name while aria-pressed says the state', async () => {
    expect((await send('First Order')).status).toBe(200);
    await ok.waitFor(1);
    await gone.waitFor(1);
    await until(() => session.core.destinations.byName('both-hooks')!.gone?.[goneUrl()]);
    await expect.poll(() => row('First Order').textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await row('First Order').click();
    await detail().getByRole('tab', { name: 'Webhook request' }).click();
    await detail().getByRole('group', { name: 'Webhook URL' }).getByRole('button', { name: `${ok.url}/hook` }).click();

    for (const name of ['Show shared secret', 'Show Standard Webhooks secret', 'Check X-Signature', 'Check webhook-signature', 'Use “both-hooks” shared secret', 'Use “both-hooks” Standard Webhooks secret']) {
      expect(await detail().getByRole('button', { name, exact: true }).count(), name).toBe(1);
    }
    const xCheck = detail().getByRole('region', { name: 'X-Signature check' });
    const show = xCheck.getByRole('button', { name: 'Show shared secret' });
    const input = xCheck.getByLabel('Shared secret', { exact: true });
    expect(await show.getAttribute('aria-pressed')).toBe('false');
    await show.click();
    expect(await show.getAttribute('aria-pressed')).toBe('true');
    expect(await show.textContent()).toBe('Show'); // the state is aria-pressed's alone
    expect(await input.getAttribute('type')).toBe('text');
  });

  it('a verdict is for the request it was made for: another URL, or another message, starts a fresh check', async () => {
    const xCheck = detail().getByRole('region', { name: 'X-Signature check' });
    const fresh = async () => {
      expect(await xCheck.getByRole('status').textContent()).toBe('');
      expect(await xCheck.getByLabel('Shared secret', { exact: true }).inputValue()).toBe('');
      expect(await xCheck.getByRole('button', { name: 'Show shared secret' }).getAttribute('aria-pressed')).toBe('false');
    };
    const match = async () => {
      await xCheck.getByRole('button', { name: 'Use “both-hooks” shared secret' }).click();
      await expect.poll(() => xCheck.getByRole('status').textContent(), { timeout: 10_000 }).toContain('✓ Signature matches');
      expect(await xCheck.getByLabel('Shared secret', { exact: true }).inputValue()).toBe(SHARED);
    };
    await match();
    // The same delivery's request to the other URL (it answered 410): its own check.
    await detail().getByRole('group', { name: 'Webhook URL' }).getByRole('button', { name: goneUrl() }).click();
    await expect.poll(() => detail().locator('.request-line .url').textContent()).toBe(goneUrl());
    await fresh();
    await match();

    expect((await send('Second Order')).status).toBe(200);
    await ok.waitFor(2);
    await expect.poll(() => row('Second Order').textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await row('Second Order').click();
    await expect.poll(() => detail().locator('h2').textContent()).toBe('Second Order');
    await detail().getByRole('group', { name: 'Webhook URL' }).getByRole('button', { name: `${ok.url}/hook` }).click();
    await fresh();
  });

  it('a URL the delivery made no request to (disabled after 410) says so, and offers no signature check', async () => {
    expect(gone.received).toHaveLength(1); // the second message went to the other URL only
    await detail().getByRole('group', { name: 'Webhook URL' }).getByRole('button', { name: goneUrl() }).click();
    const note = detail().getByRole('note');
    const at = session.core.destinations.byName('both-hooks')!.gone![goneUrl()]!.at;
    const time = new Date(at).toTimeString().slice(0, 8);
    await expect.poll(() => note.textContent()).toBe(
      `No request was made to this URL for this delivery: its requests went to ${ok.url}/hook. It was disabled before then: it answered 410 Gone at ${time}.${String(at % 1000).padStart(3, '0')}. So there is no signature to check here.`,
    );
    expect(await detail().getByRole('region', { name: /check$/ }).count()).toBe(0);
    expect(await detail().getByText('— as they would be sent (no request was made to this URL)').isVisible()).toBe(true);
    await session.shot('webhook-tab-not-requested');
  });

  it('the list’s 410 reason reaches a screen reader; "Re-enabled" goes once the URL answers 410 again', async () => {
    await page().getByRole('button', { name: 'Destinations', exact: true }).click();
    const item = page().getByRole('complementary', { name: 'Destinations' }).getByRole('listitem').filter({ hasText: 'both-hooks' });
    const health = item.locator('.dst-health').filter({ hasText: 'disabled: answered 410 Gone' });
    await expect.poll(() => health.count(), { timeout: 10_000 }).toBe(1);
    const reason = session.core.destinations.byName('both-hooks')!.gone![goneUrl()]!.reason;
    const snapshot = await health.ariaSnapshot();
    expect(snapshot).toContain(reason); // not in a tooltip only
    const reenable = health.getByRole('button', { name: `Re-enable ${goneUrl()}` });
    const describedBy = await reenable.getAttribute('aria-describedby');
    expect(await page().locator(`[id="${describedBy}"]`).textContent()).toMatch(new RegExp(`^${reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(since .+\\)$`));

    const firstAt = session.core.destinations.byName('both-hooks')!.gone![goneUrl()]!.at;
    await reenable.click();
    const note = item.getByRole('status').filter({ hasText: 'Re-enabled' });
    await expect.poll(() => note.textContent()).toBe('Re-enabled: deliveries to this URL go again.');
    await until(() => (session.core.destinations.byName('both-hooks')!.gone ? undefined : true));
    // Still answering 410: the next message disables it again, at another time.
    expect((await send('Third Order')).status).toBe(200);
    await gone.waitFor(2);
    await until(() => (session.core.destinations.byName('both-hooks')!.gone?.[goneUrl()]?.at ?? firstAt) > firstAt || undefined);
    // The list is read again on the core's event: until then it may still show the first 410 beside the note.
    await expect.poll(() => note.count(), { timeout: 10_000 }).toBe(0);
    expect(await item.locator('.dst-health-line').filter({ hasText: 'disabled: answered 410 Gone' }).count()).toBe(1);

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
