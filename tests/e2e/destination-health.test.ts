// A receiver's health and the loop guard in the inspector, end to end in Chromium over a real core
// (headless host) and real receivers: a webhook answering 503 to five messages opens its circuit
// breaker, and the list and the editor say "receiver down" with the countdown to the probe; a webhook
// answering 410 Gone is disabled with its reason until Re-enable, after which it is sent to again; a
// webhook made in the editor that posts back to this Sluice's own /v1/track is refused by the loop guard,
// and the stream's row and the attempts timeline say so, with the fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { basicAuth, post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[destination-health e2e] skipped: ${skipReason}`);

const webhooks = (name: string, source: string, url: string) => ({
  name,
  enabled: true,
  sources: [source],
  webhooks: [{ url, headers: {} }],
  options: { bodyShape: 'seed' as const, concurrency: 32 },
});

describe.skipIf(skipReason !== null)('Receiver health and the loop guard in the inspector', () => {
  let session: InspectorSession;
  let down: Receiver;
  let gone: Receiver;

  beforeAll(async () => {
    down = await startReceiver();
    down.fallback = { status: 503, body: 'busy' };
    gone = await startReceiver();
    gone.fallback = { status: 410, body: 'this endpoint was removed' };
    session = await openInspector({
      config: {
        sources: [
          { name: 'a', writeKey: 'wk_a', kind: 'server' },
          { name: 'b', writeKey: 'wk_b', kind: 'server' },
          { name: 'c', writeKey: 'wk_c', kind: 'server' },
        ],
        destinations: [webhooks('down-hooks', 'a', `${down.url}/hook`), webhooks('gone-hooks', 'b', `${gone.url}/hook`)],
      },
    });
    await session.open('destinations');
  });

  afterAll(async () => {
    await session?.close();
    await down?.close();
    await gone?.close();
  });

  const page = () => session.page;
  const editor = () => page().getByRole('form');
  const list = () => page().getByRole('complementary', { name: 'Destinations' });
  const item = (name: string) => list().getByRole('listitem').filter({ has: page().getByRole('button', { name: new RegExp(`^${name}`) }) });
  const send = (writeKey: string, event: string) => post({ ingestUrl: session.core.ingestUrl, writeKey }, '/v1/track', { userId: 'u_1', event });

  it('a receiver answering 503 to five messages: the list shows its breaker open, counting down to the next probe', async () => {
    for (let i = 0; i < 5; i++) expect((await send('wk_a', `Down ${i}`)).status).toBe(200);
    await down.waitFor(5);
    const badge = item('down-hooks').locator('.dst-health-line');
    await expect.poll(() => badge.textContent(), { timeout: 10_000 }).toMatch(/^receiver down — next probe in \d+ s$/);
    const seconds = () => badge.textContent().then((t) => Number(/in (\d+) s/.exec(t ?? '')?.[1]));
    const first = await seconds();
    expect(first).toBeGreaterThan(20);
    expect(first).toBeLessThanOrEqual(30);
    await expect.poll(seconds, { timeout: 5_000 }).toBeLessThan(first); // it counts down
    expect(await badge.getAttribute('title')).toBe('5 failures in a row; the last: the receiver answered 503; will retry');
    expect(down.received).toHaveLength(5); // nothing more while it is open
    // The other destination's receiver is fine: nothing to say.
    expect(await item('gone-hooks').locator('.dst-health-line').count()).toBe(0);

    // The editor says the same beside the webhook's URL, with the failures written out.
    await list().getByRole('button', { name: /^down-hooks/ }).click();
    const line = editor().locator('.dst-webhook .dst-health-line');
    await expect.poll(() => line.textContent(), { timeout: 10_000 }).toMatch(/^receiver down — next probe in \d+ s5 failures in a row; the last: the receiver answered 503; will retry$/);
  });

  it('a receiver answering 410 Gone: disabled with its reason; Re-enable sends there again', async () => {
    expect((await send('wk_b', 'Gone 1')).status).toBe(200);
    await gone.waitFor(1);
    const health = item('gone-hooks').locator('.dst-health');
    await expect.poll(() => health.locator('.dst-health-line').textContent(), { timeout: 10_000 }).toBe('disabled: answered 410 Gone');
    expect(await health.locator('.dst-health-line').getAttribute('title')).toMatch(/^the receiver answered 410 Gone: Sluice stops sending to this URL .*\(since .+\)$/);
    expect(session.core.destinations.byName('gone-hooks')!.gone?.[`${gone.url}/hook`]).toBeDefined();
    await session.shot('destinations-health');

    // While disabled, nothing goes there.
    expect((await send('wk_b', 'Gone 2')).status).toBe(200);
    await until(() => session.core.messages.list().some((m) => m.event === 'Gone 2'));
    await new Promise((r) => setTimeout(r, 300));
    expect(gone.received).toHaveLength(1);

    gone.fallback = { status: 200, body: 'ok' };
    await health.getByRole('button', { name: `Re-enable ${gone.url}/hook` }).click();
    await expect.poll(() => health.getByRole('status').textContent()).toBe('Re-enabled: deliveries to this URL go again.');
    expect(session.core.destinations.byName('gone-hooks')!.gone).toBeUndefined();
    await expect.poll(() => health.locator('.dst-health-line').count()).toBe(0); // the refreshed list has nothing to say
    // The message that waited goes now, and the next ones too.
    expect((await send('wk_b', 'Gone 3')).status).toBe(200);
    const after = await gone.waitFor(3);
    expect(after.slice(1).map((r) => JSON.parse(r.body).event).sort()).toEqual(['Gone 2', 'Gone 3']);
  });

  it('a webhook made in the editor that posts back to this Sluice: warned as typed, refused by the loop guard, and said so', async () => {
    const { core } = session;
    await list().getByRole('button', { name: '+ New destination' }).click();
    await editor().getByLabel('Name', { exact: true }).fill('loop-hooks');
    await editor().getByRole('checkbox', { name: /^c/ }).check();
    await editor().getByLabel('Webhook 1 URL').fill(`${core.ingestUrl}/v1/track`);
    expect(await editor().getByText(/This URL posts to this Sluice's own ingestion endpoint/).isVisible()).toBe(true);
    await editor().getByRole('button', { name: 'Add header to webhook 1' }).click();
    await editor().getByLabel('Webhook 1 header 1 name').fill('Authorization');
    await editor().getByLabel('Webhook 1 header 1 value').fill(basicAuth('wk_c'));
    await editor().getByRole('button', { name: 'Create destination' }).click();
    await expect.poll(() => editor().locator('.dst-save-status').textContent()).toMatch(/^Saved at /);

    expect((await send('wk_c', 'Loop Me')).status).toBe(200);
    const message = await until(() => core.messages.list().find((m) => m.event === 'Loop Me'));
    await until(() => core.deliveries.forMessage(message.id)[0]?.status === 'failed');
    expect(core.messages.list().filter((m) => m.event === 'Loop Me')).toHaveLength(1); // stored once: no loop

    const p = page();
    await p.getByRole('button', { name: 'Stream', exact: true }).click();
    const row = p.getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'Loop Me' });
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('✗ failed: loop guard (HTTP 409)');
    await row.click();
    const detail = p.getByRole('region', { name: 'Message detail' });
    await detail.getByRole('tab', { name: /^Attempts/ }).click();
    const attempt = detail.getByRole('listitem', { name: /^Attempt 1: HTTP 409/ });
    const why = attempt.locator('.attempt-error');
    await expect.poll(() => why.textContent(), { timeout: 10_000 }).toMatch(
      /^loop guard \(loop_detected\): Refused by the loop guard: the receiver is a Sluice this request had already passed through .* It is not retried\. Point the destination elsewhere/,
    );
    expect(await why.count()).toBe(1); // in place of the sender's own sentence, not beside it
    expect(await detail.getByText(/^failed: loop guard \(409\) — not retried/).isVisible()).toBe(true);
    await session.shot('attempts-loop-guard');

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
