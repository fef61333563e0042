// The preview of a destination's filters and transform in the inspector (issue 28, point 5): "Try on
// this message" on a stored message shows input → output as a diff, the log lines and the time; in the
// destination editor a filter added (unsaved) decides a drop in the preview; a transform that does not
// compile is refused at its line and column, a good one is saved and shows its version; axe finds no
// serious or critical problem in the new panels, light or dark. The built inspector in Chromium over a
// real core (headless host), the real transform runtime, a real receiver.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post, tempDir } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[transforms-preview e2e] skipped: ${skipReason}`);

const RENAME = `async function onTrack(event, { settings, log }) {
  log('renaming', event.event);
  return { ...event, event: settings.prefix + event.event, properties: { ...event.properties, seen: true } };
}
`;
const versionOf = (source: string) => crypto.createHash('sha256').update(source).digest('hex').slice(0, 12);

describe.skipIf(skipReason !== null)('Previewing filters and transforms', () => {
  let session: InspectorSession;
  let receiver: Receiver;
  let folder: string;
  let hooksId: number;

  beforeAll(async () => {
    receiver = await startReceiver();
    folder = tempDir('sluice-transform-e2e-');
    fs.writeFileSync(path.join(folder, 'rename.js'), RENAME);
    session = await openInspector({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [
          // Disabled: nothing is delivered while the preview is tried (the preview sends nothing either).
          { name: 'hooks', enabled: false, sources: ['web'], webhooks: [{ url: `${receiver.url}/hook`, headers: {} }], options: { bodyShape: 'seed', concurrency: 8 }, transform: { file: path.join(folder, 'rename.js'), settings: { prefix: 'web: ' }, timeoutMs: 1000 } },
        ],
      },
    });
    hooksId = session.core.destinations.byName('hooks')!.id;
    const ingest = { ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' };
    await post(ingest, '/v1/identify', { userId: 'u_ada', traits: { plan: 'pro' } });
    await post(ingest, '/v1/track', { userId: 'u_ada', event: 'Order Completed', properties: { price: 10 } });
    await session.open('stream');
  });

  afterAll(async () => {
    await session?.close();
    await receiver?.close();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  const page = () => session.page;
  const detail = () => page().getByRole('region', { name: 'Message detail' });
  const editor = () => page().getByRole('form');
  const preview = () => editor().getByRole('region', { name: /^Preview/ });
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

  it('tries the destination’s transform on a stored message: the diff, the log lines, the time taken, the body; nothing is sent', async () => {
    const row = page().getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'Order Completed' });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    await row.click();
    await detail().getByRole('tab', { name: 'Try' }).click();
    const panel = detail().getByRole('region', { name: 'Try on this message' });
    expect(await panel.getByRole('combobox', { name: 'Destination' }).inputValue()).toBe(String(hooksId));
    await expect.poll(() => panel.getByLabel('Outcome').textContent(), { timeout: 10_000 }).toMatch(/^Transformed/);
    const changes = panel.getByRole('list', { name: 'Changes in output' });
    expect(await changes.getByRole('listitem').allTextContents()).toEqual(['changed event "Order Completed" → "web: Order Completed"', 'added properties.seen true']);
    // The output's tree marks the changed fields.
    expect(await panel.getByRole('tree', { name: 'Output' }).getByText('changed, was "Order Completed"').isVisible()).toBe(true);
    expect(await panel.getByRole('list', { name: 'Log lines' }).getByRole('listitem').allTextContents()).toEqual(['log renaming Order Completed']);
    expect(await panel.getByRole('heading', { name: /^Transform/ }).textContent()).toMatch(new RegExp(`version ${versionOf(RENAME)} · ran in \\d+ ms`));
    expect(JSON.parse(await panel.getByLabel('Body', { exact: true }).textContent() ?? '')).toMatchObject({ event: 'web: Order Completed', properties: { price: 10, seen: true } });
    // Skipping the transform: the body goes as stored.
    await panel.getByRole('checkbox', { name: 'Skip the transform' }).check();
    await expect.poll(() => panel.getByLabel('Outcome').textContent()).toMatch(/no transform/);
    expect(JSON.parse(await panel.getByLabel('Body', { exact: true }).textContent() ?? '')).toMatchObject({ event: 'Order Completed' });
    await panel.getByRole('checkbox', { name: 'Skip the transform' }).uncheck();
    await expect.poll(() => panel.getByLabel('Outcome').textContent()).toMatch(/^Transformed/);
    await axe('[aria-label="Message detail"]');
    expect(receiver.received).toEqual([]);
  });

  it('adds a filter in the destination editor: its query is checked as the search box checks it, and the preview shows the drop it decides', async () => {
    await session.open('destinations');
    await expect.poll(() => editor().getByRole('heading', { name: 'hooks', exact: true }).isVisible(), { timeout: 10_000 }).toBe(true);
    await editor().getByRole('button', { name: '+ Add filter' }).click();
    const query = editor().getByRole('textbox', { name: 'Filter 1: if' });
    await query.fill('type:(');
    await expect.poll(() => query.getAttribute('aria-invalid')).toBe('true');
    expect(await editor().getByText(/^The query: .*\(at character \d+\)/).isVisible()).toBe(true);
    await query.fill('type:identify');
    await expect.poll(() => query.getAttribute('aria-invalid')).toBe(null);
    expect(await editor().getByRole('combobox', { name: 'Filter 1: action' }).inputValue()).toBe('drop');

    const message = preview().getByRole('combobox', { name: 'Preview on message' });
    await expect.poll(() => message.locator('option').count(), { timeout: 10_000 }).toBe(2);
    // The newest message first: the track one, which the filter lets through to the transform.
    await expect.poll(() => preview().getByLabel('Outcome').textContent(), { timeout: 10_000 }).toMatch(/^Transformed/);
    await message.selectOption({ label: (await message.locator('option', { hasText: 'identify' }).textContent())! });
    await expect.poll(() => preview().getByLabel('Outcome').textContent()).toMatch(/dropped by filter 1/i);
    expect(await preview().getByRole('region', { name: 'Filter decisions' }).getByRole('listitem').allTextContents()).toEqual([expect.stringMatching(/filter 1.*type:identify/i)]);
    expect(await preview().getByText('Not run: a filter dropped the message first.').isVisible()).toBe(true);
    // Unsaved so far; saved with the destination.
    expect(session.core.destinations.byId(hooksId)!.filters ?? []).toEqual([]);
    await editor().getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => session.core.destinations.byId(hooksId)!.filters).toEqual([{ if: 'type:identify', drop: true }]);
    // The transform stayed the destination's.
    expect(session.core.destinations.byId(hooksId)!.transform!.file).toBe(path.join(folder, 'rename.js'));
  });

  it('refuses to save a transform that does not compile, at its line and column; saves a good one, which shows its version', async () => {
    const code = editor().getByRole('textbox', { name: 'Transform source' });
    await expect.poll(() => code.inputValue(), { timeout: 10_000 }).toBe(RENAME);
    const broken = 'async function onTrack(event) {\n  return {\n    event: event.event,,\n  };\n}\n';
    await code.fill(broken);
    await editor().getByRole('button', { name: 'Save transform' }).click();
    const status = editor().getByRole('status', { name: 'Transform save' });
    await expect.poll(() => status.textContent()).toBe('Not saved: the transform does not compile; the version in use stays.');
    expect(await editor().getByText(/^Line 3, column \d+: /).isVisible()).toBe(true);
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    expect(fs.existsSync(path.join(session.core.dataDir, 'transforms', `destination-${hooksId}.js`))).toBe(false);

    // The preview runs the unsaved text (on the track message: the saved filter drops the identify one):
    // a fan-out shows each output and body, a throw its message and stack, a null the drop.
    const message = preview().getByRole('combobox', { name: 'Preview on message' });
    await message.selectOption({ label: (await message.locator('option', { hasText: 'Order Completed' }).textContent())! });
    await code.fill('async function onTrack(event) {\n  return [{ ...event, event: "one" }, { ...event, event: "two" }];\n}\n');
    const second = preview().getByRole('list', { name: 'Changes in output 2 of 2' });
    await expect.poll(() => second.textContent(), { timeout: 10_000 }).toBe('changed event "Order Completed" → "two"');
    expect(JSON.parse((await preview().getByLabel('Body 2', { exact: true }).textContent()) ?? '')).toMatchObject({ event: 'two' });
    await code.fill('async function onTrack(event) {\n  throw new Error("no price on " + event.event);\n}\n');
    await expect.poll(() => preview().getByLabel('Outcome').textContent(), { timeout: 10_000 }).toMatch(/^The transform threw: .*no price on Order Completed/);
    expect(await preview().getByLabel('Stack').textContent()).toMatch(/no price on Order Completed[\s\S]*at onTrack/);
    expect(await preview().getByText('Nothing would be sent', { exact: false }).count()).toBeGreaterThan(0);
    await code.fill('async function onTrack(event) {\n  return null;\n}\n');
    await expect.poll(() => preview().getByLabel('Outcome').textContent(), { timeout: 10_000 }).toMatch(/^Dropped by transform/);

    // Tab indents inside the code area, the focus staying there.
    const good = RENAME.replace("log('renaming'", "log('saved'");
    await code.fill(good);
    await code.press('End');
    await code.press('Tab');
    expect(await code.inputValue()).toBe(`${good}  `);
    await expect.poll(() => code.evaluate((el) => el === document.activeElement)).toBe(true);
    await code.fill(good);
    // The preview runs the unsaved text.
    await expect.poll(() => preview().getByRole('list', { name: 'Log lines' }).textContent(), { timeout: 10_000 }).toMatch(/saved /);
    await editor().getByRole('button', { name: 'Save transform' }).click();
    await expect.poll(() => status.textContent()).toMatch(new RegExp(`^Saved at .* — version ${versionOf(good)} in use from the next delivery\\.$`));
    const own = path.join(session.core.dataDir, 'transforms', `destination-${hooksId}.js`);
    expect(fs.readFileSync(own, 'utf8')).toBe(good);
    expect(fs.readFileSync(path.join(folder, 'rename.js'), 'utf8')).toBe(RENAME);
    const facts = editor().getByRole('definition').filter({ hasText: versionOf(good) });
    expect(await facts.count()).toBe(1);
    expect(await editor().getByText(own).isVisible()).toBe(true);
    // The file's text changed on disk and does not compile: the editor says it is not in use, and which version stays.
    fs.writeFileSync(own, 'async function onTrack(event) {\n  return event;;;\n}}\n');
    const refusedNote = editor().getByRole('note').filter({ hasText: 'The file’s current text is not in use' });
    await expect.poll(() => refusedNote.textContent(), { timeout: 10_000 }).toContain(`Version ${versionOf(good)} stays in use.`);
    await axe('.tf-section');
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });

  it("shows, on a delivered message's Attempts tab, what the destination's transform made of it: its words, version, changes and log lines", async () => {
    session.core.saveDestination({
      name: 'shaped', sources: ['web'], webhooks: [{ url: `${receiver.url}/shaped`, headers: {} }],
      transform: { file: path.join(folder, 'rename.js'), settings: { prefix: 'web: ' }, timeoutMs: 1000 },
    });
    await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_bea', event: 'Paid', properties: { price: 7 } });
    const [sent] = await receiver.waitFor(1);
    expect(JSON.parse(sent!.body)).toMatchObject({ event: 'web: Paid' });
    await session.open('stream');
    const row = page().getByRole('listbox', { name: 'Messages' }).getByRole('option').filter({ hasText: 'Paid' });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    await row.click();
    await detail().getByRole('tab', { name: /^Attempts/ }).click();
    const picker = detail().getByRole('combobox', { name: 'Delivery' });
    if (await picker.count()) await picker.selectOption({ label: (await picker.locator('option', { hasText: 'shaped' }).textContent())! });
    await expect.poll(() => detail().getByRole('definition').filter({ hasText: /^transformed \(version / }).textContent(), { timeout: 10_000 }).toBe(
      `transformed (version ${versionOf(RENAME)})`,
    );
    const run = detail().getByRole('region', { name: 'Transform run' });
    expect(await run.getByRole('list', { name: 'Changes in output' }).getByRole('listitem').allTextContents()).toEqual(['changed event "Paid" → "web: Paid"', 'added properties.seen true']);
    expect(await run.getByRole('list', { name: 'Log lines' }).getByRole('listitem').allTextContents()).toEqual(['log renaming Paid']);
    await axe('[aria-label="Message detail"]');
    expect(session.problems).toEqual([]);
  });
});
