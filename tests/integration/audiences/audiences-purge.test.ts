// A deletion request with purge removes everything the audiences keep of the user (their id, trait
// values and message ids): profile rows, memberships and the syncs' record of what was sent.
// Real core, real SQLite file (read through a second connection), injected clock.
import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

it("a purge removes the user's rows from every audience table and keeps everyone else's", async () => {
  const now = Date.parse('2026-11-22T10:00:00.000Z');
  const dataDir = tempDir();
  core = await startCore({
    dataDir,
    clock: { now: () => now },
    config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] },
  } as never);
  core.writeKey = 'wk_web';
  const sourceId = core.sources.byName('web')!.id;
  const batch = ['alice', 'bob'].flatMap((userId) => [
    { type: 'identify', userId, traits: { plan: 'pro' } },
    { type: 'track', userId, event: 'Order Completed' },
  ]);
  expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
  const saved = await core.audiences.save({ sourceId, name: 'Pro Users', rule: { match: 'all', conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] } });
  const sync = await core.audiences.syncNow(saved.id);
  expect(sync).toMatchObject({ joined: 2 });

  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  const users = (table: string) =>
    (db.prepare(`SELECT DISTINCT user_id FROM ${table} ORDER BY user_id`).all() as { user_id: string }[]).map((r) => r.user_id);
  const tables = ['audience_sync_messages', 'audience_members', 'profile_users', 'profile_traits', 'profile_events'];
  try {
    for (const table of tables) expect(users(table), table).toEqual(['alice', 'bob']);

    const deletion = await core.operations['deletions.create']({ userId: 'alice', purge: true });
    expect(deletion.purgedMessages).toBe(3); // her identify, her track, the sync's identify to her

    for (const table of tables) expect(users(table), table).toEqual(['bob']);
    // What is left points only at messages that exist (and are bob's).
    const links = db.prepare('SELECT l.user_id, m.user_id AS owner FROM audience_sync_messages l LEFT JOIN messages m ON m.id = l.message_id').all();
    expect(links).toEqual([{ user_id: 'bob', owner: 'bob' }]);
    expect(core.audiences.repo.syncMessages(sync.syncId!, 0, 10).map((m) => m.userId)).toEqual(['bob']);
  } finally {
    db.close();
  }
});

it("a purge removes the profile of a user whose messages are gone already (a clear or a prune keeps profiles), and notifies that source's destinations", async () => {
  const dataDir = tempDir();
  // Parsed as a config file is (its destination's options filled in with their defaults).
  const config = parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [{ name: 'crm', sources: ['web'], webhooks: [{ url: 'http://127.0.0.1:9/crm' }] }] }));
  core = await startCore({ dataDir, config });
  core.writeKey = 'wk_web';
  const sourceId = core.sources.byName('web')!.id;
  expect((await post(core, '/v1/batch', { batch: ['alice', 'bob'].map((userId) => ({ type: 'identify', userId, traits: { email: `${userId}@example.com` } })) })).status).toBe(200);
  const saved = await core.audiences.save({ sourceId, name: 'Has Email', rule: { match: 'all', conditions: [{ kind: 'trait', trait: 'email', operator: 'exists' }] } });
  expect(await core.audiences.syncNow(saved.id)).toMatchObject({ joined: 2 });
  await core.operations['storage.clear']({ scope: { all: true }, dryRun: false });

  const preview = await core.operations['deletions.preview']({ userId: 'alice' });
  expect(preview).toMatchObject({ messages: 0, profiles: 1, sourceIds: [sourceId], audienceMemberships: 1, notifications: 1 });
  const deletion = await core.operations['deletions.create']({ userId: 'alice', purge: true });
  expect(deletion).toMatchObject({ sourceIds: [sourceId], purgedMessages: 0 });
  expect(deletion.deliveryIds).toHaveLength(1); // crm, which was sent her data before the clear

  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    for (const table of ['profile_users', 'profile_traits', 'audience_members']) {
      const users = (db.prepare(`SELECT DISTINCT user_id FROM ${table} ORDER BY user_id`).all() as { user_id: string }[]).map((r) => r.user_id);
      expect(users, table).toEqual(['bob']);
    }
    expect(db.prepare("SELECT count(*) AS n FROM profile_traits WHERE value LIKE '%alice@example.com%'").get()).toEqual({ n: 0 });
  } finally {
    db.close();
  }
});
