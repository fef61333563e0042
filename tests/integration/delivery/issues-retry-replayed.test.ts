// A bulk retry of an Issues group sends each message once: a failure a later replay to the destination's
// webhooks superseded — failed again in its own right, or delivered — is not reopened beside it; and the
// group counts such a failure no more (the replay's own outcome is what counts). A real core, SQLite store
// and receivers on loopback.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { createHandlers } from '../../../electron/core/api/contract-handlers.ts';
import { callOk } from '../../helpers/contract.ts';
import { coreWithFailedGroup } from '../../helpers/failed-group.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
let hook: Receiver | undefined;
afterEach(async () => {
  await core?.dispose();
  await hook?.close();
});

it('reopens only the last delivery of each message and destination: no message is sent twice', async () => {
  let issueId: number;
  ({ core, hook, issueId } = await coreWithFailedGroup(3));
  const handlers = createHandlers(core);
  const idOf = (messageId: string) => core!.messages.list().find((m) => m.messageId === messageId)!.id;
  // m-0 replayed while the receiver still refuses: the replay fails too, into the same group.
  await core.operations['deliveries.replay']({ messageIds: [idOf('m-0')] });
  await until(() => core!.deliveries.forMessage(idOf('m-0')).filter((d) => d.status === 'failed').length === 2 || undefined, 10_000, 'the replay of m-0 to fail');
  // m-1 replayed once the receiver takes it: delivered.
  hook.fallback = { status: 200 };
  await core.operations['deliveries.replay']({ messageIds: [idOf('m-1')] });
  await until(() => core!.deliveries.forMessage(idOf('m-1')).some((d) => d.status === 'delivered') || undefined, 10_000, 'the replay of m-1 delivered');
  const before = hook.received.length;

  const finished: number[] = [];
  core.bus.on('issues.retryProgress', (p) => {
    if (p.state === 'finished') finished.push(p.jobId);
  });
  const job = await callOk(handlers, 'issues.retry', { issueId });
  await until(() => finished.includes(job.jobId) || undefined, 10_000, 'the retry job to finish');
  await until(() => (core!.deliveries.countByStatus().retrying ?? 0) + (core!.deliveries.countByStatus().pending ?? 0) === 0 || undefined, 10_000, 'the retried deliveries to end');
  await core.delivery.idle();
  const sent = hook.received.slice(before).map((r) => (JSON.parse(r.body) as { messageId: string }).messageId).sort();
  // Before 2026-12-01: m-0 twice (the original and its replay reopened) and m-1 again (delivered by its replay).
  expect(sent).toEqual(['m-0', 'm-2']);
  expect(job.total).toBeGreaterThanOrEqual(2);
});

it("counts a failure a replay superseded no more: the replay's outcome counts, once, and the group closes when nothing is left", async () => {
  let issueId: number;
  ({ core, hook, issueId } = await coreWithFailedGroup(3));
  const typed = await startReceiver();
  try {
    const handlers = createHandlers(core);
    const idOf = (messageId: string) => core!.messages.list().find((m) => m.messageId === messageId)!.id;
    const group = () => core!.issues.get(issueId)!;
    const listed = async () => (await callOk(handlers, 'messages.list', { search: group().query, limit: 10 })).messages.map((m) => m.messageId).sort();
    expect(group()).toMatchObject({ failed: 3, retrying: 0 });

    // m-0 replayed and delivered: its failure leaves the group (before 2026-12-01 it stayed, failed: 3).
    hook.fallback = { status: 200 };
    await core.operations['deliveries.replay']({ messageIds: [idOf('m-0')] });
    await until(() => core!.deliveries.forMessage(idOf('m-0')).some((d) => d.status === 'delivered') || undefined, 10_000, 'the replay of m-0 delivered');
    await core.delivery.idle();
    expect(group()).toMatchObject({ failed: 2, closedAt: null });
    expect(await listed()).toEqual(['m-1', 'm-2']);

    // m-1 replayed and refused again: counted once, as the replay (before: failed 3 — the original and its replay).
    hook.fallback = { status: 400, body: 'no' };
    await core.operations['deliveries.replay']({ messageIds: [idOf('m-1')] });
    await until(() => core!.deliveries.forMessage(idOf('m-1')).filter((d) => d.status === 'failed').length === 2 || undefined, 10_000, 'the replay of m-1 to fail');
    await core.delivery.idle();
    expect(group()).toMatchObject({ failed: 2 });
    expect(await listed()).toEqual(['m-1', 'm-2']);

    // m-2 replayed to a typed URL: another lane — its failure to the destination's webhooks still stands.
    await core.operations['deliveries.replay']({ messageIds: [idOf('m-2')], targetUrl: `${typed.url}/typed` });
    await until(() => typed.received.length === 1 || undefined, 10_000, 'the typed replay');
    await core.delivery.idle();
    expect(group()).toMatchObject({ failed: 2 });

    // Both replayed and delivered: the group closes.
    hook.fallback = { status: 200 };
    await core.operations['deliveries.replay']({ messageIds: [idOf('m-1'), idOf('m-2')] });
    await until(() => group().closedAt ?? undefined, 10_000, 'the group to close');
    expect(group()).toMatchObject({ failed: 0, retrying: 0 });
    expect((await callOk(handlers, 'issues.list', { state: 'open' })).open).toBe(0);
  } finally {
    await typed.close();
  }
});

it('a store whose groups counted superseded failures (schema 28) is counted again at the upgrade', async () => {
  const dataDir = tempDir();
  let issueId: number;
  ({ core, hook, issueId } = await coreWithFailedGroup(3, { dataDir }));
  try {
    const idOf = (messageId: string) => core!.messages.list().find((m) => m.messageId === messageId)!.id;
    hook.fallback = { status: 200 };
    await core.operations['deliveries.replay']({ messageIds: [idOf('m-0'), idOf('m-1')] });
    await until(() => core!.issues.get(issueId)!.failed === 1 || undefined, 10_000, 'the replays delivered');
    await core.close();
    core = undefined;

    // As schema 28 left it: the two superseded failures still members, counted, the group open.
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE));
    db.exec(`INSERT INTO issue_deliveries (delivery_id, issue_id)
        SELECT id, ${issueId} FROM deliveries WHERE status = 'failed' AND id NOT IN (SELECT delivery_id FROM issue_deliveries);
      UPDATE issues SET failed = 3 WHERE id = ${issueId};
      PRAGMA user_version = 28;`);
    db.close();

    core = await startCore({ dataDir });
    expect(core.issues.get(issueId)).toMatchObject({ failed: 1, retrying: 0, closedAt: null });
    const handlers = createHandlers(core);
    const listed = (await callOk(handlers, 'messages.list', { search: core.issues.get(issueId)!.query, limit: 10 })).messages.map((m) => m.messageId);
    expect(listed).toEqual(['m-2']);
  } finally {
    await core?.close();
    core = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

it('a retrying delivery replayed does not join its group again when its own next attempt fails', async () => {
  hook = await startReceiver();
  hook.fallback = { status: 503, body: 'busy' };
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'crm', enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: `${hook.url}/crm`, headers: {} }], options: { bodyShape: 'full', concurrency: 4 } }],
    },
  });
  core.writeKey = 'wk_web';
  await post(core, '/v1/track', { userId: 'u', event: 'Order', messageId: 'm-r' });
  const group = await until(() => core!.issues.list('open', undefined).issues.find((i) => i.retrying === 1), 10_000, 'the retrying group');
  const id = core.messages.list().find((m) => m.messageId === 'm-r')!.id;
  const [original] = core.deliveries.forMessage(id);
  const sent = hook.received.length;
  await core.operations['deliveries.replay']({ messageIds: [id] });
  await until(() => (hook!.received.length > sent && core!.deliveries.forMessage(id).every((d) => d.status === 'retrying')) || undefined, 10_000, 'the replay to retry');
  await core.delivery.idle();
  expect(core.issues.get(group.id)).toMatchObject({ retrying: 1, failed: 0 });

  // The original's next attempt fails too: it is not the message's word for the destination any more.
  const before = hook.received.length;
  await core.operations['deliveries.retryNow']({ ids: [original!.id] });
  await until(() => hook!.received.length > before || undefined, 10_000, "the original's next attempt");
  await until(() => core!.deliveries.forMessage(id).find((d) => d.id === original!.id)!.attemptCount >= 2 || undefined, 10_000, 'its result recorded');
  await core.delivery.idle();
  expect(core.issues.get(group.id)).toMatchObject({ retrying: 1, failed: 0 });
});
