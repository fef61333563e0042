// Deletions ask before they destroy, end to end in Chromium over a real core (headless host) whose
// destination posts to the built-in receiver: a purge opens a modal dialog that says, with the core's
// counts, what it removes, with Cancel focused — Cancel (by keyboard) removes nothing, confirming
// removes the messages and the user's requests in the receiver's inbox, and the form is empty again
// with its purge box unticked; a userId no stored message has is flagged before anything is sent. The
// purged user's rows leave the stream on screen, also when the purge was made elsewhere.
import { expectAccessible } from '../helpers/a11y.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { until } from '../helpers/wait.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[deletion-confirm e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('confirming a deletion in the inspector', () => {
  let session: InspectorSession;

  beforeAll(async () => {
    session = await openInspector({
      config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }, { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' }], destinations: [] },
    });
    const { core } = session;
    core.saveDestination({ name: 'hooks', sources: ['web'], sharedSecret: 'e2e-secret', webhooks: [{ url: core.receiver.hookUrl('demo') }] });
    const batch = [
      ...['A', 'B', 'C'].map((event) => ({ type: 'track', userId: 'alice', event: `Alice ${event}` })),
      ...['A', 'B'].map((event) => ({ type: 'track', userId: 'bob', event: `Bob ${event}` })),
    ];
    expect((await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch })).status).toBe(200);
    await until(() => core.receiver.inbox('demo').length === 5 || undefined, 10_000, 'five requests in the inbox');
    // One of alice's messages comes from a source with no destination: no delivery changes when it goes.
    expect((await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_ios' }, '/v1/track', { userId: 'alice', event: 'Alice D' })).status).toBe(200);
    // The stream is loaded first: a purge must take the user's rows out of it without a reload.
    await session.open('stream');
    await rows().nth(5).waitFor({ timeout: 10_000 });
    expect(await rows().count()).toBe(6);
    await session.open('deletions');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const form = () => page().getByRole('form', { name: 'New deletion request' });
  const userField = () => form().getByRole('textbox', { name: 'User ID' });
  const purgeBox = () => form().getByRole('checkbox', { name: /Also delete the user’s stored messages/ });
  const dialog = () => page().getByRole('dialog');
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const stored = (userId: string) => session.core.messages.list({ limit: 100 }).filter((m) => m.userId === userId).length;
  const outcome = () => page().getByRole('status').filter({ hasText: /^(Requested|No source)/ });
  const inboxOf = (userId: string) => session.core.receiver.inbox().filter((e) => JSON.parse(e.body).userId === userId && JSON.parse(e.body).type !== 'delete');

  it('asks before a purge, saying what it removes, with Cancel focused; Cancel by keyboard removes nothing', async () => {
    await userField().fill('alice');
    await purgeBox().check();
    await form().getByRole('button', { name: 'Request deletion' }).click();

    await expect.poll(() => dialog().count(), { timeout: 10_000 }).toBe(1);
    const shown = dialog();
    expect(await shown.getAttribute('aria-labelledby')).not.toBeNull();
    expect(await page().getByRole('dialog', { name: 'Purge user alice?' }).count()).toBe(1);
    const describedBy = await shown.getAttribute('aria-describedby');
    expect(await page().locator(`[id="${describedBy}"]`).textContent()).toBe(
      'Purge user alice: removes 4 stored messages, what their 3 deliveries and 3 attempts kept of them (the bodies sent and the answers received; the deliveries stay, as the record of what was sent when) and 3 requests in the built-in receiver’s inbox. A delete notification goes to 1 destination. This cannot be undone.',
    );
    // Modal: the rest of the page is inert; Cancel has the focus, and Tab reaches the purge button.
    expect(await shown.evaluate((el) => (el as HTMLDialogElement).open && el.matches(':modal'))).toBe(true);
    await expect.poll(() => page().evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page().keyboard.press('Tab');
    expect(await page().evaluate(() => document.activeElement?.textContent)).toBe('Purge user');
    await page().keyboard.press('Shift+Tab');
    expect(await page().evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await session.shot('deletion-confirm');

    await expectAccessible(page(), 'dialog', null); // every axe rule, both themes

    await page().keyboard.press('Enter'); // on Cancel
    await expect.poll(() => dialog().count()).toBe(0);
    expect(stored('alice')).toBe(4);
    expect(inboxOf('alice')).toHaveLength(3);
    expect(session.core.deletionRequests.recent(10)).toEqual([]);
    // Cancelled, the form keeps what was typed: it can be corrected or sent again.
    expect(await userField().inputValue()).toBe('alice');
    expect(await purgeBox().isChecked()).toBe(true);

    // Esc cancels too.
    await form().getByRole('button', { name: 'Request deletion' }).click();
    await expect.poll(() => dialog().count(), { timeout: 10_000 }).toBe(1);
    await page().keyboard.press('Escape');
    await expect.poll(() => dialog().count()).toBe(0);
    expect(session.core.deletionRequests.recent(10)).toEqual([]);
  });

  it('purges once confirmed: messages and the user’s inbox requests go, others stay; the form is empty again', async () => {
    await form().getByRole('button', { name: 'Request deletion' }).click();
    await expect.poll(() => dialog().count(), { timeout: 10_000 }).toBe(1);
    await dialog().getByRole('button', { name: 'Purge user' }).click();
    await expect.poll(() => outcome().textContent(), { timeout: 10_000 }).toBe(
      'Requested: 1 delete notification queued; 4 stored messages deleted, 3 requests removed from the built-in receiver’s inbox.',
    );
    expect(await dialog().count()).toBe(0);
    expect(stored('alice')).toBe(0);
    expect(inboxOf('alice')).toEqual([]);
    expect(stored('bob')).toBe(2);
    expect(inboxOf('bob')).toHaveLength(2);
    // The delete notification arrives after the purge, and stays.
    await until(() => session.core.receiver.inbox().find((e) => JSON.parse(e.body).type === 'delete'));

    expect(await userField().inputValue()).toBe('');
    expect(await purgeBox().isChecked()).toBe(false);
    expect(await page().evaluate(() => document.activeElement?.getAttribute('placeholder'))).toBe('u_123'); // the next request starts at the field
    await expect.poll(() => page().getByRole('listitem', { name: 'Deletion request for alice' }).textContent(), { timeout: 10_000 }).toContain('4 stored messages deleted');

    // The stream loaded before the purge lost alice's rows and kept bob's, and its footer counts follow.
    await session.open('stream');
    await expect.poll(() => rows().filter({ hasText: 'Alice' }).count(), { timeout: 10_000 }).toBe(0);
    expect(await rows().filter({ hasText: 'Bob' }).count()).toBe(2);
    await expect.poll(() => page().getByTestId('stream-counts').textContent(), { timeout: 10_000 }).toMatch(/^2 messages · 2 loaded/);
    await session.open('deletions');
  });

  it('flags a userId no stored message has before sending; sent anyway, it is recorded', async () => {
    await userField().fill('alicee');
    await form().getByRole('button', { name: 'Request deletion' }).click();
    await expect.poll(() => page().getByRole('dialog', { name: 'Unknown user' }).count(), { timeout: 10_000 }).toBe(1);
    expect(await dialog().textContent()).toContain('No stored message has userId alicee — send anyway?');
    await expect.poll(() => page().evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog().count()).toBe(0);
    expect(session.core.deletionRequests.recent(10).map((r) => r.userId)).toEqual(['alice']);

    await form().getByRole('button', { name: 'Request deletion' }).click();
    await expect.poll(() => dialog().count(), { timeout: 10_000 }).toBe(1);
    await dialog().getByRole('button', { name: 'Send anyway' }).click();
    await expect.poll(() => outcome().textContent(), { timeout: 10_000 }).toBe(
      'No source holds messages of alicee, so there was no destination to notify. The request is recorded.',
    );
    expect(session.core.deletionRequests.recent(10).map((r) => r.userId)).toEqual(['alicee', 'alice']);
    expect(await userField().inputValue()).toBe('');

    // A known user without purge is sent without a question.
    await userField().fill('bob');
    await form().getByRole('button', { name: 'Request deletion' }).click();
    await expect.poll(() => outcome().textContent(), { timeout: 10_000 }).toBe('Requested: 1 delete notification queued.');
    expect(await dialog().count()).toBe(0);
    expect(stored('bob')).toBe(2);

  });

  it('a purge made elsewhere (the HTTP API, another window) takes the user’s rows out of the stream on screen', async () => {
    await session.open('stream');
    const batch = ['A', 'B'].map((event) => ({ type: 'track', userId: 'carol', event: `Carol ${event}` }));
    expect((await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_ios' }, '/v1/batch', { batch })).status).toBe(200);
    await rows().filter({ hasText: 'Carol' }).nth(1).waitFor({ timeout: 10_000 });
    await rows().filter({ hasText: 'Carol A' }).click();
    const result = await session.core.operations['deletions.create']({ userId: 'carol', purge: true });
    expect(result.purgedMessages).toBe(2);
    await expect.poll(() => rows().filter({ hasText: 'Carol' }).count(), { timeout: 10_000 }).toBe(0);
    expect(await page().getByRole('region', { name: 'Message detail' }).textContent()).toContain('This message is no longer stored: retention, a clear or a purge removed it.');
    expect(await rows().filter({ hasText: 'Bob' }).count()).toBe(2);
    await expect.poll(() => page().getByTestId('stream-counts').textContent(), { timeout: 10_000 }).toMatch(/^2 messages · 2 loaded/);

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
