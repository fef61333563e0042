// The composer, the built-in receiver and deletions, end to end in Chromium over a real core (headless
// host), driven by role and label: sample events from an empty stream arrive signed at the built-in
// receiver; a hook switched to 503 makes the next delivery retry; the composer's queue fills and
// "Flush now" empties it into the stream; a deletion request's notification is seen delivered.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { until } from '../helpers/wait.ts';

const TOKEN = 'tok_inbox_7c1e';
const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[composer/receiver/deletions e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('composer, receiver and deletions in the inspector', () => {
  let session: InspectorSession;

  beforeAll(async () => {
    // flushAt 20 and a long flushAfter: messages stay queued until flushed, so the queue can be watched.
    session = await openInspector({ composer: { flushAt: 20, flushAfter: 120_000 } });
  });

  afterAll(async () => {
    await session?.close();
  });

  const list = () => session.page.getByRole('listbox', { name: 'Messages' });
  const rows = (text: string | RegExp) => list().getByRole('option').filter({ hasText: text });
  const inbox = () => session.page.getByRole('list', { name: 'Inbox' }).getByRole('listitem');

  it('sends sample events from the empty stream: a signed built-in receiver destination, delivered rows', async () => {
    const { page, core } = session;
    await session.open('stream');
    const empty = page.getByRole('region', { name: 'No messages yet' });
    await expect.poll(() => empty.isVisible(), { timeout: 10_000 }).toBe(true);
    await empty.getByRole('button', { name: 'Send sample events' }).click();

    await expect.poll(() => list().getByRole('option').count(), { timeout: 10_000 }).toBe(6);
    await expect.poll(() => rows('✓ delivered').count(), { timeout: 10_000 }).toBe(6);
    expect(await rows('Order Completed').count()).toBe(1);
    expect(await rows('Pricing').textContent()).toContain('anon_9f2c');
    const destinations = core.destinations.list();
    expect(destinations.map((d) => d.name)).toEqual(['Built-in receiver']);
    expect(destinations[0]!.webhooks[0]!.url).toBe('sluice://receiver/demo');
    await session.shot('stream-samples');

    // The receiver's inbox has them, each verified against the new destination's secret.
    await page.getByRole('button', { name: 'Receiver', exact: true }).click();
    await expect.poll(() => inbox().count(), { timeout: 10_000 }).toBe(6);
    expect(await inbox().filter({ hasText: 'signature ✓ valid' }).filter({ hasText: 'answered 200' }).count()).toBe(6);
    expect(await page.getByLabel('Receiver URL', { exact: true }).textContent()).toBe(core.receiver.url);
    await page.getByRole('button', { name: 'Copy receiver URL' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(core.receiver.url);

    // A click opens an entry: why the signature is valid, the headers and the body as received.
    const newest = inbox().first();
    expect(await newest.textContent()).toContain('group “acme” · u_ada');
    await newest.getByRole('button', { expanded: false }).click();
    expect(await newest.getByLabel('Signature verdict').textContent()).toContain('the shared secret of “Built-in receiver”');
    const entry = core.receiver.inbox('demo').at(-1)!;
    const headers = newest.getByRole('table', { name: 'Headers' });
    expect(await headers.getByRole('row', { name: /x-signature/ }).textContent()).toContain(String(entry.headers['x-signature']));
    await newest.getByRole('button', { name: 'Raw' }).click();
    expect(await newest.getByLabel('Raw body').textContent()).toBe(entry.body);
    expect(JSON.parse(entry.body)).toMatchObject({ type: 'group', groupId: 'acme' });

    // The stream is no longer empty, so the button has done its job and is gone.
    await page.getByRole('button', { name: 'Stream', exact: true }).click();
    expect(await page.getByRole('button', { name: 'Send sample events' }).count()).toBe(0);
  });

  it('switches a hook to 503 and the next delivery retries, shown in the inbox and the stream', async () => {
    const { page, core } = session;
    await page.getByRole('button', { name: 'Receiver', exact: true }).click();
    const hook = page.getByRole('listitem', { name: 'Hook demo' });
    expect(await hook.textContent()).toContain('from “Built-in receiver”');
    expect(await hook.getByLabel('Behaviour of hook demo now').textContent()).toBe('Now answers 200');
    await hook.getByRole('combobox', { name: 'Behaviour of hook demo' }).selectOption('status');
    await hook.getByRole('textbox', { name: 'Status of hook demo' }).fill('99');
    expect(await hook.getByRole('alert').textContent()).toBe('The status must be a whole number from 100 to 599, e.g. 503.');
    await hook.getByRole('textbox', { name: 'Status of hook demo' }).fill('503');
    await hook.getByRole('button', { name: 'Apply behaviour to hook demo' }).click();
    await expect.poll(() => page.getByLabel('Behaviour of hook demo now').textContent()).toBe('Now answers 503');
    expect(core.receiver.behaviour('demo')).toEqual({ mode: 'status', status: 503 });

    await post(core, '/v1/track', { userId: 'u_retry', event: 'Retry Me' });
    await expect.poll(() => inbox().first().textContent(), { timeout: 10_000 }).toContain('answered 503');
    expect(await inbox().first().textContent()).toContain('signature ✓ valid');
    expect(await inbox().first().textContent()).toContain('track “Retry Me” · u_retry');
    await session.shot('receiver');

    await page.getByRole('button', { name: 'Stream', exact: true }).click();
    await expect.poll(() => rows('Retry Me').textContent(), { timeout: 10_000 }).toMatch(/⟳ next: attempt 2 (in \d+ s|now) · last: HTTP 503/);

    // Back to 200 for what follows (the retry then succeeds).
    await page.getByRole('button', { name: 'Receiver', exact: true }).click();
    await page.getByRole('combobox', { name: 'Behaviour of hook demo' }).selectOption('ok');
    await page.getByRole('button', { name: 'Apply behaviour to hook demo' }).click();
    await expect.poll(() => page.getByLabel('Behaviour of hook demo now').textContent()).toBe('Now answers 200');
  });

  it('composes tracks: the queue rises, "Flush now" empties it, and they appear in the stream', async () => {
    const { page, core } = session;
    await page.getByRole('button', { name: 'Composer', exact: true }).click();
    const form = page.getByRole('form', { name: 'Message' });
    const queued = page.getByLabel('Queued messages', { exact: true }).filter({ hasText: /^\d+$/ });
    await expect.poll(() => queued.textContent(), { timeout: 10_000 }).toBe('0');

    // The client's own validation, shown under the field it is about.
    await form.getByRole('textbox', { name: 'User ID' }).fill('');
    await form.getByRole('button', { name: 'Send track' }).click();
    await expect.poll(() => form.getByRole('textbox', { name: 'User ID' }).getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByText(/needs a userId or an anonymousId\. Fill in the User ID or the Anonymous ID\./).count()).toBe(1);
    // JSON checked as typed: where it breaks, and Send waits for a fix.
    const properties = form.getByRole('textbox', { name: 'Properties (JSON)' });
    const good = await properties.inputValue();
    await properties.fill('{\n  "plan": "pro"\n  "seats": 3\n}');
    expect(await form.getByText(/Properties is not valid JSON: .* at line 3, column 3\./).count()).toBe(1);
    expect(await form.getByRole('button', { name: 'Send track' }).isDisabled()).toBe(true);
    await properties.fill(good);

    await form.getByRole('textbox', { name: 'User ID' }).fill('u_composer');
    await form.getByRole('button', { name: 'Send track' }).click();
    await expect.poll(() => queued.textContent()).toBe('1');
    await form.getByRole('textbox', { name: 'Event' }).fill('Checkout Started');
    await form.getByRole('button', { name: 'Send track' }).click();
    await expect.poll(() => queued.textContent()).toBe('2');
    expect(await page.getByLabel('Timed flush').textContent()).toMatch(/^Timed flush in \d+\.\d s$/);
    expect(await page.getByLabel('Queued bytes', { exact: true }).textContent()).toMatch(/^[1-9][\d.]* (B|KB)$/);
    expect(core.messages.list({ limit: 100, search: 'u_composer' })).toHaveLength(0); // still in the client
    await session.shot('composer');

    await page.getByRole('button', { name: 'Flush now' }).click();
    await expect.poll(() => queued.textContent(), { timeout: 10_000 }).toBe('0');
    await expect.poll(() => page.getByLabel('Last batch').textContent(), { timeout: 10_000 }).toMatch(/^✓ Last batch: 2 messages · HTTP 200/);
    expect(core.messages.list({ limit: 100, search: 'u_composer' }).map((m) => m.event)).toEqual(['Checkout Started', 'Order Completed']);

    await page.getByRole('button', { name: 'Stream', exact: true }).click();
    await expect.poll(() => rows('Checkout Started').textContent(), { timeout: 10_000 }).toContain('u_composer');
    expect(await rows('u_composer').count()).toBe(2);
  });

  it('requests a deletion and shows its delete notification delivered, with the purge count', async () => {
    const { page, core } = session;
    await page.getByRole('button', { name: 'Deletions', exact: true }).click();
    const form = page.getByRole('form', { name: 'New deletion request' });
    await form.getByRole('button', { name: 'Request deletion' }).click();
    expect(await page.getByRole('alert').filter({ hasText: 'Enter the userId' }).textContent()).toBe('Enter the userId whose data should be deleted, e.g. u_123.');

    await form.getByRole('textbox', { name: 'User ID' }).fill('u_composer');
    await form.getByRole('checkbox', { name: /Also delete the user’s stored messages/ }).check();
    await form.getByRole('button', { name: 'Request deletion' }).click();
    // A purge asks first (deletion-confirm.test.ts covers the question).
    await page.getByRole('dialog', { name: 'Purge user u_composer?' }).getByRole('button', { name: 'Purge user' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Requested' }).textContent()).toBe(
      'Requested: 1 delete notification queued; 2 stored messages deleted, 2 requests removed from the built-in receiver’s inbox.',
    );
    const request = page.getByRole('listitem', { name: 'Deletion request for u_composer' });
    const notifications = request.getByRole('table', { name: 'Notifications for u_composer' });
    await expect.poll(() => notifications.getByRole('row').nth(1).textContent(), { timeout: 10_000 }).toMatch(/Built-in receiver✓ deliveredHTTP 200 in \d+ ms1/);
    expect(await request.textContent()).toContain('2 stored messages deleted');
    const arrived = await until(() => core.receiver.inbox('demo').find((e) => e.body.includes('"delete"')));
    expect(JSON.parse(arrived.body)).toMatchObject({ type: 'delete', userId: 'u_composer' });
    expect(arrived.signature).toBe('valid');
    await session.shot('deletions');

    // A user no source knows: flagged first; sent anyway, recorded, nobody to notify.
    await form.getByRole('textbox', { name: 'User ID' }).fill('u_nobody');
    await form.getByRole('button', { name: 'Request deletion' }).click();
    await page.getByRole('dialog', { name: 'Unknown user' }).getByRole('button', { name: 'Send anyway' }).click();
    await expect.poll(() => page.getByRole('listitem', { name: 'Deletion request for u_nobody' }).textContent()).toContain('No destination was notified.');
  });

  it('masks a credential header a request brought to the receiver until it is revealed', async () => {
    const { page, core } = session;
    const sent = await request(core.receiver.hookUrl('demo'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, 'x-env': 'direct' },
      body: JSON.stringify({ type: 'track', event: 'Direct Post' }),
    });
    await sent.body.dump();
    await page.getByRole('button', { name: 'Receiver', exact: true }).click();
    const entry = inbox().filter({ hasText: 'Direct Post' });
    await expect.poll(() => entry.count(), { timeout: 10_000 }).toBe(1);
    await entry.getByRole('button', { expanded: false }).click();
    const headers = entry.getByRole('table', { name: 'Headers' });
    expect(await headers.getByRole('row', { name: /x-env/ }).textContent()).toContain('direct');
    const authorization = headers.getByRole('row', { name: /authorization/ });
    expect(await authorization.textContent()).toContain('Bearer ••••••••');
    expect(await headers.textContent()).not.toContain(TOKEN);
    await authorization.getByRole('button', { name: 'Reveal authorization' }).click();
    await expect.poll(() => authorization.textContent()).toContain(`Bearer ${TOKEN}`);
  });

  it('reads well in the dark theme too', async () => {
    const { page } = session;
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('button', { name: 'Composer', exact: true }).click();
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(20, 22, 25)');
    await session.shot('composer-dark');
    await page.getByRole('button', { name: 'Receiver', exact: true }).click();
    await session.shot('receiver-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('made no request off this host and logged no error', () => {
    expect(session.offsite).toEqual([]);
    expect(session.problems).toEqual([]);
  });
});
