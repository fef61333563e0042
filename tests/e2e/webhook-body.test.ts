// The Webhook tab's body, end to end in Chromium over a real core (headless host) and a real receiver
// on loopback: pretty-printed by default (a tree whose keys are indented by depth, big nodes folded
// with what they hold), Raw showing exactly the bytes the receiver got, folding by mouse and keyboard;
// a 200 KB body (an edited replay) shows its start, indented, without the page receiving the rest,
// and all of it after "Show all" — its signature checked over the whole body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[webhook-body e2e] skipped: ${skipReason}`);

const SECRET = 'body-e2e-secret';

describe.skipIf(skipReason !== null)('the webhook request body in the inspector', () => {
  let session: InspectorSession;
  let receiver: Receiver;
  /** The sizes of the WebSocket frames the page received, in order. */
  const frames: number[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    session = await openInspector({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [
          {
            name: 'hooks',
            enabled: true,
            sources: ['web'],
            webhooks: [{ url: `${receiver.url}/hook`, headers: {} }],
            sharedSecret: SECRET,
            options: { bodyShape: 'seed', concurrency: 4 },
          },
        ],
      },
    });
    session.page.on('websocket', (ws) => ws.on('framereceived', (frame) => frames.push(typeof frame.payload === 'string' ? Buffer.byteLength(frame.payload) : frame.payload.length)));
    await session.open('stream');
  });

  afterAll(async () => {
    await session?.close();
    await receiver?.close();
  });

  const page = () => session.page;
  const detail = () => page().getByRole('region', { name: 'Message detail' });
  const row = (event: string) => page().getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: event });
  const tree = () => detail().getByRole('tree', { name: 'Request body, pretty-printed' });
  const toggle = (name: string) => tree().getByRole('button', { name, exact: true });
  /** The line a node's toggle is on (the inner locator is matched within each line). */
  const lineOf = (name: string) => tree().locator('.j-line').filter({ has: page().getByRole('button', { name, exact: true }) });
  const send = (body: Record<string, unknown>) => post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', body);
  const open = async (event: string) => {
    await expect.poll(() => row(event).textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await row(event).click();
    await expect.poll(() => detail().getByRole('heading', { level: 2 }).textContent()).toBe(event);
    await detail().getByRole('tab', { name: 'Webhook request' }).click();
  };

  it('pretty-prints the body: keys indented by depth, a 40-item array folded with its count', async () => {
    const products = Array.from({ length: 40 }, (_, i) => ({ sku: `sku_${i}`, price: i + 0.5 }));
    expect((await send({ userId: 'u_1', event: 'Order Completed', properties: { total: 42, currency: 'EUR', note: 'café 😀', products, shipping: { city: 'Lyon', zip: '69001' } } })).status).toBe(200);
    const [arrived] = await receiver.waitFor(1);
    await open('Order Completed');

    expect(await detail().getByRole('group', { name: 'Body view' }).getByRole('button', { name: 'Pretty' }).getAttribute('aria-pressed')).toBe('true');
    const indent = async (key: string) =>
      tree().locator('.j-line').filter({ has: page().locator('.j-key', { hasText: new RegExp(`^"${key}"$`) }) }).first().evaluate((el) => getComputedStyle(el).paddingLeft);
    expect(await indent('event')).toBe('14px');
    expect(await indent('total')).toBe('28px');
    expect(await indent('city')).toBe('42px');
    const text = (await tree().textContent())!;
    expect(text).toContain('"event": "Order Completed"');
    expect(text).toContain('"note": "café 😀"');
    // 40 items start folded, saying what they hold; small objects start open.
    expect(await toggle('products').getAttribute('aria-expanded')).toBe('false');
    expect(await lineOf('products').textContent()).toMatch(/"products": \[…\] 40 items,?$/);
    expect(await toggle('shipping').getAttribute('aria-expanded')).toBe('true');
    expect(text).not.toContain('sku_0');
    await session.shot('webhook-body-pretty');

    // Raw: every byte the receiver got, as text.
    await detail().getByRole('group', { name: 'Body view' }).getByRole('button', { name: 'Raw' }).click();
    const raw = (await detail().getByLabel('Request body', { exact: true }).textContent())!;
    expect(Buffer.from(raw, 'utf8').equals(arrived!.bytes)).toBe(true);
    await session.shot('webhook-body-raw');
    await detail().getByRole('group', { name: 'Body view' }).getByRole('button', { name: 'Pretty' }).click();
  });

  it('folds and unfolds by mouse and by keyboard, the toggle saying its state', async () => {
    // Mouse: the toggle, and the folded summary itself.
    await toggle('products').click();
    expect(await toggle('products').getAttribute('aria-expanded')).toBe('true');
    // Its 40 items show, each folded in turn (too deep to start open): open the last one.
    expect(await lineOf('item 39').textContent()).toBe('▸{…} 2 keys');
    await toggle('item 39').click();
    expect(await tree().textContent()).toContain('"sku": "sku_39"');
    await toggle('products').click();
    expect(await toggle('products').getAttribute('aria-expanded')).toBe('false');
    expect(await tree().textContent()).not.toContain('sku_39');
    await lineOf('products').getByText('40 items').click();
    expect(await toggle('products').getAttribute('aria-expanded')).toBe('true');
    await toggle('products').click();

    // Keyboard: Tab reaches the toggles; Enter and Space switch, → opens, ← folds.
    await toggle('shipping').focus();
    await page().keyboard.press('Enter');
    expect(await toggle('shipping').getAttribute('aria-expanded')).toBe('false');
    expect(await tree().textContent()).not.toContain('Lyon');
    await page().keyboard.press('ArrowRight');
    expect(await toggle('shipping').getAttribute('aria-expanded')).toBe('true');
    expect(await tree().textContent()).toContain('"city": "Lyon"');
    await page().keyboard.press('ArrowLeft');
    expect(await toggle('shipping').getAttribute('aria-expanded')).toBe('false');
    await page().keyboard.press('Space');
    expect(await toggle('shipping').getAttribute('aria-expanded')).toBe('true');
    await page().keyboard.press('Shift+Tab');
    expect(await page().evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('products');
    await page().keyboard.press('Enter');
    expect(await toggle('products').getAttribute('aria-expanded')).toBe('true');
    await session.shot('webhook-body-folding');
  });

  it('shows the start of a 200 KB body without loading the rest, then all of it on request', async () => {
    const { core } = session;
    expect((await send({ userId: 'u_big', event: 'Big Order' })).status).toBe(200);
    await receiver.waitFor(2);
    const message = await until(() => core.messages.list().find((m) => m.event === 'Big Order'));
    const items = Array.from({ length: 3600 }, (_, i) => ({ sku: `sku_${i}`, name: `Produit é ${i}`, price: i / 100 }));
    const big = { type: 'track', event: 'Big Order', userId: 'u_big', properties: { items }, tail: 'END-OF-BODY' };
    const replay = await core.operations['deliveries.replay']({ messageIds: [message.id], body: big });
    const [, , arrived] = await receiver.waitFor(3);
    expect(arrived!.bytes.length).toBeGreaterThan(200_000);
    await until(() => core.deliveries.get(replay.deliveryIds[0]!)?.status === 'delivered');

    const before = frames.length;
    await open('Big Order');
    await expect.poll(() => detail().getByRole('note').filter({ hasText: 'Showing the first' }).count(), { timeout: 10_000 }).toBe(1);
    const kb = Math.round(arrived!.bytes.length / 1024);
    expect(await detail().getByRole('note').filter({ hasText: 'Showing the first' }).locator('span').first().textContent()).toBe(`Showing the first 64 KB of ${kb} KB.`);
    const start = (await detail().getByLabel('Start of the request body, indented', { exact: true }).textContent())!;
    expect(start.startsWith('{\n  "type": "track",\n  "event": "Big Order",\n  "userId": "u_big",\n  "properties": {\n    "items": [\n      {\n        "sku": "sku_0",')).toBe(true);
    expect(start).not.toContain('END-OF-BODY');
    // The page was sent the start only: no frame since it opened carried the whole body.
    expect(frames.length).toBeGreaterThan(before); // the detail did arrive over the socket
    expect(Math.max(...frames.slice(before))).toBeLessThan(100 * 1024);

    // The signature is checked over the whole body, read for the check.
    const check = detail().getByRole('region', { name: 'Signature check' });
    await check.getByRole('button', { name: 'Use “hooks” shared secret' }).click();
    await expect.poll(() => check.getByRole('status').textContent(), { timeout: 10_000 }).toContain('✓ Signature matches');
    await session.shot('webhook-body-big-start');

    await detail().getByRole('button', { name: `Show all ${kb} KB` }).click();
    await expect.poll(() => tree().count(), { timeout: 10_000 }).toBe(1);
    expect(await detail().getByRole('note').filter({ hasText: 'Showing the first' }).count()).toBe(0);
    expect(await tree().textContent()).toContain('"tail": "END-OF-BODY"');
    expect(await toggle('items').getAttribute('aria-expanded')).toBe('false');
    expect(await lineOf('items').textContent()).toContain('[…] 3,600 items');
    await detail().getByRole('group', { name: 'Body view' }).getByRole('button', { name: 'Raw' }).click();
    const raw = (await detail().getByLabel('Request body', { exact: true }).textContent())!;
    expect(Buffer.from(raw, 'utf8').equals(arrived!.bytes)).toBe(true);
    await session.shot('webhook-body-big-all');

    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
