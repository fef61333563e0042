// One Dialog for every modal (issue 29, point 7), in Chromium over a real core: each modal the stream
// and Settings open — keyboard map, saved searches, export, clear, replay, reset — is aria-modal and
// named by its heading, keeps Tab and Shift+Tab inside it (round its controls), closes on Esc, and
// gives the focus back to what opened it — also from a radio button that is not the first of its group.
// Clear and Reset are the same count/ask/act dialog: the safe answer focused, the count in the question,
// the focus kept inside while it acts and after it failed.
import type { Locator } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[dialogs e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('every modal is one Dialog', () => {
  let session: InspectorSession;
  const page = () => session.page;
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');

  beforeAll(async () => {
    session = await openInspector();
    const track = (n: number) => ({ type: 'track', event: 'Order Completed', userId: `u_${n}` });
    expect((await post(session.core, '/v1/batch', { batch: Array.from({ length: 3 }, (_, n) => track(n)) })).status).toBe(200);
    await session.open();
    await rows().nth(2).waitFor();
  });
  afterAll(async () => {
    expect(session?.problems ?? []).toEqual([]);
    await session?.close();
  });

  /** What has the focus: its text (or label), and whether it is inside the open dialog. */
  const focused = () =>
    page().evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return { text: (el?.getAttribute('aria-label') || el?.textContent || '').trim(), inDialog: Boolean(el?.closest('dialog[open]')) };
    });

  /** Opened from `opener` by keyboard: modal, named, Tab stays inside and goes round, Esc closes, the focus is back on the opener. */
  async function checkDialog(opener: Locator, name: string): Promise<void> {
    await opener.focus();
    const openerText = (await opener.textContent())!.trim();
    await page().keyboard.press('Enter');
    const dialog = page().getByRole('dialog', { name });
    await expect.poll(() => dialog.count(), { timeout: 10_000 }).toBe(1);
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    const titleId = await dialog.getAttribute('aria-labelledby');
    expect(await page().locator(`[id="${titleId}"]`).textContent()).toBe(name);
    expect((await focused()).inDialog).toBe(true);

    // Tab round the dialog: its controls, each once, then the first again; never outside it.
    const seen: string[] = [];
    const first = (await focused()).text;
    for (let i = 0; i < 40; i++) {
      await page().keyboard.press('Tab');
      const now = await focused();
      expect(now.inDialog, `Tab ${i + 1} in “${name}” left the dialog for “${now.text}”`).toBe(true);
      if (now.text === first) break;
      seen.push(now.text);
    }
    expect((await focused()).text).toBe(first);
    // Shift+Tab from the first goes back to the last.
    if (seen.length > 0) {
      await page().keyboard.press('Shift+Tab');
      expect(await focused()).toEqual({ text: seen.at(-1), inDialog: true });
      await page().keyboard.press('Tab');
    }

    await page().keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await expect.poll(async () => (await focused()).text).toBe(openerText);
    expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
  }

  it('the stream’s dialogs: keyboard map, saved searches, export, clear, replay', async () => {
    const detail = page().getByRole('region', { name: 'Message detail' });
    await checkDialog(detail.getByRole('button', { name: 'All keys (?)' }), 'Keyboard shortcuts');
    await checkDialog(page().getByRole('button', { name: 'Saved…' }), 'Saved searches');
    await checkDialog(page().getByRole('button', { name: 'Export…' }), 'Export messages');
    await checkDialog(page().getByRole('button', { name: 'Clear these…' }), 'Clear messages');
    await checkDialog(page().getByRole('button', { name: /^Replay…/ }), 'Replay messages');
    expect(session.core.messages.list({ limit: 10 }).length).toBe(3); // Esc removed nothing
  });

  it('the keyboard map opened with ? from the list gives the focus back to the list', async () => {
    const list = page().getByRole('listbox', { name: 'Messages' });
    await list.focus();
    await page().keyboard.press('?');
    const dialog = page().getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect.poll(() => dialog.count()).toBe(1);
    await page().keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await list.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it('Clear and Reset ask the same way: the count in the question, the safe answer focused, axe clean', async () => {
    await page().getByRole('button', { name: 'Clear these…' }).click();
    const clear = page().getByRole('dialog', { name: 'Clear messages' });
    await expect.poll(() => clear.getByRole('button', { name: 'Remove 3 messages' }).count(), { timeout: 10_000 }).toBe(1);
    expect((await focused()).text).toBe('Keep them');
    await expectAccessible(page(), 'dialog[open]');
    await page().keyboard.press('Escape');

    await page().getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Settings' }).click();
    await checkDialog(page().getByRole('region', { name: 'Storage' }).getByRole('button', { name: 'Reset…' }), 'Reset Sluice');
    await page().getByRole('region', { name: 'Storage' }).getByRole('button', { name: 'Reset…' }).click();
    const reset = page().getByRole('dialog', { name: 'Reset Sluice' });
    await expect.poll(() => reset.getByText(/It forgets all 3 messages/).count(), { timeout: 10_000 }).toBe(1);
    expect((await focused()).text).toBe('Keep everything');
    await page().keyboard.press('Escape');
    expect(session.core.messages.list({ limit: 10 }).length).toBe(3);
  });

  it('Tab and Shift+Tab stay inside from a radio button chosen after the first (Export… as HAR)', async () => {
    await page().getByRole('navigation', { name: 'Views' }).getByRole('button', { name: 'Stream' }).click();
    const opener = page().getByRole('button', { name: 'Export…' });
    await opener.focus();
    await page().keyboard.press('Enter');
    const dialog = page().getByRole('dialog', { name: 'Export messages' });
    await expect.poll(() => dialog.count(), { timeout: 10_000 }).toBe(1);
    const har = dialog.getByRole('radio', { name: /^HAR requests/ });
    await dialog.getByRole('radio', { name: /^NDJSON messages/ }).focus();
    await page().keyboard.press('ArrowDown'); // HAR chosen, and focused
    expect(await har.evaluate((el) => el === document.activeElement && (el as HTMLInputElement).checked)).toBe(true);
    await page().keyboard.press('Shift+Tab'); // nothing before the group: round to the last control
    expect(await focused()).toEqual({ text: 'Download', inDialog: true });
    await page().keyboard.press('Tab'); // and on from the last to the group, on its chosen button
    expect(await har.evaluate((el) => el === document.activeElement)).toBe(true);
    for (const key of ['Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
      await page().keyboard.press(key);
      expect((await focused()).inDialog, `${key} left the dialog`).toBe(true);
    }
    await page().keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it('Clear keeps the focus inside while it removes, and after it failed', async () => {
    // The page's connection goes through the test, which holds the clear and answers it with a refusal
    // (as a core that could not remove them would); every other frame passes through to the real core.
    let refuse: (() => void) | null = null;
    await page().routeWebSocket(/./, (ws) => {
      const server = ws.connectToServer();
      ws.onMessage((message) => {
        const frame = JSON.parse(String(message)) as { id: number; channel: string; request: { dryRun?: boolean } };
        if (frame.channel === 'storage.clear' && frame.request.dryRun === false) {
          refuse = () => ws.send(JSON.stringify({ kind: 'result', id: frame.id, result: { ok: false, error: { code: 'store_busy', message: 'the store is busy' } } }));
        } else server.send(message);
      });
    });
    await session.open();
    await rows().nth(2).waitFor();
    const opener = page().getByRole('button', { name: 'Clear these…' });
    await opener.click();
    const dialog = page().getByRole('dialog', { name: 'Clear messages' });
    const remove = dialog.getByRole('button', { name: 'Remove 3 messages' });
    await expect.poll(() => remove.count(), { timeout: 10_000 }).toBe(1);
    await remove.focus();
    await page().keyboard.press('Enter');
    await expect.poll(() => refuse !== null, { timeout: 10_000 }).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Removing…' }).isDisabled()).toBe(true);
    expect((await focused()).inDialog).toBe(true); // not the page's <body>
    refuse!();
    await expect.poll(() => dialog.getByRole('alert').textContent(), { timeout: 10_000 }).toBe('Nothing more was removed: the store is busy.');
    expect(await focused()).toEqual({ text: 'Nothing more was removed: the store is busy.', inDialog: true });
    await page().keyboard.press('Tab'); // on to its buttons, still inside
    expect((await focused()).inDialog).toBe(true);
    await page().keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    expect(session.core.messages.list({ limit: 10 }).length).toBe(3);
  });
});
