// The Audiences view end to end: the built inspector in Chromium over a real core (headless host),
// driven by role and label as a user would. An audience built in the UI is previewed, saved, synced
// at once (demo mode) and its identifies arrive, signed, at the built-in receiver; Sync now sends
// only the change; the mode switch reschedules; the stream marks the identifies as audience syncs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { post } from '../helpers/core.ts';
import { openInspector, type InspectorSession } from '../helpers/inspector-page.ts';
import { signBody } from '../../electron/core/signature/signature.ts';

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[audiences e2e] skipped: ${skipReason}`);

const SECRET = 'e2e-audience-secret';
const HOOK = 'audiences';

describe.skipIf(skipReason !== null)('Audiences view', () => {
  let session: InspectorSession;

  beforeAll(async () => {
    session = await openInspector({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
    // The built-in receiver is the webhook (its URL is known once the core listens).
    session.core.saveDestination({
      name: 'built-in',
      sources: ['web'],
      sharedSecret: SECRET,
      webhooks: [{ url: `${session.core.receiver.url}/hooks/${HOOK}` }],
    });
    const send = (batch: unknown[]) => post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch });
    expect(
      (
        await send([
          { type: 'identify', userId: 'ada', traits: { plan: 'pro' } },
          { type: 'identify', userId: 'bob', traits: { plan: 'pro' } },
          { type: 'identify', userId: 'cyd', traits: { plan: 'free' } },
          { type: 'track', userId: 'ada', event: 'Order Completed' },
          { type: 'track', userId: 'ada', event: 'Order Completed' },
          { type: 'track', userId: 'bob', event: 'Order Completed' },
          { type: 'track', userId: 'cyd', event: 'Order Completed' },
          { type: 'track', userId: 'cyd', event: 'Order Completed' },
        ])
      ).status,
    ).toBe(200);
    await session.open('audiences');
  });

  afterAll(async () => {
    await session?.close();
  });

  const page = () => session.page;
  const editor = () => page().getByRole('form', { name: 'New audience' });
  /** The identifies of the audience's syncs that reached the built-in receiver. */
  const syncIdentifies = () =>
    session.core.receiver.inbox(HOOK).filter((entry) => {
      const body = JSON.parse(entry.body) as { type: string; traits?: Record<string, unknown> };
      return body.type === 'identify' && body.traits !== undefined && 'high_value_users' in body.traits;
    });

  it('builds an audience with inline errors and a live preview, and its first sync arrives signed at the built-in receiver', async () => {
    const p = page();
    await expect.poll(() => editor().isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await p.getByText('No audience yet.', { exact: false }).isVisible()).toBe(true);

    await editor().getByLabel('Name', { exact: true }).fill('High Value Users');
    expect(await editor().getByText('Sent as the trait').textContent()).toBe('Sent as the trait high_value_users');

    // A condition with an operator that compares numbers, given text: the error sits next to it.
    const first = editor().getByRole('group', { name: 'Condition 1' });
    await first.getByLabel('Condition 1 trait').fill('plan');
    await first.getByLabel('Condition 1 operator').selectOption({ label: 'is greater than' });
    await first.getByLabel('Condition 1 value').fill('pro');
    await expect.poll(() => first.getByText('enter a number, e.g. 100', { exact: true }).isVisible()).toBe(true);
    expect(await first.getByLabel('Condition 1 value').getAttribute('aria-invalid')).toBe('true');
    await first.getByLabel('Condition 1 operator').selectOption({ label: 'equals' });
    await expect.poll(() => first.getByText('enter a number, e.g. 100', { exact: true }).count()).toBe(0);

    // plan equals "pro" alone: ada and bob.
    const preview = editor().getByRole('region', { name: 'Preview' });
    await expect.poll(() => preview.getByRole('status').textContent(), { timeout: 10_000 }).toBe('2 members now, of 3 users of the source');
    expect(await preview.getByRole('list', { name: 'Sample of members' }).getByRole('listitem').allTextContents()).toEqual(['ada', 'bob']);

    // And at least 2 orders: ada only.
    await editor().getByRole('button', { name: '+ Event condition' }).click();
    const second = editor().getByRole('group', { name: 'Condition 2' });
    await second.getByLabel('Condition 2 event').fill('Order Completed');
    await second.getByLabel('Condition 2 times').fill('2');
    await expect.poll(() => preview.getByRole('status').textContent(), { timeout: 10_000 }).toBe('1 member now, of 3 users of the source');
    // Any of them: ada, bob (pro) and cyd (2 orders).
    await editor().getByLabel('Match').selectOption('any');
    await expect.poll(() => preview.getByRole('status').textContent(), { timeout: 10_000 }).toBe('3 members now, of 3 users of the source');
    await editor().getByLabel('Match').selectOption('all');
    await expect.poll(() => preview.getByRole('status').textContent(), { timeout: 10_000 }).toBe('1 member now, of 3 users of the source');
    await session.shot('audiences-editor');

    // Nothing was sent yet: a preview is only a preview.
    expect(syncIdentifies()).toEqual([]);
    await editor().getByLabel('Seconds between syncs').fill('3600');
    await editor().getByRole('button', { name: 'Create audience' }).click();

    // Demo mode: the first sync runs at once and sends every member.
    const detail = p.getByRole('region', { name: 'High Value Users' });
    await expect.poll(() => detail.isVisible(), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => syncIdentifies().length, { timeout: 10_000 }).toBe(1);
    const [entry] = syncIdentifies();
    const body = JSON.parse(entry!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ version: 1, type: 'identify', userId: 'ada', traits: { high_value_users: true } });
    expect(entry!.signature).toBe('valid');
    expect(entry!.headers['x-signature']).toBe(signBody(entry!.body, SECRET));

    // The history shows the sync, its joined member and, live, the delivery.
    const history = detail.getByRole('table', { name: 'Sync history' });
    const row = history.getByRole('row').nth(1);
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toMatch(/initial.*1\s*1\s*0\s*1 message · 1 delivered/);
    await row.getByRole('button', { name: 'Show messages' }).click();
    const messages = history.getByRole('list', { name: 'Messages of this sync' });
    await expect.poll(() => messages.textContent()).toBe('ada→ truejoineddelivered');
    await session.shot('audiences-detail');
  });

  it('Sync now sends only the change; the mode switch shows the next sync of the realistic schedule', async () => {
    const p = page();
    const detail = p.getByRole('region', { name: 'High Value Users' });
    // bob places a second order: he joins. Nobody else changes.
    await post({ ingestUrl: session.core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'bob', event: 'Order Completed' });
    await detail.getByRole('button', { name: 'Sync now' }).click();
    await expect.poll(() => detail.getByRole('status').first().textContent(), { timeout: 10_000 }).toBe(
      'Synced: 1 joined, 0 left; 1 identify message queued for delivery.',
    );
    await expect.poll(() => syncIdentifies().length, { timeout: 10_000 }).toBe(2);
    expect(JSON.parse(syncIdentifies()[1]!.body)).toMatchObject({ userId: 'bob', traits: { high_value_users: true } });

    // Again, with nothing changed: nothing is sent.
    await detail.getByRole('button', { name: 'Sync now' }).click();
    await expect.poll(() => detail.getByRole('status').first().textContent(), { timeout: 10_000 }).toBe('Synced: nobody joined or left, so nothing was sent.');
    expect(syncIdentifies()).toHaveLength(2);
    const syncRows = detail.getByRole('table', { name: 'Sync history' }).getByRole('row', { name: /^Sync at / });
    await expect.poll(() => syncRows.count(), { timeout: 10_000 }).toBe(3);
    expect(await syncRows.first().textContent()).toMatch(/sync now.*2\s*0\s*0\s*0 messages/);

    // Members as of the last sync.
    await detail.getByRole('tab', { name: /Members/ }).click();
    await expect.poll(() => detail.getByRole('list', { name: 'Members' }).getByRole('listitem').count()).toBe(2);

    // Demo: the next sync in about an hour; realistic: two to three hours after the last sync.
    const timer = detail.getByRole('timer', { name: 'Next sync' });
    expect(await timer.textContent()).toMatch(/^in (59 min|1 h 00 min)/);
    await detail.getByRole('radiogroup', { name: 'Sync mode' }).getByRole('radio', { name: 'Realistic' }).click();
    await expect.poll(() => timer.textContent(), { timeout: 10_000 }).toMatch(/^in 2 h \d\d min$/);
    expect(await detail.getByRole('radio', { name: 'Realistic' }).getAttribute('aria-checked')).toBe('true');
  });

  it('marks the audience identifies in the stream', async () => {
    const p = page();
    await p.getByRole('button', { name: /Stream/ }).first().click();
    const row = p.getByRole('option').filter({ hasText: 'audience sync' }).first();
    await expect.poll(() => row.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await row.textContent()).toContain('high_value_users: true');
    await session.shot('audiences-stream');
    expect(session.problems).toEqual([]);
    expect(session.offsite).toEqual([]);
  });
});
