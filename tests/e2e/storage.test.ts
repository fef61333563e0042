// The store in the inspector end to end: the built inspector in Chromium over a real core (headless
// host), driven by role and label. Settings › Storage shows the figures; the retention set by the config
// file says so, a limit out of bounds is refused beside its field, and Save keeps the new one (said to
// last until the next start) and says what it pruned at once (two messages received 40 days ago, by
// the core's clock); clearing one source asks first with the dry run's count, then says what
// went, and the stream loses those rows. In the stream, Export… downloads the filtered set as NDJSON
// whose lines parse (and HAR), a file dropped on the stream and one picked with Import… are imported
// into the chosen source (their rows appear), so is a HAR file of Tracking API calls (its batch and
// single calls, not its other requests), and Clear these… names the filter in words; Settings' Clear all
// messages… asks with the count of every message and leaves the store and the stream empty. axe finds no
// serious or critical problem in Settings, in both themes.
import fs from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../electron/core/config/load-config.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[storage e2e] skipped: ${skipReason}`);

const SHOTS = '/tmp/storage-shots';
const DAY = 86_400_000;
let clockOffset = 0;

describe.skipIf(skipReason !== null)('Storage in the inspector', () => {
  let session: InspectorSession;

  beforeAll(async () => {
    const config = parseConfig(
      JSON.stringify({
        sources: [
          { name: 'web', writeKey: 'wk_web', kind: 'web' },
          { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
        ],
        destinations: [],
        retention: { maxAgeDays: 90, maxMessages: 500_000, maxBytes: null },
      }),
    );
    session = await openInspector({ config, clock: { now: () => Date.now() + clockOffset } });
    fs.mkdirSync(SHOTS, { recursive: true });
    const track = (userId: string, event: string) => ({ type: 'track', userId, event, properties: { n: 1 } });
    // Two messages received 40 days ago: kept by the config's 90 days, pruned when Settings sets 7.
    clockOffset = -40 * DAY;
    const old = await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch: [track('old1', 'Old Event'), track('old2', 'Old Event')] });
    clockOffset = 0;
    const web = await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', {
      batch: [track('w1', 'Order Completed'), track('w2', 'Order Completed'), track('w3', 'Signed Up'), track('w4', 'Signed Up'), track('w5', 'Order Completed')],
    });
    const ios = await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_ios' }, '/v1/batch', { batch: [track('i1', 'App Opened'), track('i2', 'App Opened'), track('i3', 'App Opened')] });
    expect([old.status, web.status, ios.status]).toEqual([200, 200, 200]);
    await session.open('settings');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const storage = () => page().getByRole('region', { name: 'Storage' });
  const figure = (label: string) => storage().locator('.storage-figures .fact').filter({ has: page().locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
  const rows = () => page().getByRole('listbox', { name: 'Messages' }).getByRole('option');
  const views = () => page().getByRole('navigation', { name: 'Views' });
  const dialog = () => page().getByRole('dialog');
  const shot = async (name: string, target?: () => ReturnType<InspectorSession['page']['locator']>) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      const file = `${SHOTS}/${name}-${scheme}.png`;
      if (target) await target().screenshot({ path: file });
      else await page().screenshot({ path: file });
    }
    await page().emulateMedia({ colorScheme: 'light' });
  };
  const axe = async (include: string) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page().emulateMedia({ colorScheme: scheme });
      const result = await new AxeBuilder({ page: page() })
        .include(include)
        .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
        .analyze();
      const bad = result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${scheme}: ${v.id} (${v.impact}): ${v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary}`).join('; ')}`);
      expect(bad).toEqual([]);
    }
    await page().emulateMedia({ colorScheme: 'light' });
  };

  it('shows the store’s figures: counts, sizes, oldest and newest message', async () => {
    await expect.poll(() => figure('Messages').textContent(), { timeout: 10_000 }).toBe('10');
    expect(await figure('Deliveries').textContent()).toBe('0');
    expect(await figure('Attempts').textContent()).toBe('0');
    expect(await figure('Database').textContent()).toMatch(/^\d+(\.\d+)? (KB|MB)$/);
    expect(await figure('Write-ahead log').textContent()).toMatch(/^\d+(\.\d+)? (B|KB|MB)\(kept short by checkpoints\)$/);
    expect(await figure('Free inside the file').textContent()).toMatch(/^\d+(\.\d+)? (B|KB|MB)\(reused before the file grows\)$/);
    const oldest = new Date(Date.now() - 40 * DAY);
    const day = `${oldest.getFullYear()}-${String(oldest.getMonth() + 1).padStart(2, '0')}-${String(oldest.getDate()).padStart(2, '0')}`;
    expect(await figure('Oldest message').textContent()).toMatch(new RegExp(`^${day} \\d\\d:\\d\\d · 40 days ago$`));
    expect(await figure('Newest message').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d · (just now|\d+ s ago)$/);
    expect(await storage().getByText('None yet: the store has not been over a limit.').isVisible()).toBe(true);
    await axe('.settings-view');
  });

  it('says the config file set the retention, refuses a limit out of bounds beside its field, and saves a new one', async () => {
    const form = storage().getByRole('form', { name: 'Retention' });
    expect(await form.getByText('Set by the config file: it wins again at the next start.', { exact: false }).isVisible()).toBe(true);
    const age = form.getByRole('textbox', { name: 'Maximum age' });
    const count = form.getByRole('textbox', { name: 'Maximum messages' });
    const size = form.getByRole('textbox', { name: 'Maximum database size' });
    expect([await age.inputValue(), await count.inputValue()]).toEqual(['90', '500000']);
    expect(await form.getByRole('checkbox', { name: 'No size limit' }).isChecked()).toBe(true);
    expect(await size.isDisabled()).toBe(true);

    await age.fill('0');
    expect(await age.getAttribute('aria-invalid')).toBe('true');
    expect(await form.getByText('Between 1 and 3,650 days, a whole number — or choose No limit.').isVisible()).toBe(true);
    const save = form.getByRole('button', { name: 'Save retention' });
    expect(await save.isDisabled()).toBe(true);

    await age.fill('7');
    await form.getByRole('checkbox', { name: 'No message limit' }).check();
    await form.getByRole('checkbox', { name: 'No size limit' }).uncheck();
    await size.fill('512');
    await save.click();
    const status = form.getByRole('status');
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toMatch(
      /^Saved\. The store was over the new limits: removed 2 messages older than 7 days with 0 deliveries and 0 attempts, (just now|\d s ago)\. Until the next start: the config file’s retention wins then\.$/,
    );
    await expect.poll(() => figure('Messages').textContent(), { timeout: 10_000 }).toBe('8');
    expect(await storage().textContent()).toMatch(/Last pruneRemoved 2 messages older than 7 days with 0 deliveries and 0 attempts, (just now|\d s ago)\./);
    expect(await figure('Oldest message').textContent()).toMatch(/ · (just now|\d+ s ago)$/);
    await shot('storage-section', storage);
    expect(session.core.pruner.retention()).toEqual({ retention: { maxAgeDays: 7, maxMessages: null, maxBytes: 512 * 1024 ** 2 }, from: 'settings' });
    await expect.poll(() => form.getByText('Set by the config file', { exact: false }).count()).toBe(0);
    expect(await age.inputValue()).toBe('7');
    expect(await form.getByRole('checkbox', { name: 'No message limit' }).isChecked()).toBe(true);
  });

  it('clears one source after asking with the dry run’s count, and says what went', async () => {
    await storage().getByRole('button', { name: 'Clear ios…' }).click();
    const question = 'Remove 3 messages of ios, with their deliveries and attempts? Deliveries still pending are cancelled. This cannot be undone.';
    await expect.poll(() => dialog().getByText(question).count(), { timeout: 10_000 }).toBe(1);
    expect(await dialog().getAttribute('aria-labelledby')).toBeTruthy();
    expect(await page().getByRole('dialog', { name: 'Clear messages' }).isVisible()).toBe(true);
    await shot('clear-dialog');
    expect(session.core.messages.byIds([3, 4, 5, 6, 7, 8, 9, 10]).length).toBe(8); // the dry run removed nothing

    await dialog().getByRole('button', { name: 'Remove 3 messages' }).click();
    await expect.poll(() => dialog().getByRole('status').textContent(), { timeout: 10_000 }).toMatch(/^Removed 3 messages \(with 0 deliveries and 0 attempts\); /);
    await dialog().getByRole('button', { name: 'Done' }).click();
    expect(await dialog().count()).toBe(0);
    await expect.poll(() => figure('Messages').textContent(), { timeout: 10_000 }).toBe('5');
    await expect.poll(() => storage().textContent(), { timeout: 10_000 }).toMatch(/Last pruneCleared 3 messages with 0 deliveries and 0 attempts, (just now|\d+ s ago)\./);
    expect(await storage().getByRole('status').filter({ hasText: 'Removed 3 messages' }).count()).toBe(1);
    await axe('.settings-view');
  });

  it('exports the filtered set as NDJSON whose lines parse, and their attempts as HAR', async () => {
    await views().getByRole('button', { name: 'Stream' }).click();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(5);
    await page().getByRole('search', { name: 'Filter messages' }).getByRole('combobox', { name: 'Search messages' }).fill('Order');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(3);

    await page().getByRole('button', { name: 'Export…' }).click();
    expect(await dialog().getByText('The messages matching search “Order”.').isVisible()).toBe(true);
    const [download] = await Promise.all([page().waitForEvent('download'), dialog().getByRole('button', { name: 'Download' }).click()]);
    const name = download.suggestedFilename();
    expect(name).toMatch(/\.ndjson$/);
    const text = fs.readFileSync((await download.path())!, 'utf8');
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(3);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(JSON.stringify(parsed)).toContain('Order Completed');
    await expect.poll(() => dialog().getByRole('status').textContent()).toBe(`Saved 3 messages to ${name}.`);
    await dialog().getByRole('button', { name: 'Done' }).click();

    await page().getByRole('button', { name: 'Export…' }).click();
    await dialog().getByRole('radio', { name: /^HAR requests/ }).check();
    const [har] = await Promise.all([page().waitForEvent('download'), dialog().getByRole('button', { name: 'Download' }).click()]);
    expect(har.suggestedFilename()).toMatch(/\.har$/);
    expect(JSON.parse(fs.readFileSync((await har.path())!, 'utf8')).log.version).toBe('1.2');
    await dialog().getByRole('button', { name: 'Done' }).click();
    await page().getByRole('search', { name: 'Filter messages' }).getByRole('combobox', { name: 'Search messages' }).fill('');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(5);
  });

  it('imports a file dropped on the stream, and one picked with Import…, into the chosen source', async () => {
    const p = page();
    const ndjson = (...users: string[]) => users.map((u) => JSON.stringify({ type: 'track', userId: u, event: 'Imported Order' })).join('\n') + '\n';

    // A drop: a DataTransfer holding the file, dropped on the list pane.
    const transfer = await p.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'dropped.ndjson', { type: 'application/x-ndjson' }));
      return dt;
    }, ndjson('imp_drop1', 'imp_drop2') + 'not json\n');
    const pane = p.getByRole('region', { name: 'Stream' });
    await pane.dispatchEvent('dragenter', { dataTransfer: transfer });
    expect(await p.getByText('Drop to import', { exact: false }).isVisible()).toBe(true);
    await pane.dispatchEvent('drop', { dataTransfer: transfer });
    const importDialog = p.getByRole('dialog', { name: 'Import dropped.ndjson' });
    await expect.poll(() => importDialog.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await p.getByText('Drop to import', { exact: false }).count()).toBe(0);
    const source = importDialog.getByRole('combobox', { name: 'Source' });
    expect(await source.locator('option:checked').textContent()).toBe('web');
    await source.selectOption({ label: 'ios' });
    await importDialog.getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => importDialog.getByRole('status').textContent(), { timeout: 10_000 }).toMatch(/Accepted 2 messages of 2 sent; 1 line not read\./);
    expect(await importDialog.getByRole('listitem').first().textContent()).toMatch(/^line 3: /);
    await shot('import-outcome');
    await importDialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => rows().filter({ hasText: 'imp_drop' }).count(), { timeout: 10_000 }).toBe(2);
    expect(await rows().filter({ hasText: 'imp_drop1' }).textContent()).toContain('ios');

    // Import…: a file picker, for the keyboard.
    const [chooser] = await Promise.all([p.waitForEvent('filechooser'), p.getByRole('button', { name: 'Import…' }).click()]);
    await chooser.setFiles({ name: 'picked.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(ndjson('imp_pick1')) });
    const picked = p.getByRole('dialog', { name: 'Import picked.ndjson' });
    await expect.poll(() => picked.isVisible(), { timeout: 10_000 }).toBe(true);
    await picked.getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => picked.getByRole('status').textContent(), { timeout: 10_000 }).toMatch(/Accepted 1 message of 1 sent\./);
    await picked.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => rows().filter({ hasText: 'imp_pick1' }).count(), { timeout: 10_000 }).toBe(1);
  });

  it('clears the filtered set after naming the filter in words; the rows leave the stream', async () => {
    const p = page();
    await p.getByRole('search', { name: 'Filter messages' }).getByRole('combobox', { name: 'Search messages' }).fill('imp_');
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(3);
    await p.getByRole('button', { name: 'Clear these…' }).click();
    await expect.poll(() => dialog().getByText(/^Remove 3 messages matching search “imp_”, with their deliveries/).count(), { timeout: 10_000 }).toBe(1);
    await dialog().getByRole('button', { name: 'Remove 3 messages' }).click();
    await expect.poll(() => dialog().getByRole('status').textContent(), { timeout: 10_000 }).toMatch(/^Removed 3 messages/);
    await dialog().getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(0);
    await p.keyboard.press('Escape'); // clears the filters
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(5);
  });

  it('imports a HAR file of Tracking API calls dropped on the stream: its batch and single calls, not its other requests', async () => {
    const p = page();
    const entry = (method: string, url: string, body?: object) => ({
      startedDateTime: '2026-01-01T00:00:00.000Z',
      time: 12,
      request: {
        method, url, httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'application/json' }], queryString: [], cookies: [], headersSize: -1, bodySize: -1,
        ...(body ? { postData: { mimeType: 'application/json', text: JSON.stringify(body) } } : {}),
      },
      response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [], cookies: [], content: { size: 16, mimeType: 'application/json' }, redirectURL: '', headersSize: -1, bodySize: -1 },
      cache: {},
      timings: { send: 0, wait: 12, receive: 0 },
    });
    const har = {
      log: {
        version: '1.2',
        creator: { name: 'WebInspector', version: '537.36' },
        entries: [
          entry('POST', 'https://api.segment.io/v1/batch', { writeKey: 'wk_other', batch: [{ type: 'track', userId: 'har_b1', event: 'HAR Batch' }, { type: 'identify', userId: 'har_b2', traits: { plan: 'pro' } }] }),
          entry('GET', 'https://cdn.segment.com/v1/projects/x/settings'),
          entry('POST', 'https://api.segment.io/v1/t', { userId: 'har_t1', event: 'HAR Single' }),
        ],
      },
    };
    // As browsers save them: one document over many lines.
    const transfer = await p.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'session.har', { type: 'application/json' }));
      return dt;
    }, JSON.stringify(har, null, 2));
    const pane = p.getByRole('region', { name: 'Stream' });
    await pane.dispatchEvent('dragenter', { dataTransfer: transfer });
    await pane.dispatchEvent('drop', { dataTransfer: transfer });
    const importDialog = p.getByRole('dialog', { name: 'Import session.har' });
    await expect.poll(() => importDialog.isVisible(), { timeout: 10_000 }).toBe(true);
    await importDialog.getByRole('button', { name: 'Import' }).click();
    const outcome = importDialog.getByRole('status');
    await expect.poll(() => outcome.locator('p').first().textContent(), { timeout: 10_000 }).toBe('session.har into web — HAR file: Accepted 3 messages of 3 sent. They are in the stream now.');
    // The settings GET is not sent, and the dialog says so and why.
    expect(await outcome.locator('p').nth(1).textContent()).toBe('1 HAR entry skipped: not a POST to the Tracking API (/v1/batch, /v1/track, …).');
    await importDialog.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => rows().filter({ hasText: 'har_' }).count(), { timeout: 10_000 }).toBe(3);
    // /v1/t is the single track endpoint: its type comes from the path, as ingestion reads it.
    const stored = session.core.messages.list({ limit: 100 }).filter((m) => /^har_/.test(m.userId ?? ''));
    expect(stored.map((m) => [m.type, m.event, m.userId])).toEqual([
      ['track', 'HAR Single', 'har_t1'],
      ['identify', null, 'har_b2'],
      ['track', 'HAR Batch', 'har_b1'],
    ]);
    expect(await rows().filter({ hasText: 'har_b1' }).textContent()).toContain('web'); // the source chosen, not the HAR's write key
  });

  it('Settings › Clear all messages… asks with the count of every message, then the store and the stream are empty', async () => {
    const total = session.core.messages.list({ limit: 100 }).length;
    expect(total).toBe(8);
    await views().getByRole('button', { name: 'Settings' }).click();
    await storage().getByRole('button', { name: 'Clear all messages…' }).click();
    const question = `Remove all ${total} messages, with their deliveries and attempts? Deliveries still pending are cancelled. This cannot be undone.`;
    await expect.poll(() => dialog().getByText(question).count(), { timeout: 10_000 }).toBe(1);
    await shot('clear-all-dialog');
    expect(session.core.messages.list({ limit: 100 }).length).toBe(total); // asking removed nothing
    await dialog().getByRole('button', { name: `Remove ${total} messages` }).click();
    await expect.poll(() => dialog().getByRole('status').textContent(), { timeout: 10_000 }).toMatch(new RegExp(`^Removed ${total} messages \\(with 0 deliveries and 0 attempts\\); `));
    await dialog().getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => figure('Messages').textContent(), { timeout: 10_000 }).toBe('0');
    expect(session.core.messages.list({ limit: 100 })).toEqual([]);
    await expect.poll(() => storage().textContent(), { timeout: 10_000 }).toMatch(new RegExp(`Last pruneCleared ${total} messages with 0 deliveries and 0 attempts, (just now|\\d+ s ago)\\.`));
    await views().getByRole('button', { name: 'Stream' }).click();
    await expect.poll(() => rows().count(), { timeout: 10_000 }).toBe(0);
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
