// Profiles are folded in the background a little after messages arrive, but only when there is an
// audience to fold for. Whether there is one is asked of the store at most once per fold delay (1 s),
// not at every group commit: messages.stored comes with each, on the thread that answers ingestion.
// Real core, real SQLite file; the repo's count is counted, not replaced.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it, vi } from 'vitest';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

it('asks whether any audience exists once a second, not at each commit, and folds for one made later', async () => {
  core = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } } as never);
  core.writeKey = 'wk_web';
  const repo = core.audiences.repo;
  const count = repo.count.bind(repo);
  let asked = 0;
  repo.count = () => (asked++, count());
  const stored: unknown[] = [];
  core.bus.on('messages.stored', (event) => void stored.push(event));

  // Twenty requests, each its own commit (sent one after another, each answered once stored): one ask
  // per second they took at most (on a loaded machine they may take more than one).
  const started = performance.now();
  for (let i = 0; i < 20; i++) expect((await post(core, '/v1/track', { type: 'track', userId: `u${i}`, event: 'Opened' })).status).toBe(200);
  const tookMs = performance.now() - started;
  expect(stored.length).toBeGreaterThanOrEqual(20);
  expect(asked).toBeGreaterThanOrEqual(1);
  expect(asked).toBeLessThanOrEqual(1 + Math.floor(tookMs / 1_000));

  // An audience made now is folded for in the background after the next message, with no second wait for
  // the store to be asked again (the save tells the service).
  const sourceId = core.sources.byName('web')!.id;
  await core.audiences.save({ sourceId, name: 'Pro', rule: { match: 'all', conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] }, intervalSeconds: 3600 });
  const store = new DatabaseSync(path.join(core.dataDir, DATABASE_FILE), { readOnly: true });
  const folded = () => Number((store.prepare("SELECT value FROM settings WHERE key = 'profiles.folded_through'").get() as { value: string } | undefined)?.value ?? 0);
  expect((await post(core, '/v1/identify', { type: 'identify', userId: 'ada', traits: { plan: 'pro' } })).status).toBe(200);
  const newest = Number((store.prepare('SELECT max(id) AS id FROM messages').get() as { id: number }).id);
  try {
    await vi.waitFor(() => expect(folded()).toBe(newest), { timeout: 5_000, interval: 50 });
  } finally {
    store.close();
  }
});
