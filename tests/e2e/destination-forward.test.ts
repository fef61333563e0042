// Forwarding to a Tracking API from the inspector, end to end in Chromium over a real core (headless
// host): a tracking-api destination made in the editor that points at a second real Sluice's ingestion
// endpoint, its write key masked and kept across a reload and a save; a message sent to the first Sluice
// arrives unchanged at the second; the message's Forward tab previews it as it will be forwarded while
// deliveries are held, then shows POST …/v1/batch with the Authorization it carried masked, the message
// as forwarded, and no signature check.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { basicAuth, post, startCore, type TestCore } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { until } from '../helpers/wait.ts';
import { webhookBody } from '../../shared/webhook-body.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[destination-forward e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('Forwarding to a Tracking API in the inspector', () => {
  let session: InspectorSession;
  let upstream: TestCore;

  beforeAll(async () => {
    upstream = await startCore();
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    await session.open('destinations');
  });

  afterAll(async () => {
    await session?.close();
    await upstream?.dispose();
  });

  const page = () => session.page;
  const editor = () => page().getByRole('form');
  const saveStatus = () => editor().locator('.dst-save-status');
  const writeKey = () => editor().getByLabel('Write key', { exact: true });
  const listItem = () => page().getByRole('complementary', { name: 'Destinations' }).getByRole('button', { name: /upstream/ });
  const stored = () => session.core.destinations.byName('upstream')!;

  it('creates a tracking-api destination: webhooks and signing give way to the API’s fields, checked as typed', async () => {
    await expect.poll(() => editor().getByRole('heading', { name: 'New destination' }).isVisible(), { timeout: 10_000 }).toBe(true);
    await editor().getByLabel('Name', { exact: true }).fill('upstream');
    expect(await editor().getByLabel('Webhook 1 URL').count()).toBe(1);
    await editor().getByRole('radio', { name: /^Tracking API \(forward\)/ }).check();
    expect(await editor().getByLabel('Webhook 1 URL').count()).toBe(0);
    expect(await editor().getByRole('radio', { name: /^X-Signature/ }).count()).toBe(0);
    expect(await editor().getByLabel('Shared secret', { exact: true }).count()).toBe(0);
    expect(await editor().getByText('Body shape', { exact: true }).count()).toBe(0);
    expect(await editor().getByLabel('API URL').getAttribute('placeholder')).toBe('https://api.segment.io');

    await editor().getByLabel('API URL').fill(upstream.ingestUrl);
    await editor().getByLabel('Batch size').fill('0');
    const batchProblem = editor().getByText('Batch size must be a whole number from 1 to 500.');
    await expect.poll(() => batchProblem.isVisible()).toBe(true);
    expect(await editor().getByLabel('Batch size').getAttribute('aria-invalid')).toBe('true');
    await editor().getByLabel('Batch size').fill('10');
    await editor().getByLabel('Flush wait (ms)').fill('50');
    await editor().getByLabel('Gzip request bodies').check();

    // No write key yet: refused next to its field, nothing saved.
    await editor().getByRole('button', { name: 'Create destination' }).click();
    await expect.poll(() => saveStatus().textContent()).toBe('Fix the problem marked above, then save.');
    const keyProblem = editor().getByText('Enter the write key of the source the messages should arrive in (sent as Basic auth).');
    expect(await keyProblem.isVisible()).toBe(true);
    expect(await writeKey().getAttribute('aria-describedby')).toBe(await keyProblem.getAttribute('id'));
    expect(session.core.destinations.list()).toHaveLength(0);

    await writeKey().fill(upstream.writeKey);
    expect(await writeKey().getAttribute('type')).toBe('password'); // a credential
    await editor().getByRole('button', { name: 'Show write key' }).click();
    expect(await writeKey().getAttribute('type')).toBe('text');
    await editor().getByRole('button', { name: 'Hide write key' }).click();
    await session.shot('destinations-tracking-api');

    await editor().getByRole('button', { name: 'Create destination' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
    expect(stored()).toMatchObject({
      kind: 'tracking-api',
      webhooks: [],
      trackingApi: { url: upstream.ingestUrl, writeKey: upstream.writeKey, batchSize: 10, flushMs: 50, gzip: true },
    });
    expect(stored().sharedSecret).toBeUndefined();
    const host = new URL(upstream.ingestUrl).host;
    await expect.poll(() => listItem().textContent(), { timeout: 10_000 }).toContain(`forwards to ${host}`);
    expect(await listItem().textContent()).toContain('Tracking API · batches of ≤ 10 · gzip');
  });

  it('keeps the stored write key masked after a reload, and keeps it on a save', async () => {
    await page().reload();
    await page().waitForFunction(() => (window as any).__sluice?.store.getState().connection.kind === 'open', undefined, { timeout: 10_000 });
    await expect.poll(() => editor().getByRole('heading', { name: 'upstream', exact: true }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await editor().getByRole('radio', { name: /^Tracking API \(forward\)/ }).isChecked()).toBe(true);
    expect(await writeKey().inputValue()).toBe('');
    expect(await writeKey().getAttribute('type')).toBe('password');
    expect(await writeKey().getAttribute('placeholder')).toBe('•••••••• (stored)'); // no character of the key (it showed its first 3 before)
    expect(await page().content()).not.toContain(upstream.writeKey);

    await editor().getByLabel('Batch size').fill('20');
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
    expect(stored().trackingApi).toMatchObject({ writeKey: upstream.writeKey, batchSize: 20, gzip: true });

    await editor().getByRole('button', { name: 'Show write key' }).click();
    await expect.poll(() => writeKey().inputValue()).toBe(upstream.writeKey);
    expect(await editor().getByRole('button', { name: 'Discard changes' }).isDisabled()).toBe(true); // showing is no edit
  });

  it('before it is sent, the Forward tab previews the message as it will be forwarded (not in a webhook body shape)', async () => {
    const { core } = session;
    core.delivery.setHeld(true);
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_1', event: 'Held Order', properties: { total: 7 } });
    const held = await until(() => core.messages.list().find((m) => m.event === 'Held Order'));
    const p = page();
    await p.getByRole('button', { name: 'Stream', exact: true }).click();
    await p.getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'Held Order' }).click();
    const detail = p.getByRole('region', { name: 'Message detail' });
    await detail.getByRole('tab', { name: 'Forward request' }).click();
    await expect.poll(() => detail.getByText(/will be forwarded \(as it stands now: .* bytes\), in a \{"batch": \[…\]\} request/).count(), { timeout: 10_000 }).toBe(1);
    await detail.getByRole('group', { name: 'Body view' }).getByRole('button', { name: 'Raw' }).click(); // the exact text, not the tree
    const preview = await detail.getByLabel('Request body', { exact: true }).textContent();
    expect(preview).toBe(JSON.stringify(webhookBody(core.messages.get(held.id)!.message!, 'forward')));
    expect(JSON.parse(preview!)).not.toHaveProperty('version'); // not the destination's (unused) seed body shape
    expect(await detail.getByText('— will be sent (no attempt yet)').isVisible()).toBe(true);
    expect(await detail.getByRole('table', { name: 'Request headers' }).getByRole('row', { name: /Authorization/ }).textContent()).toContain('Basic ••••••••');
    core.delivery.setHeld(false);
    await until(() => upstream.messages.list().some((m) => m.event === 'Held Order'), 15_000, 'the held forward');
  });

  it('forwards a message to the second Sluice, and the Forward tab shows the request with its Authorization masked', async () => {
    const { core } = session;
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_1', event: 'Forwarded Order', properties: { total: 42 } });
    const arrived = await until(() => upstream.messages.list().find((m) => m.event === 'Forwarded Order'), 15_000, 'the forward');
    const sent = core.messages.list().find((m) => m.event === 'Forwarded Order')!;
    expect(arrived.messageId).toBe(sent.messageId);
    expect(upstream.messages.get(arrived.id)!.message).toMatchObject({ properties: { total: 42 }, userId: 'u_1' });

    const p = page();
    await p.getByRole('button', { name: 'Stream', exact: true }).click();
    await p.getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'Forwarded Order' }).click();
    const detail = p.getByRole('region', { name: 'Message detail' });
    await expect.poll(() => detail.textContent(), { timeout: 10_000 }).toContain('delivered');
    expect(await detail.getByRole('tab', { name: 'Webhook request' }).count()).toBe(0);
    await detail.getByRole('tab', { name: 'Forward request' }).click();
    expect(await detail.getByRole('heading', { name: /^Forward — / }).textContent()).toBe('Forward — to the Tracking API of “upstream”, in a batch');
    expect(await detail.getByLabel('Forward URL', { exact: true }).textContent()).toBe(`${upstream.ingestUrl}/v1/batch`);

    const headers = detail.getByRole('table', { name: 'Request headers' });
    const authorization = headers.getByRole('row', { name: /Authorization/ });
    expect(await authorization.textContent()).toContain('Basic ••••••••');
    expect(await authorization.textContent()).not.toContain(basicAuth(upstream.writeKey).slice(6));
    expect(await headers.getByRole('row', { name: /Content-Encoding/ }).textContent()).toContain('gzip');
    await authorization.getByRole('button', { name: 'Reveal Authorization' }).click();
    // Revealing asks the relay for the header (deliveries.revealHeader): the text changes when it answers.
    await expect.poll(() => authorization.textContent()).toContain(basicAuth(upstream.writeKey));

    await detail.getByRole('group', { name: 'Body view' }).getByRole('button', { name: 'Raw' }).click(); // the exact text, not the tree
    const body = JSON.parse((await detail.getByLabel('Request body', { exact: true }).textContent())!);
    expect(body).toMatchObject({ messageId: sent.messageId, event: 'Forwarded Order', type: 'track', properties: { total: 42 } });
    expect(body.receivedAt).toBeUndefined(); // this hop's, left out of a forward
    expect(await detail.getByText(/this message as forwarded, .* bytes, one of the request's \{"batch": \[…\]\}/).isVisible()).toBe(true);
    expect(await detail.getByRole('region', { name: /Signature check$/ }).count()).toBe(0);
    await session.shot('webhook-tab-forward');

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
