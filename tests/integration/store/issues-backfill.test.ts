// Migration 24 on a store of schema 23 (issue 29, point 2): the failed and retrying deliveries stored
// before it are grouped into Issues as the writer would have grouped them — webhooks answering 503
// (retrying) and 400 (failed), and a Tracking API answering 503 (a forwarded request, recorded once for
// its messages: migration 17) — with the same counts, first/last seen, errors and messages; and the
// groups live on after it: a retry of one closes it. A real core on a real SQLite file, set back to
// schema 23 by hand between two runs, real receivers on loopback, an injected clock. Migration 25 on a store
// of schema 24: issues rebuilt with AUTOINCREMENT (its groups and ids kept, the triggers working, no id
// given again after a reset), and a deleted destination's groups, left open by schema 24, closed.
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

/** The three receivers, failing as the groups need (503, 400, 503), and the config naming them. */
async function failingReceivers() {
  const [hooks, strict, api] = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
  receivers.push(hooks, strict, api);
  hooks.fallback = { status: 503 };
  strict.fallback = { status: 400 };
  api.fallback = { status: 503 };
  return { hooks, c: config(hooks, strict, api) };
}

describe('migration 24 on a store of schema 23', () => {
  it("groups the failed and retrying deliveries stored before it as the writer does, and they close when they recover", async () => {
    const { hooks, c } = await failingReceivers();
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
      ALTER TABLE deliveries DROP COLUMN body_shape; -- schema 27's
      PRAGMA user_version = 23;`);
    db.close();

    core = await run(c);
    try {
      expect(await groups(core)).toEqual(before);
      // The triggers are back, and the memberships were made: a retry of a group reaches its deliveries, and it closes.
      const handlers = createHandlers(core);
      const hooksGroup = (await callOk(handlers, 'issues.list', { state: 'open', destinationId: core.destinations.byName('hooks')!.id })).issues[0]!;
      hooks.fallback = { status: 200 };
      const job = await callOk(handlers, 'issues.retry', { issueId: hooksGroup.id });
      expect(job.total).toBe(3);
      await until(() => hooks.received.filter((r) => r.path === '/hooks').length >= 6, 10_000, 'the three retries');
      await core.delivery.idle();
      await until(() => core.issues.get(hooksGroup.id)?.closedAt ?? undefined, 5_000, 'the group to close');
      expect(await callOk(handlers, 'issues.get', { id: hooksGroup.id })).toMatchObject({ open: 0, retrying: 0, closedAt: expect.any(Number) });
    } finally {
      await core.close();
    }
  }, 60_000);
});

describe('migration 25 on a store of schema 24', () => {
  it("rebuilds issues so that no id is given twice, keeps every group and its id, and closes a deleted destination's groups", async () => {
    const dir = tempDir();
    const { hooks, c } = await failingReceivers();
    const start = async () => Object.assign(await startCore({ dataDir: dir, clock: { now: () => now }, config: c }), { writeKey: 'wk_web' });
    let core = await start();
    await post(core, '/v1/batch', { batch: ['a', 'b'].map((id) => ({ type: 'track', userId: 'u', event: 'Order', messageId: id })) });
    await until(() => core.issues.list('open', undefined).issues.reduce((n, i) => n + i.open, 0) === 6, 20_000, 'two open deliveries in each group');
    await core.delivery.idle();
    const before = core.issues.list('all', undefined).issues;
    const strictId = core.destinations.byName('strict')!.id;
    await core.close();

    // Schema 24 as it was: issues without AUTOINCREMENT (its rows and ids kept), and strict deleted as the
    // Sluice of schema 24 deleted it — its group left open. The triggers are left as they are: renamed
    // the old way (legacy_alter_table), the table keeps its name under them.
    const deletedAt = now + 1000;
    const db = new DatabaseSync(path.join(dir, DATABASE_FILE));
    db.exec(`PRAGMA legacy_alter_table = ON;
      CREATE TABLE issues_24 (
        id INTEGER PRIMARY KEY, destination_id INTEGER NOT NULL, url TEXT NOT NULL, http_status INTEGER NOT NULL, error_kind TEXT NOT NULL,
        error TEXT NOT NULL, failed INTEGER NOT NULL DEFAULT 0, retrying INTEGER NOT NULL DEFAULT 0, seen INTEGER NOT NULL DEFAULT 0,
        first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, closed_at INTEGER, UNIQUE (destination_id, url, http_status, error_kind));
      INSERT INTO issues_24 SELECT * FROM issues;
      DROP TABLE issues;
      ALTER TABLE issues_24 RENAME TO issues;
      DELETE FROM sqlite_sequence WHERE name = 'issues';
      UPDATE destinations SET deleted_at = ${deletedAt}, enabled = 0, name = name || ' (deleted #' || id || ') ' WHERE id = ${strictId};
      DELETE FROM destination_sources WHERE destination_id = ${strictId};
      ALTER TABLE deliveries DROP COLUMN body_shape; -- schema 27's
      PRAGMA user_version = 24;`);
    expect(db.prepare("SELECT sql LIKE '%AUTOINCREMENT%' AS auto FROM sqlite_master WHERE name = 'issues'").get()).toEqual({ auto: 0 });
    db.close();

    core = await start();
    try {
      const store = new DatabaseSync(path.join(dir, DATABASE_FILE), { readOnly: true });
      expect(store.prepare("SELECT sql LIKE '%AUTOINCREMENT%' AS auto FROM sqlite_master WHERE name = 'issues'").get()).toEqual({ auto: 1 });
      store.close();
      const handlers = createHandlers(core);
      const after = (await callOk(handlers, 'issues.list', { state: 'all' })).issues;
      const live = (list: IssueView[]) => list.filter((i) => i.destinationId !== strictId).map(({ destinationName: _name, ...rest }) => rest);
      expect(live(after)).toEqual(live(before));
      const [closed] = after.filter((i) => i.destinationId === strictId);
      expect(closed).toMatchObject({ destinationName: expect.stringContaining('(deleted #'), failed: 0, retrying: 0, open: 0, seen: 2, closedAt: deletedAt });
      expect((await callOk(handlers, 'issues.list', { state: 'open' })).open).toBe(2);
      expect((await callOk(handlers, 'messages.list', { search: closed!.query, limit: 10 })).messages).toEqual([]);

      // The triggers still keep the counts: a retry of hooks' group closes it.
      const hooksGroup = after.find((i) => i.destinationName === 'hooks')!;
      hooks.fallback = { status: 200 };
      await callOk(handlers, 'issues.retry', { issueId: hooksGroup.id });
      await until(() => core.issues.get(hooksGroup.id)?.closedAt ?? undefined, 10_000, "hooks' group to close");

      // After a reset, a new group takes an id never given before.
      await callOk(handlers, 'storage.reset', {});
      await post(core, '/v1/track', { userId: 'u', event: 'Order', messageId: 'c' });
      await until(() => core.issues.list('open', undefined).issues.length === 2, 10_000, 'the groups after the reset');
      const maxBefore = Math.max(...before.map((i) => i.id));
      for (const group of core.issues.list('open', undefined).issues) expect(group.id).toBeGreaterThan(maxBefore);
    } finally {
      await core.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
