// Migration 24 on a store of schema 23 (issue 29, point 2): the failed and retrying deliveries stored
// before it are grouped into Issues as the writer would have grouped them — webhooks answering 503
// (retrying) and 400 (failed), and a Tracking API answering 503 (a forwarded request, recorded once for
// its messages: migration 17) — with the same counts, first/last seen, errors and messages; and the
// groups live on after it: a retry of one closes it. A real core on a real SQLite file, set back to
// schema 23 by hand between two runs, real receivers on loopback, an injected clock.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { createHandlers } from '../../../electron/core/api/contract-handlers.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import type { IssueView } from '../../../shared/channels/issues.ts';
import { configFileSchema, type ConfigFile } from '../../../shared/settings.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const now = Date.parse('2026-11-20T10:00:00.000Z');
const dataDir = tempDir();
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function config(hooks: Receiver, strict: Receiver, api: Receiver): ConfigFile {
  const webhook = (name: string, r: Receiver) => ({ name, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: `${r.url}/${name}` }] });
  return configFileSchema.parse({
    sources: [{ name: 'web', writeKey: 'wk_web' }],
    destinations: [webhook('hooks', hooks), webhook('strict', strict), { name: 'api', sources: ['web'], kind: 'tracking-api', trackingApi: { url: api.url, writeKey: 'wk_api', flushMs: 0 } }],
  });
}

async function run(c: ConfigFile): Promise<TestCore> {
  const core = await startCore({ dataDir, clock: { now: () => now }, config: c });
  core.writeKey = 'wk_web';
  return core;
}

/** Each group as the list shows it, less its id, with the messageIds its query lists. */
async function groups(core: TestCore): Promise<Record<string, unknown>[]> {
  const handlers = createHandlers(core);
  const { issues } = await callOk(handlers, 'issues.list', { state: 'all' });
  const out = [];
  for (const { id: _id, query, ...issue } of issues as IssueView[]) {
    const listed = await callOk(handlers, 'messages.list', { search: query, limit: 100 });
    out.push({ ...issue, destinationId: undefined, messages: listed.messages.map((m) => m.messageId).sort() });
  }
  return out.sort((a, b) => String(a.destinationName).localeCompare(String(b.destinationName)));
}

describe('migration 24 on a store of schema 23', () => {
  it("groups the failed and retrying deliveries stored before it as the writer does, and they close when they recover", async () => {
    const [hooks, strict, api] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
    receivers.push(hooks!, strict!, api!);
    hooks!.fallback = { status: 503 };
    strict!.fallback = { status: 400 };
    api!.fallback = { status: 503 };
    const c = config(hooks!, strict!, api!);
    let core = await run(c);
    await post(core, '/v1/batch', { batch: ['a', 'b', 'c'].map((id) => ({ type: 'track', userId: 'u', event: 'Order', messageId: id })) });
    const settled = () => core.messages.list().length === 3 && core.messages.list().every((m) => core.deliveries.forMessage(m.id).every((d) => d.status === 'retrying' || d.status === 'failed'));
    await until(settled, 20_000, 'every delivery retrying or failed');
    await core.delivery.idle();
    const before = await groups(core);
    expect(before.map((g) => [g.destinationName, g.status, g.errorKind, g.retrying, g.failed, g.messages])).toEqual([
      ['api', 503, 'http_5xx', 3, 0, ['a', 'b', 'c']],
      ['hooks', 503, 'http_5xx', 3, 0, ['a', 'b', 'c']],
      ['strict', 400, 'http_4xx', 0, 3, ['a', 'b', 'c']],
    ]);
    await core.close();

    // Set back to schema 23: what migration 24 made is gone, the deliveries and attempts stay.
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE));
    db.exec(`DROP TRIGGER issue_deliveries_moved; DROP TRIGGER issue_deliveries_gone; DROP TABLE issue_deliveries; DROP TABLE issues;
      PRAGMA user_version = 23;`);
    db.close();

    core = await run(c);
    try {
      expect(await groups(core)).toEqual(before);
      // The triggers are back, and the memberships were made: a retry of a group reaches its deliveries, and it closes.
      const handlers = createHandlers(core);
      const hooksGroup = (await callOk(handlers, 'issues.list', { state: 'open', destinationId: core.destinations.byName('hooks')!.id })).issues[0]!;
      hooks!.fallback = { status: 200 };
      const job = await callOk(handlers, 'issues.retry', { issueId: hooksGroup.id });
      expect(job.total).toBe(3);
      await until(() => hooks!.received.filter((r) => r.path === '/hooks').length >= 6, 10_000, 'the three retries');
      await core.delivery.idle();
      await until(() => core.issues.get(hooksGroup.id)?.closedAt ?? undefined, 5_000, 'the group to close');
      expect(await callOk(handlers, 'issues.get', { id: hooksGroup.id })).toMatchObject({ open: 0, retrying: 0, closedAt: expect.any(Number) });
    } finally {
      await core.close();
    }
  }, 60_000);
});
