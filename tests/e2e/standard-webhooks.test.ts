// Standard Webhooks signing in the inspector, end to end in Chromium over a real core (headless host):
// a destination made in the editor with a generated secret and the next one for rotation, its stored
// secrets masked after a reload and kept by a save; a message to the built-in receiver verified valid
// there; the message's Webhook tab recomputing webhook-signature (match, mismatch); the old secret
// removed, the next one kept.
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { until } from '../helpers/wait.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[standard-webhooks e2e] skipped: ${skipReason}`);

const WHSEC = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** A stored secret as the inspector shows it: no character of it (it showed whsec_ and two characters before). */
const MASK = '••••••••';

describe.skipIf(skipReason !== null)('Standard Webhooks signing in the inspector', () => {
  let session: InspectorSession;
  let current = '';
  let next = '';

  beforeAll(async () => {
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    await session.open('destinations');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const editor = () => page().getByRole('form');
  const saveStatus = () => editor().locator('.dst-save-status');
  const firstSecret = () => editor().getByLabel('Standard Webhooks secret', { exact: true });
  const nextSecret = () => editor().getByLabel('Next secret (rotation)', { exact: true });
  const listItem = () => page().getByRole('complementary', { name: 'Destinations' }).getByRole('button', { name: /std-hooks/ });
  const stored = () => session.core.destinations.byName('std-hooks')!;

  it('creates a destination signed with Standard Webhooks: a generated secret and the next one, checked as typed', async () => {
    await expect.poll(() => editor().getByRole('heading', { name: 'New destination' }).isVisible(), { timeout: 10_000 }).toBe(true);
    await editor().getByLabel('Name', { exact: true }).fill('std-hooks');
    await editor().getByLabel('Webhook 1 URL').fill(session.core.receiver.hookUrl('std'));
    expect(await editor().getByLabel('Shared secret', { exact: true }).count()).toBe(1); // X-Signature by default
    await editor().getByRole('radio', { name: /^Standard Webhooks/ }).check();
    // Standard Webhooks alone sends no X-Signature: no shared secret to ask for.
    expect(await editor().getByLabel('Shared secret', { exact: true }).count()).toBe(0);
    expect(await editor().getByText(/^None\. Sluice sends .* webhook-id, webhook-timestamp and webhook-signature itself\.$/).isVisible()).toBe(true);

    // No secret yet: the save is refused next to the field.
    await editor().getByRole('button', { name: 'Create destination' }).click();
    await expect.poll(() => saveStatus().textContent()).toBe('Fix the problem marked above, then save.');
    expect(await editor().getByText('Standard Webhooks signing needs a secret: generate one, or paste the receiver’s (whsec_…).').isVisible()).toBe(true);
    expect(await firstSecret().getAttribute('aria-invalid')).toBe('true');
    expect(session.core.destinations.list()).toHaveLength(0);

    await editor().getByRole('button', { name: 'Generate a new Standard Webhooks secret' }).click();
    current = await firstSecret().inputValue();
    expect(current).toMatch(WHSEC);
    expect(await firstSecret().getAttribute('type')).toBe('text'); // shown, to be copied to the receiver
    expect(await firstSecret().getAttribute('aria-invalid')).toBeNull();

    await editor().getByRole('button', { name: '+ Add next secret (rotation)' }).click();
    await nextSecret().fill('whsec_short');
    const bad = editor().getByText('The secret must be "whsec_" followed by a 24- to 64-byte key in base64 (the Standard Webhooks form).');
    await expect.poll(() => bad.isVisible()).toBe(true);
    expect(await nextSecret().getAttribute('aria-invalid')).toBe('true');
    expect(await nextSecret().getAttribute('aria-describedby')).toBe(await bad.getAttribute('id'));
    await editor().getByRole('button', { name: 'Generate the next secret' }).click();
    next = await nextSecret().inputValue();
    expect(next).toMatch(WHSEC);
    expect(next).not.toBe(current);
    await expect.poll(() => bad.count()).toBe(0);
    expect(await editor().getByRole('button', { name: '+ Add next secret (rotation)' }).count()).toBe(0); // two at most
    await session.shot('destinations-standard-webhooks');

    await editor().getByRole('button', { name: 'Create destination' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
    expect(stored()).toMatchObject({ signing: 'standard', signingSecrets: [current, next] });
    expect(stored().sharedSecret).toBeUndefined();
    await expect.poll(() => listItem().textContent(), { timeout: 10_000 }).toContain('Standard Webhooks · rotating');
  });

  it('shows the stored secrets masked after a reload, reveals one on request, and keeps both on a save', async () => {
    await page().reload();
    await page().waitForFunction(() => (window as any).__sluice?.store.getState().connection.kind === 'open', undefined, { timeout: 10_000 });
    await expect.poll(() => editor().getByRole('heading', { name: 'std-hooks', exact: true }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await editor().getByRole('radio', { name: /^Standard Webhooks/ }).isChecked()).toBe(true);
    for (const [input, secret] of [[firstSecret(), current], [nextSecret(), next]] as const) {
      expect(await input.inputValue()).toBe('');
      expect(await input.getAttribute('type')).toBe('password');
      expect(await input.getAttribute('placeholder')).toBe(`${MASK} (stored)`);
      expect(await page().content()).not.toContain(secret.slice(0, 8)); // what the old mask showed
    }
    expect(await page().content()).not.toContain(current.slice(6));

    await editor().getByRole('button', { name: 'Reveal next secret' }).click();
    await expect.poll(() => nextSecret().inputValue()).toBe(next);
    expect(await editor().getByRole('button', { name: 'Discard changes' }).isDisabled()).toBe(true); // revealing is no edit

    await editor().getByLabel('Concurrency', { exact: true }).fill('8');
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
    expect(stored()).toMatchObject({ signing: 'standard', signingSecrets: [current, next], options: { concurrency: 8 } });
  });

  it('delivers to the built-in receiver, which finds the Standard Webhooks signature valid', async () => {
    const { core } = session;
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_1', event: 'Signed Standard' });
    const [entry] = await until(() => (core.receiver.inbox('std').length > 0 ? core.receiver.inbox('std') : undefined));
    expect(entry!.headers['x-signature']).toBeUndefined();
    expect(String(entry!.headers['webhook-signature']).split(' ')).toHaveLength(2); // one per secret

    await page().getByRole('button', { name: 'Receiver', exact: true }).click();
    const item = page().getByRole('list', { name: 'Inbox' }).getByRole('listitem').first();
    await expect.poll(() => item.textContent(), { timeout: 10_000 }).toContain('signature ✓ valid · Standard Webhooks');
    await item.getByRole('button', { expanded: false }).click();
    const why = await item.getByLabel('Signature verdict').textContent();
    expect(why).toContain('webhook-signature is the HMAC-SHA256 of webhook-id, webhook-timestamp and the body under a Standard Webhooks secret of “std-hooks”');
    expect(why).not.toContain('X-Signature');
  });

  it('checks webhook-signature in the Webhook tab: match with a secret that signed, mismatch with another', async () => {
    const p = page();
    await p.getByRole('button', { name: 'Stream', exact: true }).click();
    await p.getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'Signed Standard' }).click();
    const detail = p.getByRole('region', { name: 'Message detail' });
    await detail.getByRole('tab', { name: 'Webhook request' }).click();
    const message = session.core.messages.list().find((m) => m.event === 'Signed Standard')!;
    const sent = session.core.deliveries.attempts(session.core.deliveries.forMessage(message.id)[0]!.id).at(-1)!.requestHeaders;
    await detail.getByRole('group', { name: 'Body view' }).getByRole('button', { name: 'Raw' }).click(); // the exact text, not the tree
    const body = await detail.getByLabel('Request body', { exact: true }).textContent();

    const headers = detail.getByRole('table', { name: 'Request headers' });
    const signatureRow = headers.getByRole('row', { name: /webhook-signature/ });
    expect(await signatureRow.textContent()).toContain(sent['webhook-signature']);
    expect(await signatureRow.getAttribute('class')).toBe('header-signature'); // highlighted like X-Signature
    expect(await headers.getByRole('row', { name: /webhook-id/ }).getAttribute('class')).toBeNull();

    const check = detail.getByRole('region', { name: 'Standard Webhooks signature check' });
    expect(await detail.getByRole('region', { name: /^(X-)?Signature check$/ }).count()).toBe(0); // no X-Signature was sent
    const secretInput = check.getByLabel('Standard Webhooks secret', { exact: true });
    const status = check.getByRole('status');

    const wrong = `whsec_${randomBytes(32).toString('base64')}`;
    const wrongSignature = `v1,${createHmac('sha256', Buffer.from(wrong.slice(6), 'base64')).update(`${sent['webhook-id']}.${sent['webhook-timestamp']}.${body}`).digest('base64')}`;
    await secretInput.fill(wrong);
    await check.getByRole('button', { name: 'Check webhook-signature' }).click();
    await expect.poll(() => status.textContent()).toContain('✗ Signature does not match');
    expect(await status.textContent()).toContain(`sent${sent['webhook-signature']}`);
    expect(await status.textContent()).toContain(`computed${wrongSignature}`);

    await secretInput.fill(next); // the next secret alone: its own signature was sent too
    await check.getByRole('button', { name: 'Check webhook-signature' }).click();
    await expect.poll(() => status.textContent()).toContain('✓ Signature matches');
    expect(await status.textContent()).toContain(`${sent['webhook-id']}.${sent['webhook-timestamp']}.`);

    await secretInput.fill('');
    await check.getByRole('button', { name: 'Use “std-hooks” Standard Webhooks secrets' }).click();
    await expect.poll(() => status.textContent()).toContain('✓ Signature matches');
    expect(await status.textContent()).toContain(`computed${sent['webhook-signature']}`); // both secrets: both signatures
    await check.evaluate((el) => el.scrollIntoView());
    await session.shot('webhook-standard-check');
  });

  it('removes the old secret once the receiver has the next one; the next one is kept', async () => {
    await page().getByRole('button', { name: 'Destinations', exact: true }).click();
    await expect.poll(() => editor().getByRole('heading', { name: 'std-hooks', exact: true }).isVisible(), { timeout: 10_000 }).toBe(true);
    await editor().getByRole('button', { name: 'Remove Standard Webhooks secret' }).click();
    expect(await nextSecret().count()).toBe(0);
    expect(await firstSecret().getAttribute('placeholder')).toBe(`${MASK} (stored)`);
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
    expect(stored().signingSecrets).toEqual([next]);
    await expect.poll(() => listItem().textContent(), { timeout: 10_000 }).toContain(`Standard Webhooks · ${MASK}`);

    // A new next-secret row is empty until the user fills it: no problem shown for it yet.
    await editor().getByRole('button', { name: '+ Add next secret (rotation)' }).click();
    expect(await nextSecret().getAttribute('aria-invalid')).toBeNull();
    expect(await editor().getByText('Generate or paste this secret, or remove it.').count()).toBe(0);
    await editor().getByRole('button', { name: 'Remove next secret' }).click();
  });

  it('signs with both: X-Signature needs its shared secret too, and each signature gets its own check', async () => {
    await editor().getByRole('radio', { name: /^Both/ }).check();
    await editor().getByRole('button', { name: 'Save changes' }).click();
    const needed = editor().getByText('Signing with both needs a shared secret for X-Signature too: generate one, or choose Standard Webhooks alone.');
    await expect.poll(() => needed.isVisible()).toBe(true);
    expect(stored().signing).toBe('standard');
    await editor().getByRole('button', { name: 'Generate a new shared secret' }).click();
    const shared = await editor().getByLabel('Shared secret', { exact: true }).inputValue();
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
    expect(stored()).toMatchObject({ signing: 'both', sharedSecret: shared, signingSecrets: [next] });

    const { core } = session;
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_1', event: 'Signed Both' });
    await until(() => (core.receiver.inbox('std').length === 2 ? true : undefined));
    const p = page();
    await p.getByRole('button', { name: 'Receiver', exact: true }).click();
    const item = p.getByRole('list', { name: 'Inbox' }).getByRole('listitem').first();
    await expect.poll(() => item.textContent(), { timeout: 10_000 }).toContain('signature ✓ valid · X-Signature and Standard Webhooks');

    await p.getByRole('button', { name: 'Stream', exact: true }).click();
    await p.getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'Signed Both' }).click();
    const detail = p.getByRole('region', { name: 'Message detail' });
    await detail.getByRole('tab', { name: 'Webhook request' }).click();
    for (const [title, secret] of [['X-Signature check', 'shared secret'], ['Standard Webhooks signature check', 'Standard Webhooks secret']]) {
      const check = detail.getByRole('region', { name: title });
      await check.getByRole('button', { name: `Use “std-hooks” ${secret}`, exact: true }).click();
      await expect.poll(() => check.getByRole('status').textContent(), { timeout: 10_000 }).toContain('✓ Signature matches');
    }

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
