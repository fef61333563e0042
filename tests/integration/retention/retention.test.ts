// Retention and clearing in a real core: the oldest messages go with their deliveries and attempts,
// never one still being delivered; the config's limits win at start, Settings' are kept; a clear asks
// (a dry run counts), lets the engine go of open deliveries, and the file shrinks. Real HTTP, SQLite, receiver.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { DatabaseSync } from '../../../electron/core/store/sqlite.ts';
import type { PruneReport } from '../../../shared/storage.ts';
import { post, startCore, storedMessages, tempDir, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { indexCaughtUp } from '../../helpers/search-index.ts';
import { until } from '../../helpers/wait.ts';

const DAY = 86_400_000;
const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function start(options: { receiver?: Receiver; retention?: object; dataDir?: string; now?: () => number; webhookTimeoutMs?: number } = {}): Promise<TestCore> {
  const config = parseConfig(
    JSON.stringify({
      sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }],
      destinations: options.receiver ? [{ name: 'hooks', sources: ['web'], webhooks: [{ url: options.receiver.url }] }] : [],
      ...(options.retention ? { retention: options.retention } : {}),
    }),
  );
  const core = await startCore({
    config,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.now ? { clock: { now: options.now } } : {}),
    webhookTimeoutMs: options.webhookTimeoutMs ?? 2000,
    // Each pass is the test's own (pruner.run()): the timer's first one, 5 s after start, could otherwise
    // land between a test's clock jump or last message and its run(), and leave that run nothing to prune.
    scheduledPrunes: false,
  });
  open.push({ close: () => core.dispose() });
  return Object.assign(core, { writeKey: 'wk_web' });
}

/** A data folder removed after the cores using it have closed. */
function folder(): string {
  const dir = tempDir();
  open.unshift({ close: async () => fs.rmSync(dir, { recursive: true, force: true }) });
  return dir;
}

const batch = (n: number, prefix: string, size = 0) => ({
  batch: Array.from({ length: n }, (_, i) => ({ type: 'track', event: `E${i % 3}`, userId: `${prefix}${i}`, messageId: `${prefix}-${i}`, properties: { pad: 'x'.repeat(size) } })),
});

describe('retention', () => {
  it('prunes messages older than maxAgeDays with their deliveries and attempts, keeps those still being delivered, and reports it', async () => {
    let now = Date.UTC(2026, 0, 1);
    const hooks = await startReceiver();
    // A long timeout: the stuck delivery's retry below stays in flight until the receiver closes (first, after the test).
    const core = await start({ receiver: hooks, now: () => now, webhookTimeoutMs: 120_000, retention: { maxAgeDays: 30, maxMessages: null, maxBytes: null } });
    open.push(hooks);
    await post(core, '/v1/batch', batch(20, 'old'));
    await hooks.waitFor(20);
    await until(() => core.deliveries.forMessages(storedMessages(core).map((m) => m.id)).size === 20 && storedMessages(core).every((m) => core.deliveries.forMessage(m.id)[0]?.status === 'delivered'), 5000, 'the deliveries');
    hooks.fallback = { status: 503 }; // the next one stays retrying
    await post(core, '/v1/track', { event: 'Stuck', userId: 'u', messageId: 'stuck' });
    await until(() => core.deliveries.forMessage(storedMessages(core).at(-1)!.id)[0]?.status === 'retrying', 5000, 'a retrying delivery');
    // 31 days on, the stuck delivery is retried by a person (Retry now: its own retry, overdue past its
    // 4-hour window, would fail without a request). It hangs: the delivery is in flight, still being
    // delivered, when the pruner runs.
    hooks.fallback = { hang: true };
    const stuck = core.deliveries.forMessage(storedMessages(core).find((m) => m.messageId === 'stuck')!.id)[0]!;
    await core.operations['delivery.hold']({ held: true }); // the engine does not look at it before the person does
    now += 31 * DAY;
    await core.operations['deliveries.retryNow']({ ids: [stuck.id] });
    await core.operations['delivery.hold']({ held: false });
    await post(core, '/v1/batch', batch(5, 'new'));
    const retried = (await hooks.waitFor(27)).filter((r) => r.body.includes('"Stuck"'));
    expect(retried).toHaveLength(2); // the 503, then the retry in flight

    const reports: PruneReport[] = [];
    core.bus.on('storage.pruned', (r) => reports.push(r));
    const report = await core.pruner.run();
    expect(report).toMatchObject({ reason: 'maxAgeDays', messages: 20, deliveries: 20, keptPending: 1 });
    expect(report!.attempts).toBeGreaterThanOrEqual(20);
    expect(reports).toHaveLength(1);
    const left = storedMessages(core).map((m) => m.messageId);
    expect(left).toEqual(['stuck', 'new-0', 'new-1', 'new-2', 'new-3', 'new-4']);
    const stats = await core.operations['storage.stats']({});
    expect(stats.lastPrune).toMatchObject({ messages: 20, reason: 'maxAgeDays' });
    expect(stats.retention).toEqual({ maxAgeDays: 30, maxMessages: null, maxBytes: null });
    expect(stats.retentionFrom).toBe('config');
  });

  it('keeps the newest maxMessages; a second pass removes nothing', async () => {
    const core = await start({ retention: { maxAgeDays: null, maxMessages: 1000, maxBytes: null } });
    for (let i = 0; i < 3; i++) await post(core, '/v1/batch', batch(500, `b${i}-`));
    expect(await core.pruner.run()).toMatchObject({ reason: 'maxMessages', messages: 500 });
    const left = storedMessages(core);
    expect(left.length).toBe(1000);
    expect(left[0]!.messageId).toBe('b1--0');
    expect(await core.pruner.run()).toBeNull();
  });

  it('over both the age and the count, removes what each asks and no more (before 2026-12-01 a slice of 500 went at once)', async () => {
    let now = Date.parse('2026-11-01T00:00:00.000Z');
    const core = await start({ retention: { maxAgeDays: 7, maxMessages: 1000, maxBytes: null }, now: () => now });
    await post(core, '/v1/batch', batch(10, 'old-'));
    now += 8 * 24 * 3_600_000; // Sluice was stopped for a week
    for (let i = 0; i < 2; i++) await post(core, '/v1/batch', batch(500, `new${i}-`));
    // 1,010 stored: the 10 old ones are over the age, and the count is over by the same 10.
    expect(await core.pruner.run()).toMatchObject({ reason: 'maxAgeDays', messages: 10 });
    const left = storedMessages(core);
    expect(left.length).toBe(1000);
    expect(left[0]!.messageId).toBe('new0--0');
    // The age asking more than the count: every old one goes (the 1,000 8 days old, the 210 4 days).
    now += 4 * 24 * 3_600_000;
    for (let i = 0; i < 2; i++) await post(core, '/v1/batch', batch(105, `more${i}-`));
    now += 4 * 24 * 3_600_000;
    expect(await core.pruner.run()).toMatchObject({ messages: 1000 });
    expect(storedMessages(core).map((m) => m.messageId)[0]).toBe('more0--0');
  });

  it('over the count by more than the age asks, removes the old ones and then only what the count is over', async () => {
    let now = Date.parse('2026-11-01T00:00:00.000Z');
    const core = await start({ retention: { maxAgeDays: 7, maxMessages: 1000, maxBytes: null }, now: () => now });
    await post(core, '/v1/batch', batch(10, 'old-'));
    now += 8 * 24 * 3_600_000;
    for (let i = 0; i < 3; i++) await post(core, '/v1/batch', batch(400, `new${i}-`));
    // 1,210 stored: 10 over the age, 210 over the count.
    expect(await core.pruner.run()).toMatchObject({ messages: 210 });
    const left = storedMessages(core);
    expect(left.length).toBe(1000);
    expect(left[0]!.messageId).toBe('new0--200');
  });

  it('prunes to maxBytes and gives the pages back to the disk (the file shrinks)', async () => {
    const dataDir = folder();
    const core = await start({ dataDir, retention: { maxAgeDays: null, maxMessages: null, maxBytes: 16 * 1024 * 1024 } });
    for (let i = 0; i < 60; i++) expect((await post(core, '/v1/batch', batch(100, `p${i}-`, 3000))).status).toBe(200);
    const before = await core.operations['storage.stats']({});
    expect(before.databaseBytes + before.walBytes).toBeGreaterThan(16 * 1024 * 1024);
    const report = await core.pruner.run();
    expect(report).toMatchObject({ reason: 'maxBytes' });
    const after = await core.operations['storage.stats']({});
    expect(after.messages).toBeLessThan(6000);
    expect(after.messages).toBeGreaterThan(3000); // only what was over, and a little more
    await until(() => fs.statSync(path.join(dataDir, DATABASE_FILE)).size <= 16.5 * 1024 * 1024, 10_000, 'the file to shrink (after a checkpoint)');
  });

  it('Settings change it (kept across a restart), and the config wins again at the next start', async () => {
    const dataDir = folder();
    const first = await start({ dataDir });
    expect(await first.operations['storage.stats']({})).toMatchObject({ retentionFrom: 'default', configured: null });
    const view = await first.operations['storage.setRetention']({ retention: { maxAgeDays: 7, maxMessages: 5000, maxBytes: null } });
    expect(view).toMatchObject({ retention: { maxAgeDays: 7, maxMessages: 5000, maxBytes: null }, retentionFrom: 'settings' });
    await first.close();
    const second = await start({ dataDir });
    expect((await second.operations['storage.stats']({})).retention.maxAgeDays).toBe(7);
    await second.close();
    const third = await start({ dataDir, retention: { maxAgeDays: 90 } });
    expect(await third.operations['storage.stats']({})).toMatchObject({ retention: { maxAgeDays: 90, maxMessages: 1_000_000 }, retentionFrom: 'config' });
    // Saved in Settings meanwhile: in use until the next start, and the page still knows the config file's wins then.
    expect(await third.operations['storage.setRetention']({ retention: { maxAgeDays: 10, maxMessages: null, maxBytes: null } })).toMatchObject({
      retentionFrom: 'settings', configured: { maxAgeDays: 90 },
    });
  });
});

describe('clear', () => {
  it('counts first, then removes one source, the filter set, or everything — open deliveries too, never sent afterwards', async () => {
    const dataDir = folder();
    const hooks = await startReceiver();
    open.push(hooks);
    hooks.fallback = { status: 503 };
    const core = await start({ dataDir, receiver: hooks, retention: { maxAgeDays: null, maxMessages: null, maxBytes: null } });
    for (const part of [0, 1]) expect((await post(core, '/v1/batch', batch(150, `w${part}`, 2000))).status).toBe(200);
    for (const part of [0, 1]) expect((await post(core, '/v1/batch', batch(100, `i${part}`, 2000), { writeKey: 'wk_ios' })).status).toBe(200);
    await hooks.waitFor(1);

    const ios = core.sources.byName('ios')!.id;
    expect(await core.operations['storage.clear']({ scope: { sourceId: ios }, dryRun: true })).toMatchObject({ messages: 200, dryRun: true });
    expect(storedMessages(core).length).toBe(500); // a dry run removes nothing
    expect(await core.operations['storage.clear']({ scope: { sourceId: ios }, dryRun: false })).toMatchObject({ messages: 200, deliveries: 0 });

    expect(await core.operations['storage.clear']({ scope: { filter: { event: 'E1' } }, dryRun: true })).toMatchObject({ messages: 100 });
    const filtered = await core.operations['storage.clear']({ scope: { filter: { event: 'E1' } }, dryRun: false });
    expect(filtered).toMatchObject({ messages: 100, deliveries: 100 });
    expect(storedMessages(core).some((m) => m.event === 'E1')).toBe(false);

    const all = await core.operations['storage.clear']({ scope: { all: true }, dryRun: false });
    expect(all.messages).toBe(200);
    expect(all.bytesFreed).toBeGreaterThan(500_000); // the pages went back to the disk
    expect(storedMessages(core, 'all')).toEqual([]);
    const sent = hooks.received.length;
    hooks.fallback = { status: 200 };
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(hooks.received.length).toBe(sent); // nothing cleared is sent afterwards
    expect((await core.operations['storage.stats']({})).lastPrune).toMatchObject({ reason: 'clear', messages: 200 });
  });

  it('clearing everything empties the search indexes too, and the file gives their pages back', async () => {
    const dataDir = folder();
    const core = await start({ dataDir, retention: { maxAgeDays: null, maxMessages: null, maxBytes: null } });
    for (let i = 0; i < 10; i++) expect((await post(core, '/v1/batch', batch(300, `s${i}-user-`, 100))).status).toBe(200);
    await indexCaughtUp(dataDir);
    const file = path.join(dataDir, DATABASE_FILE);
    const db = new DatabaseSync(file, { readOnly: true });
    open.unshift({ close: async () => db.close() });
    const indexBytes = () => Number((db.prepare("SELECT sum(pgsize) AS n FROM dbstat WHERE name IN ('messages_search_data', 'messages_text_data')").get() as { n: number }).n);
    expect(indexBytes()).toBeGreaterThan(300_000);
    // The store's size in pages, not the file's: until a checkpoint the pages may all be in the WAL.
    const before = Number((db.prepare('SELECT page_count * page_size AS n FROM pragma_page_count, pragma_page_size').get() as { n: number }).n);

    expect((await core.operations['storage.clear']({ scope: { all: true }, dryRun: false })).messages).toBe(3000);
    // A contentless index keeps what each 'delete' took out until its segments merge: without
    // emptying it, a cleared store kept most of its size (48.6 MB → 35 MB for 81,800 messages).
    expect(indexBytes()).toBeLessThan(40_000);
    await until(() => fs.statSync(file).size < before / 4, 10_000, 'the file to shrink (after a checkpoint)');
    // Indexing goes on for what comes next.
    expect((await post(core, '/v1/batch', batch(5, 'after-'))).status).toBe(200);
    await indexCaughtUp(dataDir);
    expect((await core.operations['messages.list']({ search: 'after-3', limit: 10 })).messages.map((m) => m.messageId)).toEqual(['after--3']);
  });
});
