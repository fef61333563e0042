// A tracking-api destination's test event and replay, and the editor keeping secrets across a switch
// of scheme or kind, end to end in Chromium over a real core (headless host) and real receivers (one
// plays the Tracking API: it takes POST /v1/batch). The test panel says its event is forwarded upstream;
// the Replay tab edits the message as forwarded (not a webhook body) and sends it there as it is; a
// webhooks destination keeps its shared secret when it signs with Standard Webhooks alone; a switch to
// Tracking API says what saving removes; a problem in a hidden field is said beside Save.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';
import { webhookBody } from '../../shared/webhook-body.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[forward-replay e2e] skipped: ${skipReason}`);

const SHARED = 'forward-replay-secret';

describe.skipIf(skipReason !== null)('A forward’s test event and replay; secrets kept by the editor', () => {
  let session: InspectorSession;
  let api: Receiver;
  let hooks: Receiver;

  beforeAll(async () => {
    api = await startReceiver();
    hooks = await startReceiver();
    session = await openInspector({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [
          { name: 'upstream', enabled: true, sources: ['web'], kind: 'tracking-api', webhooks: [], trackingApi: { url: api.url, writeKey: 'wk_up', batchSize: 10, flushMs: 0, gzip: false }, options: { bodyShape: 'seed', concurrency: 32 } },
          { name: 'hooks', enabled: true, sources: [], webhooks: [{ url: `${hooks.url}/hook`, headers: {} }], sharedSecret: SHARED, options: { bodyShape: 'seed', concurrency: 32 } },
        ],
      },
    });
    await session.open('destinations');
  });

  afterAll(async () => {
    await session?.close();
    await api?.close();
    await hooks?.close();
  });

  const page = () => session.page;
  const editor = () => page().getByRole('form');
  const saveStatus = () => editor().locator('.dst-save-status');
  const open = async (name: string) => {
    await page().getByRole('complementary', { name: 'Destinations' }).getByRole('button', { name: new RegExp(`^${name}`) }).click();
    await expect.poll(() => editor().getByRole('heading', { name, exact: true }).isVisible(), { timeout: 10_000 }).toBe(true);
  };
  const batchOf = (i: number) => JSON.parse(api.received[i]!.body).batch as Record<string, unknown>[];

  it('the test panel of a tracking-api destination says it forwards a real track call upstream, and that the API answered', async () => {
    await open('upstream');
    const test = editor().getByRole('region', { name: 'Test' });
    const hint = test.locator('.dst-test-hint');
    expect(await hint.textContent()).toMatch(/^Forwards one real track call \(“Sluice Test Event”\) to this destination’s Tracking API with its write key: it lands in that source .*production/);
    expect(await hint.textContent()).not.toContain('webhook');
    await test.getByRole('button', { name: 'Send test event' }).click();
    await api.waitFor(1);
    expect(api.received[0]!.path).toBe('/v1/batch');
    expect(batchOf(0)[0]).toMatchObject({ type: 'track', event: 'Sluice Test Event' });
    await expect.poll(() => test.getByRole('status', { name: 'Test event outcome' }).textContent(), { timeout: 10_000 }).toMatch(
      /^✓ Delivered — the Tracking API answered 2xx on the first attempt/,
    );
  });

  it('the Replay tab edits the message as forwarded and sends it to the Tracking API as it is; the card names the batch URL', async () => {
    const { core } = session;
    await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_1', event: 'Forward Me', properties: { total: 7 } });
    await api.waitFor(2);
    const stored = await until(() => core.messages.list().find((m) => m.event === 'Forward Me'));
    const p = page();
    await p.getByRole('button', { name: 'Stream', exact: true }).click();
    const row = p.getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'Forward Me' });
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await row.click();
    const detail = p.getByRole('region', { name: 'Message detail' });
    await detail.getByRole('tab', { name: /^Replay/ }).click();

    const forwarded = webhookBody(core.messages.get(stored.id)!.message!, 'forward');
    const body = detail.getByRole('textbox', { name: 'Replay body (JSON)' });
    expect(JSON.parse(await body.inputValue())).toEqual(forwarded); // not the (unused) seed shape
    expect(await body.inputValue()).not.toContain('"version"');
    const batchUrl = `${api.url}/v1/batch`;
    expect(await detail.getByRole('radio', { name: `upstream’s Tracking API ${batchUrl}` }).isChecked()).toBe(true);
    const hint = detail.locator('.hint').filter({ hasText: 'sent compact' });
    expect(await hint.textContent()).toContain('Forwarded as it is to upstream’s Tracking API with its write key (Basic auth); a forward is not signed.');
    expect(await hint.textContent()).not.toContain('X-Signature');

    const edited = { ...forwarded, properties: { total: 8, note: 'corrected' } };
    await body.fill(JSON.stringify(edited, null, 2));
    await detail.getByRole('button', { name: 'Send replay' }).click();
    await api.waitFor(3);
    expect(api.received[2]!.path).toBe('/v1/batch');
    expect(batchOf(2)).toEqual([edited]); // a whole message, as edited: what the upstream API takes
    expect(api.received[2]!.headers['x-signature']).toBeUndefined();

    const card = detail.getByRole('region', { name: /^Replay #\d+$/ });
    await expect.poll(() => card.textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    expect(await card.textContent()).toContain(batchUrl);
    expect(await detail.getByRole('region', { name: /^Original #\d+$/ }).textContent()).toContain(batchUrl);
    await session.shot('replay-forward');
  });

  it('keeps the stored shared secret when the destination signs with Standard Webhooks alone', async () => {
    await page().getByRole('button', { name: 'Destinations', exact: true }).click();
    await open('hooks');
    await editor().getByRole('radio', { name: /^Standard Webhooks/ }).check();
    await editor().getByRole('button', { name: 'Generate a new Standard Webhooks secret' }).click();
    const whsec = await editor().getByLabel('Standard Webhooks secret', { exact: true }).inputValue();
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
    expect(session.core.destinations.byName('hooks')).toMatchObject({ signing: 'standard', sharedSecret: SHARED, signingSecrets: [whsec] });
  });

  it('a problem in a field the signing hides is said beside Save, not counted as one “marked above”', async () => {
    await editor().getByLabel('Standard Webhooks secret', { exact: true }).fill('whsec_short');
    await editor().getByRole('radio', { name: /^X-Signature/ }).check();
    expect(await editor().getByLabel('Standard Webhooks secret', { exact: true }).count()).toBe(0);
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toBe(
      'Standard Webhooks secret (kept, shown when Signing uses Standard Webhooks): The secret must be "whsec_" followed by a 24- to 64-byte key in base64 (the Standard Webhooks form).',
    );
    expect(session.core.destinations.byName('hooks')!.signing).toBe('standard'); // not saved
    await editor().getByRole('button', { name: 'Discard changes' }).click();
  });

  it('switching the kind to Tracking API says that saving removes the webhooks and secrets; switching back, nothing', async () => {
    const note = editor().locator('#dst-kind-note');
    expect(await note.count()).toBe(0);
    await editor().getByRole('radio', { name: /^Tracking API \(forward\)/ }).check();
    await expect.poll(() => note.textContent()).toBe(
      '⚠ Saving as a Tracking API forward removes its webhook and its signing secrets: a tracking-api destination has none. Choose Webhooks again before saving to keep them.',
    );
    expect(await note.isVisible()).toBe(true);
    expect(await editor().getByRole('group', { name: 'Kind' }).getAttribute('aria-describedby')).toBe('dst-kind-note');
    await session.shot('destinations-kind-switch');
    await editor().getByRole('radio', { name: /^Webhooks/ }).check();
    expect(await note.count()).toBe(0);

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
