// The Destinations and Sources views end to end: the built inspector in Chromium over a real core
// (headless host), a real webhook receiver, driven by role and label as a user would. A destination
// made in the UI delivers real, signed requests; an edit applies to the next delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { signBody } from '../../electron/core/signature/signature.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[destinations e2e] skipped: ${skipReason}`);

const SECRET = 'e2e-secret-1';
const TOKEN = 'tok_e2e_4f9c';

describe.skipIf(skipReason !== null)('Destinations and Sources views', () => {
  let session: InspectorSession;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    session = await openInspector({
      config: {
        sources: [
          { name: 'web', writeKey: 'wk_web', kind: 'web' },
          { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
        ],
        destinations: [],
      },
    });
    await session.open('destinations');
  });

  afterAll(async () => {
    await session?.close();
    await receiver?.close();
  });

  const page = () => session.page;
  const editor = () => page().getByRole('form');
  const webhook = (n: number) => editor().getByRole('group', { name: `Webhook ${n}`, exact: true });
  const outcome = () => page().getByRole('status', { name: 'Test event outcome' });
  const saveStatus = () => editor().locator('.dst-save-status');
  const secretInput = () => editor().getByLabel('Shared secret', { exact: true });

  it('creates a destination, with inline errors for a non-http URL and a sixth webhook', async () => {
    const p = page();
    // No destination yet: the editor starts on a new one.
    await expect.poll(() => editor().getByRole('heading', { name: 'New destination' }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await p.getByText('No destinations yet.', { exact: false }).isVisible()).toBe(true);

    await editor().getByLabel('Name', { exact: true }).fill('my-hooks');
    await editor().getByRole('checkbox', { name: 'web · web' }).check();
    await webhook(1).getByLabel('Webhook 1 URL').fill(`${receiver.url}/hook`);
    await webhook(1).getByRole('button', { name: 'Add header to webhook 1' }).click();
    await webhook(1).getByLabel('Webhook 1 header 1 name').fill('X-Env');
    await webhook(1).getByLabel('Webhook 1 header 1 value').fill('e2e');
    expect(await webhook(1).getByLabel('Webhook 1 header 1 value').getAttribute('type')).toBe('text');
    // A credential header's value is masked as the shared secret is, until revealed.
    await webhook(1).getByRole('button', { name: 'Add header to webhook 1' }).click();
    await webhook(1).getByLabel('Webhook 1 header 2 name').fill('Authorization');
    const token = webhook(1).getByLabel('Webhook 1 header 2 value');
    await token.fill(`Bearer ${TOKEN}`);
    expect(await token.getAttribute('type')).toBe('password');
    await webhook(1).getByRole('button', { name: 'Reveal header 2 of webhook 1' }).click();
    expect(await token.getAttribute('type')).toBe('text');
    expect(await token.inputValue()).toBe(`Bearer ${TOKEN}`);
    await webhook(1).getByRole('button', { name: 'Hide header 2 of webhook 1' }).click();
    expect(await token.getAttribute('type')).toBe('password');
    await secretInput().fill(SECRET);

    // The extra CA is checked as typed too; emptied, it is left out.
    await webhook(1).getByText('TLS: extra trusted CA certificate (optional)').click();
    const pem = webhook(1).getByLabel('Webhook 1 extra CA certificate (PEM)');
    await pem.fill('not a certificate');
    await expect.poll(() => webhook(1).getByText(/^The CA certificate must be a PEM certificate: paste the whole file/).isVisible()).toBe(true);
    await pem.fill('');
    await expect.poll(() => webhook(1).getByText(/^The CA certificate/).count()).toBe(0);

    // A second webhook with an ftp:// URL: the error shows next to that URL as it is typed.
    await editor().getByRole('button', { name: '+ Add webhook' }).click();
    await webhook(2).getByLabel('Webhook 2 URL').fill('ftp://example.com/in');
    await expect.poll(() => webhook(2).getByText('The URL must use http or https (or sluice://receiver/<hook> for the built-in receiver), not ftp.', { exact: true }).isVisible()).toBe(true);
    expect(await webhook(2).getByLabel('Webhook 2 URL').getAttribute('aria-invalid')).toBe('true');
    expect(await webhook(1).getByLabel('Webhook 1 URL').getAttribute('aria-invalid')).toBeNull();

    // Up to six: the sixth is refused inline.
    for (let n = 3; n <= 6; n++) await editor().getByRole('button', { name: '+ Add webhook' }).click();
    const tooMany = editor().getByText('A destination has at most 5 webhooks; remove one before saving.', { exact: true });
    await expect.poll(() => tooMany.isVisible()).toBe(true);
    expect(await webhook(2).getByText('The URL must use http or https (or sluice://receiver/<hook> for the built-in receiver), not ftp.', { exact: true }).isVisible()).toBe(true);
    await webhook(2).scrollIntoViewIfNeeded();
    await session.shot('destinations-errors');

    // Saving with problems does not reach the core, and says what to do.
    await editor().getByRole('button', { name: 'Create destination' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Fix the \d+ problems marked above, then save\.$/);
    expect(session.core.destinations.list()).toHaveLength(0);

    for (let n = 6; n >= 2; n--) await editor().getByRole('button', { name: `Remove webhook ${n}` }).click();
    await expect.poll(() => tooMany.count()).toBe(0);
    expect(await editor().getByText('The URL must use http or https', { exact: false }).count()).toBe(0);

    await editor().getByRole('button', { name: 'Create destination' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at [\d:.]+ — applies from the next delivery attempt\.$/);
    const [saved] = session.core.destinations.list();
    expect(saved).toMatchObject({
      name: 'my-hooks',
      enabled: true,
      sourceIds: [session.core.sources.byName('web')!.id],
      webhooks: [{ url: `${receiver.url}/hook`, headers: { 'X-Env': 'e2e', Authorization: `Bearer ${TOKEN}` } }],
      sharedSecret: SECRET,
      options: { bodyShape: 'seed' },
    });
    // The list (refreshed by settings.changed) shows it, the secret masked.
    const item = p.getByRole('complementary', { name: 'Destinations' }).getByRole('button', { name: /my-hooks/ });
    await expect.poll(() => item.textContent()).toContain('X-Signature · ••••••••');
    expect(await item.textContent()).not.toContain(SECRET);
  });

  it('sends a test event that arrives at the real receiver, signed with the secret, and shows it delivered', async () => {
    await editor().getByRole('button', { name: 'Send test event' }).click();
    const [arrived] = await receiver.waitFor(1);
    expect(arrived!.path).toBe('/hook');
    expect(arrived!.headers['x-signature']).toBe(signBody(arrived!.body, SECRET));
    expect(arrived!.headers['x-env']).toBe('e2e');
    expect(arrived!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(arrived!.body)).toMatchObject({ version: 1, type: 'track', event: 'Sluice Test Event' });
    await expect.poll(() => outcome().textContent(), { timeout: 10_000 }).toMatch(/^✓ Delivered — a webhook answered 2xx on the first attempt \(test delivery #\d+\)\.$/);
    await editor().getByText('Body sent').click();
    expect(await editor().locator('.dst-test-body pre').textContent()).toBe(arrived!.body);
    // The list keeps its own column (300 px): the editor gets the rest of the window.
    const list = await session.page.getByRole('complementary', { name: 'Destinations' }).boundingBox();
    expect(list!.width).toBeGreaterThan(200);
    expect(list!.width).toBeLessThanOrEqual(320);
    await session.shot('destinations');
  });

  it('keeps the stored secret masked until revealed, and masks it again', async () => {
    expect(await secretInput().inputValue()).toBe('');
    expect(await secretInput().getAttribute('type')).toBe('password');
    expect(await secretInput().getAttribute('placeholder')).toBe('•••••••• (stored)'); // no character of the secret (it showed 'e2e' before)
    await editor().getByRole('button', { name: 'Reveal shared secret' }).click();
    await expect.poll(() => secretInput().inputValue()).toBe(SECRET);
    expect(await secretInput().getAttribute('type')).toBe('text');
    // Revealing is not an edit.
    expect(await editor().getByRole('button', { name: 'Discard changes' }).isDisabled()).toBe(true);
    await editor().getByRole('button', { name: 'Hide shared secret' }).click();
    expect(await secretInput().getAttribute('type')).toBe('password');
    expect(await secretInput().inputValue()).toBe(SECRET);
  });

  it('applies an edit (header, new secret, full body) to the next deliveries, test and real', async () => {
    await webhook(1).getByLabel('Webhook 1 header 1 value').fill('staging');
    await editor().getByRole('button', { name: 'Generate a new shared secret' }).click();
    const secret = await secretInput().inputValue();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(await secretInput().getAttribute('type')).toBe('text'); // shown, so it can be copied to the receiver
    await editor().getByRole('radio', { name: /^Full message/ }).check();
    // The test uses saved settings: it waits for the save.
    expect(await editor().getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    expect(await editor().getByText('Save your changes first: the test uses the saved settings.').isVisible()).toBe(true);
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at/);

    await editor().getByRole('button', { name: 'Send test event' }).click();
    const [, second] = await receiver.waitFor(2);
    expect(second!.headers['x-env']).toBe('staging');
    expect(second!.headers['x-signature']).toBe(signBody(second!.body, secret));
    expect(JSON.parse(second!.body)).toMatchObject({ version: 1, type: 'track', messageId: expect.stringMatching(/^sluice-test-/) });
    await expect.poll(() => outcome().textContent(), { timeout: 10_000 }).toMatch(/^✓ Delivered/);

    // A message from the connected source follows the new settings too.
    const res = await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_1', anonymousId: 'a_1', event: 'Real' });
    expect(res.status).toBe(200);
    const [, , third] = await receiver.waitFor(3);
    expect(third!.headers['x-signature']).toBe(signBody(third!.body, secret));
    expect(JSON.parse(third!.body)).toMatchObject({ event: 'Real', anonymousId: 'a_1' }); // full body: anonymousId is kept
  });

  it('tells a failed test event with the fix', async () => {
    receiver.script({ status: 404, body: 'no such hook' });
    await editor().getByRole('button', { name: 'Send test event' }).click();
    await expect.poll(() => outcome().textContent(), { timeout: 10_000 }).toMatch(
      /^✗ Failed: the receiver answered 404; a 4xx is final, the request will not be retried\. Check the URL’s path/,
    );
  });

  it('follows settings saved elsewhere (settings.changed) in the list', async () => {
    session.core.saveDestination({ name: 'from-config', enabled: false, sources: ['ios'], webhooks: [{ url: 'http://127.0.0.1:9/none' }] });
    const list = page().getByRole('complementary', { name: 'Destinations' });
    const item = list.getByRole('button', { name: /from-config/ });
    await expect.poll(() => item.textContent(), { timeout: 10_000 }).toContain('disabled');
    await item.click();
    await expect.poll(() => editor().getByRole('heading', { name: 'from-config' }).isVisible()).toBe(true);
    expect(await editor().getByRole('switch', { name: 'Enabled' }).isChecked()).toBe(false);
    expect(await editor().getByRole('checkbox', { name: 'ios · mobile' }).isChecked()).toBe(true);
    expect(await editor().getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    // The dark theme, for the screenshot.
    await page().emulateMedia({ colorScheme: 'dark' });
    await list.getByRole('button', { name: /my-hooks/ }).click();
    await session.shot('destinations-dark');
    await page().emulateMedia({ colorScheme: 'light' });
  });

  it('shows each source with its write key, the endpoint and snippets ready to paste', async () => {
    await session.open('sources');
    const p = page();
    const web = p.getByRole('region', { name: 'web' });
    await expect.poll(() => web.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await web.getByText('wk_web', { exact: true }).isVisible()).toBe(true);
    expect(await web.getByText('my-hooks', { exact: true }).isVisible()).toBe(true);
    expect(await p.getByLabel('Ingestion endpoint', { exact: true }).textContent()).toBe(session.core.ingestUrl);

    const url = session.core.ingestUrl;
    const snippets: [string, string[]][] = [
      ['@segment/analytics-node', [`writeKey: "wk_web"`, `host: "${url}"`]],
      ['analytics.js (@segment/analytics-next)', [`writeKey: "wk_web"`, `cdnURL: "${url}"`]],
      ['Sluice client', [`import { Client } from 'sluice/client'`, `new Client("wk_web", { endpoint: "${url}" })`]],
      ['curl', [`-u wk_web:`, `${url}/v1/track`]],
    ];
    for (const [title, parts] of snippets) {
      await web.getByRole('button', { name: title, exact: true }).click();
      const code = await web.getByLabel(`${title} snippet for web`, { exact: true }).textContent();
      for (const part of parts) expect(code).toContain(part);
    }
    // The ios source has its own key in its own snippets.
    const ios = p.getByRole('region', { name: 'ios' });
    expect(await ios.getByLabel('@segment/analytics-node snippet for ios', { exact: true }).textContent()).toContain('writeKey: "wk_ios"');

    await web.getByRole('button', { name: 'Copy write key of web' }).click();
    expect(await p.evaluate(() => navigator.clipboard.readText())).toBe('wk_web');
    await p.getByRole('button', { name: 'Copy ingestion endpoint URL' }).click();
    expect(await p.evaluate(() => navigator.clipboard.readText())).toBe(url);
    await web.getByRole('button', { name: 'Copy curl snippet for web' }).click();
    expect(await p.evaluate(() => navigator.clipboard.readText())).toContain(`${url}/v1/track`);
    await session.shot('sources');

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
