// The Sources view's form end to end: the built inspector in Chromium over a real core (headless
// host), driven by role, label and keyboard. A source created in the form gets a generated key that
// ingestion accepts at once; an edited key refuses the old one; problems show beside their field; a
// source the config file declares is marked and read-only.
import { expectAccessible as expectAccessibleIn } from '../helpers/a11y.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[sources e2e] skipped: ${skipReason}`);

const CONFIG_FILE = '/projects/shop/sluice.config.json';

describe.skipIf(skipReason !== null)('Sources view: create and edit', () => {
  let session: InspectorSession;

  beforeAll(async () => {
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] }, configFile: CONFIG_FILE });
    await session.open('sources');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const track = (writeKey: string, event: string) => post({ ingestUrl: session.core.ingestUrl, writeKey }, '/v1/track', { userId: 'u1', event });
  const card = (name: string) => page().getByRole('region', { name, exact: true });

  it('marks the config file’s source as read-only, naming the file', async () => {
    const web = card('web');
    await expect.poll(() => web.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await web.getByText('from sluice.config.json', { exact: true }).getAttribute('title')).toBe(CONFIG_FILE);
    expect(await web.getByText('which Sluice applies at every start', { exact: false }).textContent()).toBe(
      `Declared in ${CONFIG_FILE}, which Sluice applies at every start: to rename it or change its key or kind, edit the file and restart Sluice.`,
    );
    expect(await web.getByRole('button', { name: 'Edit source web' }).count()).toBe(0);
  });

  it('creates a source from the keyboard with a generated key that ingestion accepts at once', async () => {
    const p = page();
    await p.getByRole('button', { name: '+ New source' }).click();
    const form = p.getByRole('form', { name: 'New source' });
    // The name field has the focus; the key is generated, ready to copy.
    await expect.poll(() => p.evaluate(() => document.activeElement?.getAttribute('id'))).toBe('src-new-name');
    const key = await form.getByLabel('Write key', { exact: true }).inputValue();
    expect(key).toMatch(/^wk_[0-9a-f]{24}$/);
    await form.getByRole('button', { name: 'Copy the write key' }).click();
    expect(await p.evaluate(() => navigator.clipboard.readText())).toBe(key);

    // Enter with no name: the problem shows beside the field, nothing is created.
    await form.getByLabel('Name', { exact: true }).focus();
    await p.keyboard.press('Enter');
    await expect.poll(() => form.getByText('The name must not be empty.', { exact: true }).isVisible()).toBe(true);
    expect(await form.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    // A taken name, as typed.
    await p.keyboard.type('web');
    await expect.poll(() => form.getByText('Another source is already called “web”; choose another name.', { exact: true }).isVisible()).toBe(true);
    await p.keyboard.press('Backspace');
    await p.keyboard.press('Backspace');
    await p.keyboard.press('Backspace');
    await p.keyboard.type('ios');
    // Tab to Kind and choose mobile by keyboard.
    await p.keyboard.press('Tab');
    expect(await p.evaluate(() => document.activeElement?.getAttribute('id'))).toBe('src-new-kind');
    await form.getByLabel('Kind').selectOption('mobile');
    expect((await track(key, 'Before')).status).toBe(401); // not a source yet
    // On to the key, and Enter submits.
    await p.keyboard.press('Tab');
    expect(await p.evaluate(() => document.activeElement?.getAttribute('id'))).toBe('src-new-key');
    await p.keyboard.press('Enter');

    await expect.poll(() => p.getByRole('status').filter({ hasText: 'Created “ios”' }).textContent(), { timeout: 10_000 }).toBe('Created “ios”: its write key works now.');
    const ios = card('ios');
    await expect.poll(() => ios.isVisible()).toBe(true);
    expect(await ios.getByText('mobile', { exact: true }).isVisible()).toBe(true);
    expect(await ios.getByLabel('Write key').first().textContent()).toBe(key);

    const accepted = await track(key, 'From the new source');
    expect(accepted).toMatchObject({ status: 200, json: { success: true } });
    const source = session.core.sources.byName('ios')!;
    await expect.poll(() => session.core.messages.list().find((m) => m.event === 'From the new source')?.sourceId, { timeout: 10_000 }).toBe(source.id);
  });

  it('edits the key: problems beside the field, and once saved the old key is refused and the new one works', async () => {
    const p = page();
    const ios = card('ios');
    const oldKey = session.core.sources.byName('ios')!.writeKey;
    await ios.getByRole('button', { name: 'Edit source ios' }).click();
    const form = p.getByRole('form', { name: 'Edit source ios' });
    const keyInput = form.getByLabel('Write key', { exact: true });
    expect(await keyInput.inputValue()).toBe(oldKey);

    await keyInput.fill('wk web');
    await expect.poll(() => form.getByText('The write key may contain only letters, digits and _ - . ~.', { exact: true }).isVisible()).toBe(true);
    await keyInput.fill('wk_web');
    await expect
      .poll(() => form.getByText('The source “web” already has this write key; each source needs its own — generate one.', { exact: true }).isVisible())
      .toBe(true);
    await form.getByRole('button', { name: 'Generate' }).click();
    const newKey = await keyInput.inputValue();
    expect(newKey).toMatch(/^wk_[0-9a-f]{24}$/);
    expect(newKey).not.toBe(oldKey);
    expect(await form.getByText('Once saved, clients still sending the old key are refused (401 invalid_write_key).', { exact: true }).isVisible()).toBe(true);
    await session.shot('sources-edit');
    await expectAccessibleIn(session.page, '.src-view');

    // Not saved yet: the old key still works.
    expect((await track(oldKey, 'Old key before save')).status).toBe(200);
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => p.getByRole('status').filter({ hasText: 'Saved “ios”' }).isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await p.getByRole('form', { name: 'Edit source ios' }).count()).toBe(0);
    await expect.poll(() => ios.getByLabel('Write key').first().textContent(), { timeout: 10_000 }).toBe(newKey); // the list, read again on settings.changed

    expect(await track(oldKey, 'Old key after save')).toMatchObject({
      status: 401,
      json: { success: false, error: { code: 'invalid_write_key', message: "unknown write key; copy it from Sluice's Sources view" } },
    });
    expect((await track(newKey, 'New key')).status).toBe(200);
  });

  it('Escape closes the form without saving', async () => {
    const p = page();
    await p.getByRole('button', { name: '+ New source' }).click();
    const form = p.getByRole('form', { name: 'New source' });
    await form.getByLabel('Name', { exact: true }).fill('never');
    await p.keyboard.press('Escape');
    expect(await form.count()).toBe(0);
    expect(session.core.sources.byName('never')).toBeUndefined();
  });

  it('logged no page errors and made no off-site requests', () => {
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
