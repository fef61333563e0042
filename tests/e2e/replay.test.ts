// Replay and the stream's time range, end to end: the built inspector in Chromium over a real core
// (headless host), real webhook receivers on 127.0.0.1, driven by role and label as a user would.
import { afterEach, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import fs from 'node:fs';
import path from 'node:path';
import { post, tempDir } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { receiversClosedAfterEach, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';
import { signBody } from '../../electron/core/signature/signature.ts';

const SECRET = 'replay-e2e-secret';
const HOUR = 3_600_000;
const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[replay e2e] skipped: ${skipReason}`);

const sign = (body: string) => signBody(body, SECRET);

describe.skipIf(skipReason !== null)('replay and the time range in the inspector', () => {
  const receiver = receiversClosedAfterEach();
  let session: InspectorSession | undefined;
  afterEach(async () => {
    await session?.close();
    session = undefined;
  });

  /** An inspector over a core with one source `web` whose destination `hooks` posts to `hooks`. */
  async function start(hooks: Receiver, clock?: { now(): number }) {
    session = await openInspector({
      config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] },
      ...(clock ? { clock } : {}),
    });
    session.core.saveDestination({ name: 'hooks', sources: ['web'], sharedSecret: SECRET, webhooks: [{ url: `${hooks.url}/hook`, headers: {} }] });
    await session.open('stream');
    const { page } = session;
    const list = page.getByRole('listbox', { name: 'Messages' });
    return {
      s: session,
      page,
      list,
      row: (text: string | RegExp) => list.getByRole('option').filter({ hasText: text }),
      detail: page.getByRole('region', { name: 'Message detail' }),
    };
  }

  function expectClean(s: InspectorSession) {
    expect(s.problems).toEqual([]);
    expect(s.offsite).toEqual([]);
  }

  it('replays one message with an edited body to a typed URL: it arrives re-signed and shows live beside the original', async () => {
    const hooks = await receiver();
    const local = await receiver();
    const { s, page, row, detail } = await start(hooks);
    await post(s.core, '/v1/track', { userId: 'u_ada', event: 'Order Completed', properties: { revenue: 42 } });
    const [sent] = await hooks.waitFor(1);
    await expect.poll(() => row('Order Completed').textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await row('Order Completed').click();
    await detail.getByRole('tab', { name: /^Replay/ }).click();

    // The editor opens with exactly the body that was sent (indented for editing).
    const editor = detail.getByRole('textbox', { name: 'Replay body (JSON)' });
    const shown = await editor.inputValue();
    expect(JSON.stringify(JSON.parse(shown))).toBe(sent!.body);
    expect(shown).toBe(JSON.stringify(JSON.parse(sent!.body), null, 2));

    const edited = { ...JSON.parse(sent!.body), event: 'Order Refunded', properties: { revenue: -42, reason: 'damaged ✂' } };
    await editor.fill(JSON.stringify(edited, null, 2));
    expect(await detail.getByText('edited', { exact: true }).isVisible()).toBe(true);

    // A typed URL, checked as typed: ftp is refused with the fix, and sending waits for a valid one.
    await detail.getByRole('radio', { name: 'Another URL' }).check();
    const url = detail.getByRole('textbox', { name: 'Replay URL' });
    await url.fill('ftp://127.0.0.1/hook');
    await expect.poll(() => detail.getByText('Only http and https URLs can receive webhooks, not ftp.').isVisible()).toBe(true);
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect(await detail.getByRole('button', { name: 'Send replay' }).isDisabled()).toBe(true);
    await url.fill(`${local.url}/hook`);
    await detail.getByRole('button', { name: 'Send replay' }).click();

    // At the receiver: the edited body, compact, signed with the destination's secret.
    const [arrived] = await local.waitFor(1);
    expect(arrived!.path).toBe('/hook');
    expect(arrived!.body).toBe(JSON.stringify(edited));
    expect(arrived!.headers['x-signature']).toBe(sign(arrived!.body));
    expect(arrived!.headers['x-signature']).not.toBe(sent!.headers['x-signature']);
    expect(hooks.received).toHaveLength(1); // the destination's own webhook got nothing more

    // In the UI: the replay, live, beside the delivery it repeats.
    const replayCard = detail.getByRole('region', { name: /^Replay #\d+$/ });
    await expect.poll(() => replayCard.textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    expect(await replayCard.textContent()).toContain(`${local.url}/hook`);
    const originalCard = detail.getByRole('region', { name: /^Original #\d+$/ });
    expect(await originalCard.textContent()).toContain('✓ delivered');
    expect(await originalCard.textContent()).toContain(`${hooks.url}/hook`);
    const stored = s.core.deliveries.forMessage(s.core.messages.list()[0]!.id);
    const replayed = stored.find((d) => d.trigger === 'replay')!;
    expect(await replayCard.getAttribute('aria-label')).toBe(`Replay #${replayed.id}`);
    expect(await originalCard.getAttribute('aria-label')).toBe(`Original #${replayed.replayOf}`);
    expect(await detail.getByRole('tab', { name: /^Replay/ }).textContent()).toBe('Replay1');
    // The detail follows too: the message's outcome, once the replay is delivered.
    await expect.poll(() => detail.locator('.detail-outcome').textContent(), { timeout: 10_000 }).toMatch(/^✓ delivered/);
    await replayCard.scrollIntoViewIfNeeded();
    await s.shot('replay-single');
    await page.emulateMedia({ colorScheme: 'dark' });
    await s.shot('replay-single-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // "Show attempts" on the replay opens its attempt, to the typed URL.
    await replayCard.getByRole('button', { name: 'Show attempts' }).click();
    // Polled: a list already on screen (another delivery's) would be read at once, before the click's.
    await expect.poll(() => detail.getByRole('list', { name: 'Attempts' }).textContent(), { timeout: 10_000 }).toContain(`${local.url}/hook`);
    expectClean(s);
  });

  it('a destination with a transform: the body is its own before the transform, and an edited one goes through it when asked', async () => {
    const hooks = await receiver();
    const folder = tempDir('sluice-replay-transform-');
    const file = path.join(folder, 'shout.js');
    fs.writeFileSync(file, 'async function onTrack(event) {\n  return { ...event, event: event.event.toUpperCase() };\n}\n');
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    const s = session;
    s.core.saveDestination({ name: 'shouting', sources: ['web'], webhooks: [{ url: `${hooks.url}/hook`, headers: {} }], options: { bodyShape: 'full' }, transform: { file, settings: {}, timeoutMs: 1000 } });
    await s.open('stream');
    const list = s.page.getByRole('listbox', { name: 'Messages' });
    const detail = s.page.getByRole('region', { name: 'Message detail' });
    await post(s.core, '/v1/track', { userId: 'u_ada', event: 'Order Completed' });
    const [sent] = await hooks.waitFor(1);
    expect(JSON.parse(sent!.body).event).toBe('ORDER COMPLETED');
    await list.getByRole('option').filter({ hasText: 'Order Completed' }).click();
    await detail.getByRole('tab', { name: /^Replay/ }).click();
    // Not "exactly what it sends": the transform changes it (until 2026-12-01 the caption said so anyway).
    expect(await detail.getByText('— shouting’s body for this message before its transform, which a replay of it as it is runs').isVisible()).toBe(true);
    const editor = detail.getByRole('textbox', { name: 'Replay body (JSON)' });
    const edited = { ...JSON.parse(await editor.inputValue()), event: 'Order Refunded' };
    await editor.fill(JSON.stringify(edited, null, 2));
    const through = detail.getByRole('checkbox', { name: 'Run shouting’s transform on the edited body' });
    expect(await detail.getByText('The edited body is sent as it is, past shouting’s transform.').isVisible()).toBe(true);
    await through.check();
    expect(await detail.getByText('The edited body goes through shouting’s transform, and what it returns is sent.').isVisible()).toBe(true);
    await detail.getByRole('button', { name: 'Send replay' }).click();
    const [, replayed] = await hooks.waitFor(2);
    expect(JSON.parse(replayed!.body).event).toBe('ORDER REFUNDED');
    expectClean(s);
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('shows where the JSON is wrong, as it is typed, and does not send it', async () => {
    const hooks = await receiver();
    const { s, row, detail } = await start(hooks);
    await post(s.core, '/v1/track', { userId: 'u_bob', event: 'Signed Up' });
    await hooks.waitFor(1);
    await expect.poll(() => row('Signed Up').textContent(), { timeout: 10_000 }).toContain('✓ delivered');
    await row('Signed Up').click();
    await detail.getByRole('tab', { name: /^Replay/ }).click();
    const editor = detail.getByRole('textbox', { name: 'Replay body (JSON)' });
    await editor.fill('{\n  "type": "track",\n  "event": "Signed Up"\n  "userId": "u_bob"\n}');
    const error = detail.getByText(/^Line 4, column 3: expected ',' or '}' after the property value/);
    await expect.poll(() => error.isVisible()).toBe(true);
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    const send = detail.getByRole('button', { name: 'Send replay' });
    expect(await send.isDisabled()).toBe(true);
    expect(await detail.getByText('Fix the JSON above to send it.').isVisible()).toBe(true);
    await s.shot('replay-invalid-json');

    // "Go to the error" puts the caret there.
    await detail.getByRole('button', { name: 'Go to the error' }).click();
    expect(await editor.evaluate((el: HTMLTextAreaElement) => el.selectionStart)).toBe('{\n  "type": "track",\n  "event": "Signed Up"\n  '.length);

    // Valid again (but not an object): still refused, with the reason.
    await editor.fill('[1, 2]');
    await expect.poll(() => detail.getByText(/a webhook body must be a JSON object/).isVisible()).toBe(true);
    expect(await send.isDisabled()).toBe(true);
    // Reset brings back the destination's body, and sending is possible again.
    await detail.getByRole('button', { name: 'Reset body' }).click();
    expect(await detail.getByText('Valid JSON.').isVisible()).toBe(true);
    expect(await send.isDisabled()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hooks.received).toHaveLength(1); // nothing was sent meanwhile
    expectClean(s);
  });

  it('bulk: replays the filtered set and all failed deliveries after a confirmation with the count, with progress to done', async () => {
    const hooks = await receiver();
    hooks.fallback = { status: 400 }; // final: each fails at once
    const { s, page, list } = await start(hooks);
    await post(s.core, '/v1/batch', {
      batch: ['alice', 'alice', 'bob', 'carol', 'dave'].map((userId, i) => ({ type: 'track', userId, event: `Step ${i}` })),
    });
    await until(() => (s.core.deliveries.countByStatus().failed === 5 ? true : undefined), 10_000, 'five failed deliveries');
    await expect.poll(() => list.getByRole('option').filter({ hasText: '✗ failed' }).count(), { timeout: 10_000 }).toBe(5);

    // The filtered set: search "alice".
    hooks.fallback = { status: 200 };
    await page.getByRole('combobox', { name: 'Search messages' }).fill('alice');
    await expect.poll(() => list.getByRole('option').count()).toBe(2);
    await page.getByRole('button', { name: /^Replay…/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Replay messages' });
    expect(await dialog.getByRole('radio', { name: /The messages matching the current filter/ }).isChecked()).toBe(true);
    expect(await dialog.textContent()).toContain('search “alice”');
    await expect.poll(() => dialog.getByText('This replays the 2 messages matching the current filter.').isVisible(), { timeout: 10_000 }).toBe(true);
    await dialog.getByRole('button', { name: 'Replay 2 messages' }).click();
    const status = dialog.getByRole('status');
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Done: 2 of 2 finished — 2 delivered · 0 failed · 0 pending.');
    expect(hooks.received.slice(5).map((r) => JSON.parse(r.body).userId)).toEqual(['alice', 'alice']);
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect(await dialog.isVisible()).toBe(false);
    // The replays supersede the failures: alice's rows now read delivered, by a replay.
    await expect.poll(() => list.getByRole('option').filter({ hasText: '✓ delivered (replayed)' }).count(), { timeout: 10_000 }).toBe(2);
    expect(await list.getByRole('option').filter({ hasText: '✗ failed' }).count()).toBe(0);

    // All failed means failed now: alice's two were recovered, so three are replayed; two succeed, one is refused.
    await page.getByRole('combobox', { name: 'Search messages' }).fill('');
    await expect.poll(() => list.getByRole('option').count()).toBe(5);
    expect(await list.getByRole('option').filter({ hasText: '✗ failed' }).count()).toBe(3);
    hooks.script({ status: 200 }, { status: 200 }, { status: 400 });
    await page.getByRole('button', { name: /^Replay…/ }).click();
    // Without a filter, all failed is the default; every stored message stays a choice.
    expect(await dialog.getByRole('radio', { name: 'Every stored message (no filter is set)' }).isChecked()).toBe(false);
    expect(await dialog.getByRole('radio', { name: 'All failed deliveries, whatever the filter' }).isChecked()).toBe(true);
    await expect.poll(() => dialog.getByText('This replays all 3 failed deliveries, whatever the filter.').isVisible(), { timeout: 10_000 }).toBe(true);
    await s.shot('replay-bulk-confirm');
    await dialog.getByRole('button', { name: 'Replay 3 failed deliveries' }).click();
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Done: 3 of 3 finished — 2 delivered · 1 failed · 0 pending.');
    const bar = dialog.getByRole('progressbar', { name: 'Replay progress' });
    expect(await bar.getAttribute('value')).toBe('3');
    expect(await bar.getAttribute('max')).toBe('3');
    await s.shot('replay-bulk-done');
    expect(hooks.received).toHaveLength(10);
    expect(new Set(hooks.received.slice(7).map((r) => JSON.parse(r.body).userId))).toEqual(new Set(['bob', 'carol', 'dave']));
    expect(s.core.deliveries.countByStatus()).toMatchObject({ delivered: 4, failed: 6 });
    // In the stream, live: four recovered by a replay, one whose replay failed too.
    await expect.poll(() => list.getByRole('option').filter({ hasText: '✓ delivered (replayed)' }).count(), { timeout: 10_000 }).toBe(4);
    expect(await list.getByRole('option').filter({ hasText: '✗ replay failed: HTTP 400' }).count()).toBe(1);
    // Nothing is failed now but that one: a second "all failed" would send it alone.
    expect(await s.core.operations['deliveries.replay']({ allFailed: true, dryRun: true })).toMatchObject({ messages: 1, deliveries: 1 });
    // Esc closes the dialog and leaves the stream's filters alone.
    await page.keyboard.press('Escape');
    expect(await dialog.isVisible()).toBe(false);
    expectClean(s);
  });

  it('the time range hides messages received before it; live messages join a sliding window but not a past range', async () => {
    const hooks = await receiver();
    let offset = -2 * HOUR; // the core's clock: two hours ago, then now
    const { s, page, list } = await start(hooks, { now: () => Date.now() + offset });
    await post(s.core, '/v1/track', { userId: 'u_old', event: 'Old Event' });
    offset = 0;
    await post(s.core, '/v1/track', { userId: 'u_new', event: 'New Event' });
    const events = () => list.getByRole('option').allTextContents().then((rows) => rows.map((r) => (r.includes('Old Event') ? 'old' : r.includes('New Event') ? 'new' : r.includes('Live Event') ? 'live' : r)));
    await expect.poll(events, { timeout: 10_000 }).toEqual(['new', 'old']);

    const range = page.getByRole('combobox', { name: 'Time range' });
    await range.selectOption({ label: 'Last 1 h' });
    await expect.poll(events).toEqual(['new']);
    await post(s.core, '/v1/track', { userId: 'u_live', event: 'Live Event' });
    await expect.poll(events, { timeout: 10_000 }).toEqual(['live', 'new']);
    await s.shot('stream-time-range');

    // A custom range in the past: only the old message; a live one does not join it.
    await range.selectOption({ label: 'Custom range…' });
    const local = (ms: number) => {
      const d = new Date(ms);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
    };
    await page.getByLabel('From', { exact: true }).fill(local(Date.now() - 3 * HOUR));
    await page.getByLabel('To', { exact: true }).fill(local(Date.now() - 90 * 60_000));
    await expect.poll(events).toEqual(['old']);
    await post(s.core, '/v1/track', { userId: 'u_live', event: 'Live Event' });
    await hooks.waitFor(4);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await events()).toEqual(['old']);
    // A start after the end is refused in words, and the list keeps the last valid range.
    await page.getByLabel('From', { exact: true }).fill(local(Date.now() - 60 * 60_000));
    await expect.poll(() => page.getByText('The start is after the end: pick a start before the end.').isVisible()).toBe(true);
    expect(await events()).toEqual(['old']);

    await range.selectOption({ label: 'All time' });
    await expect.poll(events).toEqual(['live', 'live', 'new', 'old']);
    expect(await page.getByRole('group', { name: 'Custom time range' }).count()).toBe(0);
    expectClean(s);
  });
});
