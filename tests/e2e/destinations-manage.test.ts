// Managing destinations end to end: rename (id and deliveries kept, a taken name refused inline),
// concurrency edited and obeyed by the engine, the test panel read again after a lost connection
// with its attempts timeline, and deletion confirmed with what happens to the pending deliveries.
// The built inspector in Chromium over a real core (headless host) and real receivers.
import type { WebSocketRoute } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startSlowReceiver, type SlowReceiver } from '../helpers/slow-receiver.ts';
import { until } from '../helpers/wait.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[destinations-manage e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('Managing destinations', () => {
  let session: InspectorSession;
  let receiver: Receiver;
  let slow: SlowReceiver;
  let hooksId: number;
  /** While set, the page's (re)connections are held open without reaching Sluice: "the network is down". */
  let offline = false;
  const held: WebSocketRoute[] = [];
  let live: WebSocketRoute | undefined;

  beforeAll(async () => {
    receiver = await startReceiver();
    slow = await startSlowReceiver({ minDelayMs: 300, maxDelayMs: 300 });
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    // Made as in the inspector: one the config file declares is not renamed there (its own test below).
    hooksId = session.core.saveDestination({ name: 'hooks', sources: ['web'], webhooks: [{ url: `${receiver.url}/hook` }], options: { bodyShape: 'seed', concurrency: 32 } }).id;
    // The page's WebSocket goes through this route, so a test can drop it and hold the reconnection.
    await session.page.routeWebSocket(/\/api\?token=/, (ws) => {
      if (offline) {
        ws.onMessage(() => {}); // calls made meanwhile get no answer; they fail when this is closed
        held.push(ws);
        return;
      }
      ws.connectToServer();
      live = ws;
    });
    await session.open('destinations');
  });

  afterAll(async () => {
    await session?.close();
    await receiver?.close();
    await slow?.close();
  });

  const page = () => session.page;
  const editor = () => page().getByRole('form');
  const list = () => page().getByRole('complementary', { name: 'Destinations' });
  const nameInput = () => editor().getByLabel('Name', { exact: true });
  const saveStatus = () => editor().locator('.dst-save-status');
  const outcome = () => page().getByRole('status', { name: 'Test event outcome' });

  it('renames a destination: same id, its deliveries stay its own, and the next ones follow it', async () => {
    await expect.poll(() => editor().getByRole('heading', { name: 'hooks', exact: true }).isVisible(), { timeout: 10_000 }).toBe(true);
    await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u', event: 'Before' });
    await receiver.waitFor(1);
    const before = session.core.messages.list()[0]!;

    await nameInput().fill('renamed-hooks');
    expect(await editor().getByText('Renaming keeps its deliveries and their history.').isVisible()).toBe(true);
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
    await expect.poll(() => editor().getByRole('heading', { name: 'renamed-hooks', exact: true }).isVisible()).toBe(true);
    await expect.poll(() => list().getByRole('button', { name: /renamed-hooks/ }).count()).toBe(1);
    expect(session.core.destinations.list().map((d) => [d.id, d.name])).toEqual([[hooksId, 'renamed-hooks']]);
    expect(session.core.deliveries.forMessage(before.id).map((d) => d.destinationId)).toEqual([hooksId]);

    await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u', event: 'After' });
    await receiver.waitFor(2);
    const after = session.core.messages.list()[0]!;
    await until(() => session.core.deliveries.forMessage(after.id).find((d) => d.destinationId === hooksId && d.status === 'delivered'));
  });

  it('refuses a name another destination has, next to the name, without saving', async () => {
    session.core.saveDestination({ name: 'other', webhooks: [{ url: 'http://127.0.0.1:9/other' }] });
    await expect.poll(() => list().getByRole('button', { name: /other/ }).count(), { timeout: 10_000 }).toBe(1);
    await nameInput().fill('other');
    const error = editor().getByText('Another destination is already called “other”; choose another name.', { exact: true });
    await expect.poll(() => error.isVisible()).toBe(true);
    expect(await nameInput().getAttribute('aria-invalid')).toBe('true');
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toBe('Fix the problem marked above, then save.');
    expect(session.core.destinations.list().find((d) => d.id === hooksId)!.name).toBe('renamed-hooks');
    await editor().getByRole('button', { name: 'Discard changes' }).click();
    expect(await nameInput().inputValue()).toBe('renamed-hooks');
  });

  it("warns, as you type, that a webhook URL is this Sluice's own ingestion endpoint", async () => {
    const url = editor().getByRole('textbox', { name: 'Webhook 1 URL' });
    const original = await url.inputValue();
    const ingest = new URL(session.core.ingestUrl);
    await url.fill(`http://localhost:${ingest.port}/v1/track`);
    const warning = editor().getByRole('status').filter({ hasText: "posts to this Sluice's own ingestion endpoint" });
    await expect.poll(() => warning.isVisible()).toBe(true);
    expect(await url.getAttribute('aria-describedby')).toBe(await warning.locator('..').getAttribute('id'));
    await url.fill(`http://localhost:${Number(ingest.port) + 1}/v1/track`);
    await expect.poll(() => warning.count()).toBe(0);
    await url.fill(original); // as it was: nothing to save or discard
  });

  it('edits concurrency within its bounds, and the engine keeps to it', async () => {
    const concurrency = editor().getByLabel('Concurrency', { exact: true });
    expect(await concurrency.inputValue()).toBe('32');
    await concurrency.fill('0');
    await expect.poll(() => editor().getByText('Concurrency must be a whole number from 1 to 256.', { exact: true }).isVisible()).toBe(true);
    expect(await concurrency.getAttribute('aria-invalid')).toBe('true');
    await concurrency.fill('2');
    expect(await editor().getByText('Concurrency must be a whole number', { exact: false }).count()).toBe(0);
    // Full bodies carry the messageId the slow receiver counts.
    await editor().getByRole('radio', { name: /^Full message/ }).check();
    await editor().getByLabel('Webhook 1 URL').fill(slow.url);
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
    expect(session.core.destinations.list().find((d) => d.id === hooksId)!.options).toEqual({ bodyShape: 'full', concurrency: 2 });

    const batch = Array.from({ length: 8 }, (_, i) => ({ type: 'track', userId: 'u', event: `C${i}`, messageId: `c-${i}` }));
    await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch });
    await slow.waitForAll(batch.map((m) => m.messageId), 20_000);
    // Eight deliveries answered after 300 ms each: with 32 they would all have been open at once.
    expect(slow.maxOpen.get(1)).toBe(2);

    await editor().getByLabel('Webhook 1 URL').fill(`${receiver.url}/hook`);
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => saveStatus().textContent()).toMatch(/^Saved at /);
  });

  it('reads the test delivery again after a lost connection, and shows its attempts', async () => {
    receiver.script({ status: 503 });
    await editor().getByRole('button', { name: 'Send test event' }).click();
    await expect.poll(() => outcome().textContent(), { timeout: 10_000 }).toMatch(/^⟳ Not delivered yet: the receiver answered 503/);
    await editor().getByRole('button', { name: 'Show attempts' }).click();
    const attempts = editor().getByRole('region', { name: /^Attempts of test delivery #\d+$/ });
    await expect.poll(() => attempts.getByRole('listitem', { name: /^Attempt 1: HTTP 503 in / }).count()).toBe(1);
    const deliveryId = Number(/#(\d+)/.exec((await outcome().textContent())!)![1]);

    // The connection drops; meanwhile the delivery is retried and delivered: its change is missed.
    offline = true;
    await live!.close();
    await expect.poll(() => page().evaluate(() => (window as any).__sluice.store.getState().connection.kind)).not.toBe('open');
    await session.core.operations['deliveries.retryNow']({ ids: [deliveryId] });
    await until(() => (session.core.deliveries.get(deliveryId)?.status === 'delivered' ? true : undefined));
    expect(await outcome().textContent()).toMatch(/^⟳ Not delivered yet/);

    // Back online: the panel reads the delivery again.
    await until(() => (held.length > 0 ? true : undefined));
    offline = false;
    for (const ws of held.splice(0)) await ws.close();
    await expect.poll(() => outcome().textContent(), { timeout: 15_000 }).toMatch(/^✓ Delivered — a webhook answered 2xx on attempt 2 \(test delivery #\d+\)\.$/);
    await expect.poll(() => attempts.getByRole('listitem', { name: /^Attempt \d: / }).count()).toBe(2);
    expect(await attempts.getByRole('listitem', { name: /^Attempt 2: HTTP 200 in / }).count()).toBe(1);
    await session.shot('destinations-test-attempts');
  });

  it('deletes after a confirmation that says what happens to its pending deliveries; history stays', async () => {
    const delivered = session.core.messages.list().find((m) => m.event === 'After')!;
    const history = session.core.deliveries.forMessage(delivered.id)[0]!;
    session.core.delivery.setHeld(true); // the next message's delivery stays pending
    await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u', event: 'Pending' });
    const pendingMessage = await until(() => session.core.messages.list().find((m) => m.event === 'Pending'));
    const pending = await until(() => session.core.deliveries.forMessage(pendingMessage.id)[0]);

    await editor().getByRole('button', { name: 'Delete destination…' }).click();
    const dialog = page().getByRole('dialog', { name: 'Delete destination' });
    await expect
      .poll(() => dialog.textContent(), { timeout: 10_000 })
      .toContain('Delete “renamed-hooks”? Its 1 pending or retrying delivery will be cancelled: nothing more is sent for it.');
    expect(await dialog.textContent()).toContain('Its delivered and failed deliveries and their attempts stay in the message history');
    await session.shot('destinations-delete');

    // Keeping it changes nothing.
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(session.core.destinations.list().some((d) => d.id === hooksId)).toBe(true);

    await editor().getByRole('button', { name: 'Delete destination…' }).click();
    await expect.poll(() => dialog.getByRole('button', { name: 'Delete destination' }).isEnabled(), { timeout: 10_000 }).toBe(true);
    await dialog.getByRole('button', { name: 'Delete destination' }).click();
    await expect
      .poll(() => list().getByRole('status').textContent(), { timeout: 10_000 })
      .toBe('Deleted “renamed-hooks”; 1 pending or retrying delivery was cancelled.');
    expect(await list().getByRole('button', { name: /renamed-hooks/ }).count()).toBe(0);
    // The editor moved on to the remaining destination.
    await expect.poll(() => editor().getByRole('heading', { name: 'other', exact: true }).isVisible()).toBe(true);

    expect(session.core.destinations.list().map((d) => d.name)).toEqual(['other']);
    expect(session.core.deliveries.get(pending.id)!.status).toBe('cancelled');
    expect(session.core.deliveries.get(history.id)).toMatchObject({ status: 'delivered', destinationId: hooksId });
    expect(session.core.deliveries.attempts(history.id)).toHaveLength(1);
    session.core.delivery.setHeld(false);
  });

  it('says so when the open destination is deleted elsewhere, and saves nothing to it', async () => {
    const other = session.core.destinations.byName('other')!;
    await session.core.operations['destinations.delete']({ id: other.id, dryRun: false });
    const alert = editor().getByRole('alert').filter({ hasText: 'This destination was deleted elsewhere' });
    await expect.poll(() => alert.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await editor().getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true);
    expect(await editor().getByRole('button', { name: 'Delete destination…' }).count()).toBe(0);
    expect(await editor().getByRole('button', { name: 'Send test event' }).count()).toBe(0);
    await list().getByRole('button', { name: '+ New destination' }).click();
    await expect.poll(() => editor().getByRole('heading', { name: 'New destination', exact: true }).isVisible()).toBe(true);

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
