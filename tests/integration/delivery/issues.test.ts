// Issues (issue 29, issues.*) against a real core: a real SQLite store, real receivers on loopback that
// answer 503, then 500, then 200 (and 400, a hang, a reset), a closed port and a host name that does not
// resolve, an injected clock. Failed and retrying deliveries must be grouped by destination, URL, status
// and error kind with their counts and first/last seen; each group's `issue:<id>` query must list exactly
// the messages of its open deliveries as the store holds them; a group closes itself when its last
// delivery succeeds, moves to another group or is cancelled, and the same key opens it again; a bulk
// retry of a group, or of a filter, announces its progress up to its total and retries failed ones too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, invoke, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import type { IssueRetryProgress, IssueView } from '../../../shared/channels/issues.ts';
import type { DestinationConfig } from '../../../shared/settings.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { closedPort } from '../../helpers/ports.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let now = Date.parse('2026-11-20T10:00:00.000Z');
const clock = { now: () => now };
let core: TestCore;
let handlers: Handlers;
let shop: Receiver;
let crm: Receiver;
const receivers: Receiver[] = [];
const progress: IssueRetryProgress[] = [];

function webhook(name: string, url: string): DestinationConfig {
  return { name, enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url, headers: {} }], options: { bodyShape: 'full', concurrency: 4 } };
}

beforeAll(async () => {
  const [a, b, slow, cut, ok] = await Promise.all([startReceiver(), startReceiver(), startReceiver(), startReceiver(), startReceiver()]);
  receivers.push(a!, b!, slow!, cut!, ok!);
  [shop, crm] = [a!, b!];
  shop.script({ status: 200 }); // the first message's delivery goes through: that message is in no group of shop's
  shop.fallback = { status: 503 };
  crm.fallback = { status: 400, body: 'bad' };
  slow!.fallback = { hang: true };
  cut!.fallback = { reset: true };
  core = await startCore({
    clock,
    webhookTimeoutMs: 3000,
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [
        webhook('shop', `${shop.url}/shop`),
        webhook('crm', `${crm.url}/crm`),
        webhook('down', `http://127.0.0.1:${await closedPort()}/down`),
        webhook('nowhere', 'http://sluice-issues-test.invalid/hook'),
        webhook('slow', `${slow!.url}/slow`),
        webhook('cut', `${cut!.url}/cut`),
        webhook('fine', `${ok!.url}/fine`),
      ],
    },
  });
  core.writeKey = 'wk_web';
  handlers = createHandlers(core);
  core.bus.on('issues.retryProgress', (p) => progress.push(p));
  await post(core, '/v1/track', { userId: 'u', messageId: 'm1', event: 'Order Completed' });
  await until(() => shop.received.length === 1);
  await post(core, '/v1/batch', { batch: [{ type: 'track', userId: 'u', messageId: 'm2', event: 'Order Completed' }, { type: 'track', userId: 'u', messageId: 'm3', event: 'Signup' }] });
  await until(() => core.messages.list().length === 3 && core.messages.list().every((m) => core.deliveries.forMessage(m.id).every((d) => d.status !== 'pending')), 20_000, 'every delivery tried once');
  await core.delivery.idle();
}, 60_000);

afterAll(async () => {
  await core?.dispose();
  await Promise.all(receivers.map((r) => r.close()));
});

const list = async (state: 'open' | 'closed' | 'all' = 'open') => (await callOk(handlers, 'issues.list', { state })).issues;
const named = (issues: IssueView[], name: string) => issues.filter((i) => i.destinationName === name);
const destinationId = (name: string) => core.destinations.byName(name)!.id;
const byMessageId = (messageId: string) => core.messages.list().find((m) => m.messageId === messageId)!.id;

/** The store's answer: messages with a failed or retrying delivery to the destination. */
function openMessages(name: string): number[] {
  const id = destinationId(name);
  return core.messages
    .list()
    .filter((m) => core.deliveries.forMessage(m.id).some((d) => d.destinationId === id && (d.status === 'failed' || d.status === 'retrying')))
    .map((m) => m.id)
    .sort((a, b) => a - b);
}

/** The messages a group's query lists in the stream (messages.list, the inspector's read). */
async function listed(issue: IssueView): Promise<number[]> {
  const page = await callOk(handlers, 'messages.list', { search: issue.query, limit: 1000 });
  return page.messages.map((m) => m.id).sort((a, b) => a - b);
}

async function finished(jobId: number): Promise<IssueRetryProgress[]> {
  await until(() => progress.some((p) => p.jobId === jobId && p.state !== 'running' && p.state !== 'counting'), 20_000, `retry job ${jobId} to end`);
  return progress.filter((p) => p.jobId === jobId);
}

describe('Issues', () => {
  it('groups failed and retrying deliveries by destination, URL, status and error kind, with counts and first/last seen', async () => {
    const issues = await list();
    const key = (i: IssueView) => ({ destination: i.destinationName, url: i.url, status: i.status, errorKind: i.errorKind, failed: i.failed, retrying: i.retrying, open: i.open, seen: i.seen });
    const shopUrl = core.destinations.byName('shop')!.webhooks[0]!.url;
    expect(issues.map(key).sort((a, b) => a.destination.localeCompare(b.destination))).toEqual([
      { destination: 'crm', url: `${crm.url}/crm`, status: 400, errorKind: 'http_4xx', failed: 3, retrying: 0, open: 3, seen: 3 },
      { destination: 'cut', url: expect.stringMatching(/\/cut$/), status: null, errorKind: 'connection_reset', failed: 0, retrying: 3, open: 3, seen: 3 },
      { destination: 'down', url: expect.stringMatching(/\/down$/), status: null, errorKind: 'connection_refused', failed: 0, retrying: 3, open: 3, seen: 3 },
      { destination: 'nowhere', url: 'http://sluice-issues-test.invalid/hook', status: null, errorKind: 'dns', failed: 0, retrying: 3, open: 3, seen: 3 },
      { destination: 'shop', url: shopUrl, status: 503, errorKind: 'http_5xx', failed: 0, retrying: 2, open: 2, seen: 2 },
      { destination: 'slow', url: expect.stringMatching(/\/slow$/), status: null, errorKind: 'timeout', failed: 0, retrying: 3, open: 3, seen: 3 },
    ]);
    for (const issue of issues) {
      expect(issue).toMatchObject({ firstSeen: now, lastSeen: now, closedAt: null, query: `issue:${issue.id}` });
      expect(issue.error.length).toBeGreaterThan(0);
      expect(await callOk(handlers, 'issues.get', { id: issue.id })).toEqual(issue);
    }
    expect((await callOk(handlers, 'issues.list', { state: 'open', destinationId: destinationId('crm') })).issues.map((i) => i.destinationName)).toEqual(['crm']);
    expect(await list('closed')).toEqual([]);
  });

  it("lists exactly a group's messages with its query, as the store holds them", async () => {
    for (const issue of await list()) expect(await listed(issue), issue.destinationName).toEqual(openMessages(issue.destinationName));
    // shop's group holds m2 and m3, not m1 (delivered to shop, though failed elsewhere).
    const [group] = named(await list(), 'shop');
    expect(await listed(group!)).toEqual([byMessageId('m2'), byMessageId('m3')]);
  });

  it('moves a delivery to the group of its new status, and closes the group it leaves empty', async () => {
    const [before] = named(await list(), 'shop');
    shop.fallback = { status: 500 };
    now += 60_000;
    const ids = core.messages.list().flatMap((m) => core.deliveries.forMessage(m.id).filter((d) => d.destinationId === destinationId('shop') && d.status === 'retrying').map((d) => d.id));
    await callOk(handlers, 'deliveries.retryNow', { ids });
    await until(() => ids.every((id) => core.deliveries.get(id)!.attemptCount === 2), 10_000, 'the second attempts');
    await core.delivery.idle();
    const [after] = named(await list(), 'shop');
    expect(after).toMatchObject({ status: 500, errorKind: 'http_5xx', retrying: 2, seen: 2, firstSeen: now, lastSeen: now, closedAt: null });
    expect(after!.id).not.toBe(before!.id);
    expect(await callOk(handlers, 'issues.get', { id: before!.id })).toMatchObject({ status: 503, open: 0, failed: 0, retrying: 0, closedAt: now });
    expect((await list('closed')).map((i) => i.id)).toEqual([before!.id]);
    expect(await listed(before!)).toEqual([]);
    expect(await listed(after!)).toEqual([byMessageId('m2'), byMessageId('m3')]);
  });

  it('retries a whole group with progress; it closes itself when its deliveries succeed, and the same key opens it again', async () => {
    const [group] = named(await list(), 'shop');
    shop.fallback = { status: 200 };
    now += 60_000;
    const start = await callOk(handlers, 'issues.retry', { issueId: group!.id });
    expect(start).toMatchObject({ issueId: group!.id, total: 2, done: 0, state: 'running' });
    const events = await finished(start.jobId);
    expect(events.at(-1)).toMatchObject({ state: 'finished', done: 2, total: 2, retried: 2, skipped: 0 });
    await until(() => openMessages('shop').length === 0, 10_000, "shop's deliveries delivered");
    await core.delivery.idle();
    // Closed when the store recorded the last success (the writer's time, not the test's clock).
    expect(await callOk(handlers, 'issues.get', { id: group!.id })).toMatchObject({ open: 0, closedAt: expect.any(Number), seen: 2 });
    expect(named(await list(), 'shop')).toEqual([]);
    expect((await callOk(handlers, 'issues.retries', {})).jobs[0]).toMatchObject({ jobId: start.jobId, state: 'finished', done: 2 });

    // The receiver fails again with the same status: a new failure reopens the same group.
    shop.fallback = { status: 500 };
    now += 60_000;
    await post(core, '/v1/track', { userId: 'u', messageId: 'm4', event: 'Order Completed' });
    await until(() => openMessages('shop').length === 1, 10_000, "m4's failure at shop");
    await core.delivery.idle();
    expect(named(await list(), 'shop')).toEqual([
      expect.objectContaining({ id: group!.id, status: 500, open: 1, retrying: 1, seen: 3, firstSeen: group!.firstSeen, lastSeen: now, closedAt: null }),
    ]);
    expect(await listed(group!)).toEqual([byMessageId('m4')]);
  });

  it('retries the failed deliveries a filter picks: counted first, then retried, progress up to the total', async () => {
    const [group] = named(await list(), 'crm');
    crm.fallback = { status: 200 };
    now += 60_000;
    const start = await callOk(handlers, 'issues.retry', { filter: { search: 'event:"Order Completed"' }, destinationId: destinationId('crm') });
    expect(start.state).toBe('counting');
    const events = await finished(start.jobId);
    expect(events.map((e) => e.state)).toContain('running');
    // m1, m2 and m4 are orders with a failed crm delivery; m3 is a Signup.
    expect(events.at(-1)).toMatchObject({ state: 'finished', done: 3, total: 3, retried: 3, issueId: null });
    expect(events.filter((e) => e.state === 'running').every((e) => e.total === 3)).toBe(true);
    await until(() => openMessages('crm').length === 1, 10_000, 'the three orders delivered to crm');
    await core.delivery.idle();
    expect(await callOk(handlers, 'issues.get', { id: group!.id })).toMatchObject({ open: 1, failed: 1, closedAt: null });
    expect(await listed(group!)).toEqual([byMessageId('m3')]);
    // Not another destination's: the orders' deliveries to down are still retrying.
    expect(openMessages('down')).toContain(byMessageId('m1'));
  });

  it('closes a group whose deliveries are cancelled', async () => {
    const [group] = named(await list(), 'down');
    now += 60_000;
    const ids = core.messages.list().flatMap((m) => core.deliveries.forMessage(m.id).filter((d) => d.destinationId === destinationId('down') && d.status === 'retrying').map((d) => d.id));
    expect(await callOk(handlers, 'deliveries.cancel', { ids })).toEqual({ changed: ids.length });
    expect(await callOk(handlers, 'issues.get', { id: group!.id })).toMatchObject({ open: 0, retrying: 0, closedAt: now });
  });

  it('refuses what it cannot do with a clear error', async () => {
    const missing = await invoke(handlers, 'issues.retry', { issueId: 999_999 });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('issue 999999') } });
    const bad = await invoke(handlers, 'issues.retry', { filter: { search: 'status:nope' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const query = await callOk(handlers, 'messages.list', { search: 'issue:x' }).catch((error: Error) => error.message);
    expect(query).toContain('issue takes a group');
    expect(await invoke(handlers, 'issues.retryCancel', { jobId: 424242 })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('no retry job 424242') } });
    expect(await invoke(handlers, 'issues.retryCancel', { jobId: 0 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it("closes a deleted destination's groups: nothing left there the user can act on, and not counted as open", async () => {
    // crm still holds m3's failed delivery (400), cut its three retrying ones (a reset connection).
    const [crmGroup] = named(await list(), 'crm');
    const [cutGroup] = named(await list(), 'cut');
    expect(crmGroup).toMatchObject({ failed: 1, open: 1, closedAt: null });
    expect(cutGroup).toMatchObject({ retrying: 3, open: 3, closedAt: null });
    const openBefore = (await callOk(handlers, 'issues.list', { state: 'open' })).open;
    now += 60_000;
    for (const name of ['crm', 'cut']) await callOk(handlers, 'destinations.delete', { id: destinationId(name) });
    for (const group of [crmGroup!, cutGroup!]) {
      expect(await callOk(handlers, 'issues.get', { id: group.id })).toMatchObject({
        destinationName: expect.stringContaining('(deleted #'), open: 0, failed: 0, retrying: 0, closedAt: now, seen: group.seen,
      });
      expect(await listed(group)).toEqual([]);
    }
    const open = await callOk(handlers, 'issues.list', { state: 'open' });
    expect(open.issues.map((i) => i.id)).not.toContain(crmGroup!.id);
    expect(open.issues.map((i) => i.id)).not.toContain(cutGroup!.id);
    // Other destinations' rounds go on meanwhile (a group can open or close there): the count is the open groups listed.
    expect(open.open).toBe(open.issues.length);
    expect(open.open).toBeLessThan(openBefore + 1);
    expect((await list('closed')).map((i) => i.id)).toEqual(expect.arrayContaining([crmGroup!.id, cutGroup!.id]));
    // The failed delivery stays readable as it was; a retry of the group has nothing to do.
    expect(core.deliveries.forMessage(byMessageId('m3')).find((d) => d.destinationId === crmGroup!.destinationId)).toMatchObject({ status: 'failed' });
    const job = await callOk(handlers, 'issues.retry', { issueId: crmGroup!.id });
    expect((await finished(job.jobId)).at(-1)).toMatchObject({ state: 'finished', total: 0, done: 0, retried: 0, skipped: 0 });
  });
});
