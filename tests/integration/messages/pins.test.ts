// Pins (issue 29, point 3): a pinned message stays through retention (age, count) and clears (all, one
// source, a filter) and leaves on un-pin; `pinned:true` finds the pinned ones through their partial
// index (no scan of the messages); a destination filter may not test `pinned:`; a reset forgets them.
// Real core, real SQLite file, the contract's handlers.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { compileQuery } from '../../../electron/core/store/message-query-sql.ts';
import { DatabaseSync } from '../../../electron/core/store/sqlite.ts';
import { filterQuerySchema } from '../../../shared/destination-filters.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, storedMessages, tempDir, type TestCore } from '../../helpers/core.ts';

const DAY = 86_400_000;
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

const dirs = new WeakMap<TestCore, string>();

async function start(retention: object, now?: () => number): Promise<TestCore> {
  const dataDir = tempDir('sluice-pins-');
  const config = parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }], retention }));
  const core = await startCore({ config, dataDir, ...(now ? { clock: { now } } : {}) });
  open.push({ close: async () => (await core.dispose(), fs.rmSync(dataDir, { recursive: true, force: true })) });
  dirs.set(core, dataDir);
  return Object.assign(core, { writeKey: 'wk_web' });
}

const batch = (n: number, prefix: string) => ({
  batch: Array.from({ length: n }, (_, i) => ({ type: 'track', event: `E${i % 3}`, userId: `${prefix}${i}`, messageId: `${prefix}-${i}` })),
});
const ids = (core: TestCore) => storedMessages(core).map((m) => m.id).sort((a, b) => a - b);
const listed = async (core: TestCore, search: string) =>
  (await callOk(createHandlers(core), 'messages.list', { search, limit: 1000 })).messages.map((m) => m.id).sort((a, b) => a - b);

it('a pinned message outlives retention by age and by count; un-pinned, the next pass removes it', async () => {
  let now = Date.UTC(2026, 0, 1);
  const core = await start({ maxAgeDays: 30, maxMessages: null, maxBytes: null }, () => now);
  const handlers = createHandlers(core);
  await post(core, '/v1/batch', batch(10, 'old'));
  const old = ids(core);
  expect(old).toHaveLength(10);
  expect(await callOk(handlers, 'messages.pin', { ids: [old[2]!, old[7]!], pinned: true })).toEqual({ changed: 2 });
  now += 40 * DAY;
  await post(core, '/v1/batch', batch(5, 'new'));
  const report = await core.pruner.run();
  expect(report).toMatchObject({ reason: 'maxAgeDays', messages: 8, keptPinned: 2 });
  expect(ids(core)).toEqual([old[2], old[7], ...ids(core).slice(2)]);
  expect(ids(core)).toHaveLength(7);
  // The summaries and the detail say it.
  expect((await callOk(handlers, 'messages.get', { id: old[2]! })).pinned).toBe(true);
  expect(await listed(core, 'pinned:true')).toEqual([old[2], old[7]]);

  expect(await callOk(handlers, 'messages.pin', { ids: [old[2]!], pinned: false })).toEqual({ changed: 1 });
  expect((await callOk(handlers, 'messages.get', { id: old[2]! })).pinned).toBeUndefined();
  expect(await core.pruner.run()).toMatchObject({ messages: 1, keptPinned: 1 });
  expect(ids(core)[0]).toBe(old[7]);
});

it('a pinned message outlives maxMessages', async () => {
  const core = await start({ maxAgeDays: null, maxMessages: 1000, maxBytes: null });
  await post(core, '/v1/batch', batch(500, 'a'));
  await post(core, '/v1/batch', batch(510, 'b'));
  const all = ids(core);
  expect(all).toHaveLength(1010);
  await callOk(createHandlers(core), 'messages.pin', { ids: [all[0]!], pinned: true });
  expect(await core.pruner.run()).toMatchObject({ reason: 'maxMessages', messages: 10, keptPinned: 1 });
  // The 10 oldest unpinned went; the pinned oldest stayed.
  expect(ids(core)).toEqual([all[0], ...all.slice(11)]);
});

it('clears (everything, a source, a filter) pass over pinned messages and count without them; a reset forgets them', async () => {
  const core = await start({ maxAgeDays: null, maxMessages: null, maxBytes: null });
  const handlers = createHandlers(core);
  await post(core, '/v1/batch', batch(9, 'w'));
  await post(core, '/v1/batch', batch(6, 'i'), { writeKey: 'wk_ios' });
  const all = ids(core);
  const ios = core.sources.byName('ios')!.id;
  const pinned = [all[0]!, all[4]!, all[10]!]; // two web, one ios
  await callOk(handlers, 'messages.pin', { ids: pinned, pinned: true });

  const e0 = { filter: { search: 'event:E0' } };
  const e0Unpinned = storedMessages(core).filter((m) => m.event === 'E0' && !pinned.includes(m.id)).length;
  expect((await callOk(handlers, 'storage.clear', { scope: e0, dryRun: true })).messages).toBe(e0Unpinned);
  expect((await callOk(handlers, 'storage.clear', { scope: e0 })).messages).toBe(e0Unpinned);
  expect((await callOk(handlers, 'storage.clear', { scope: { sourceId: ios }, dryRun: true })).messages).toBe(storedMessages(core).filter((m) => m.sourceId === ios).length - 1);
  await callOk(handlers, 'storage.clear', { scope: { sourceId: ios } });
  const unpinned = ids(core).length - 3;
  expect(unpinned).toBeGreaterThan(0);
  expect((await callOk(handlers, 'storage.clear', { scope: { all: true }, dryRun: true })).messages).toBe(unpinned);
  expect((await callOk(handlers, 'storage.clear', { scope: { all: true } })).messages).toBe(unpinned);
  expect(ids(core)).toEqual(pinned);
  expect(await listed(core, 'pinned:true')).toEqual(pinned);
  expect(await listed(core, '-pinned:true')).toEqual([]);

  // A reset is a clean slate: ids start again from 1, so a kept pin would mark another message.
  await core.reset();
  expect(ids(core)).toEqual([]);
  await post(core, '/v1/batch', batch(3, 'again'));
  expect(await listed(core, 'pinned:true')).toEqual([]);
});

it('pinned:true reads through the partial index, not a scan of the messages; pinned:false is -pinned:true', async () => {
  const core = await start({ maxAgeDays: null, maxMessages: null, maxBytes: null });
  await post(core, '/v1/batch', batch(30, 'q'));
  const all = ids(core);
  await callOk(createHandlers(core), 'messages.pin', { ids: [all[3]!, all[20]!], pinned: true });
  const { where, params } = compileQuery('pinned:true');
  const db = new DatabaseSync(path.join(dirs.get(core)!, DATABASE_FILE), { readOnly: true });
  const plan = (db.prepare(`EXPLAIN QUERY PLAN SELECT m.id FROM messages m WHERE ${where.join(' AND ')} ORDER BY m.id DESC LIMIT 50`).all(...params) as { detail: string }[])
    .map((r) => r.detail)
    .join('\n');
  db.close();
  expect(plan).toMatch(/USING (COVERING )?INDEX messages_pinned/);
  expect(plan).not.toMatch(/^SCAN m$/m);
  expect(await listed(core, 'pinned:true')).toEqual([all[3], all[20]]);
  expect(await listed(core, 'pinned:false')).toEqual(all.filter((id) => id !== all[3] && id !== all[20]));
  expect(await listed(core, '-pinned:true')).toEqual(await listed(core, 'pinned:false'));
  expect(await listed(core, 'Pinned:TRUE event:E0')).toEqual([all[3]].filter((id) => storedMessages(core).find((m) => m.id === id)!.event === 'E0'));
  // A value other than true or false is refused with the fix.
  const bad = await invoke(createHandlers(core), 'messages.list', { search: 'pinned:yes' });
  expect(bad.ok).toBe(false);
  expect(JSON.stringify(bad)).toContain('pinned is one of true, false');
  // Unknown ids: nothing pinned, no error.
  expect(await callOk(createHandlers(core), 'messages.pin', { ids: [99_999], pinned: true })).toEqual({ changed: 0 });
});

it("a destination filter's if may not test pinned: (a pin is made after the message arrives)", () => {
  const result = filterQuerySchema.safeParse('pinned:true type:track');
  expect(result.success).toBe(false);
  expect(result.error!.issues[0]!.message).toMatch(/^pinned: is whether you pinned the message/);
  expect(filterQuerySchema.safeParse('type:track').success).toBe(true);
});
