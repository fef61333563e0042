// A prune or a clear whose search-index merge fails after messages went is still reported
// (`storage.pruned`): the pages showing those messages — their rows, the stream footer's counts, which
// add arrivals without recounting — hear of a removal only there. Real SQLite store and writer thread;
// the writer fails its merges, as a full disk or an I/O error would. And a prune whose record (the
// settings' last prune) cannot be saved is still reported, the failure logged beside it, and the count
// of removals the indexes still hold is saved all the same.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { EventBus } from '../../../electron/core/bus/event-bus.ts';
import { Pruner } from '../../../electron/core/retention/pruner.ts';
import { DATABASE_FILE, openDatabase } from '../../../electron/core/store/database.ts';
import { SourcesRepo } from '../../../electron/core/store/sources-repo.ts';
import type { WriteOp, WriteOutcome } from '../../../electron/core/writer/protocol.ts';
import { StoreWriter } from '../../../electron/core/writer/store-writer.ts';
import type { PruneReport } from '../../../shared/storage.ts';
import { tempDir } from '../../helpers/core.ts';
import { indexCaughtUp } from '../../helpers/search-index.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The store's real writer, whose search-index merges fail. */
class FailingMerges extends StoreWriter {
  override write(op: WriteOp): Promise<WriteOutcome> {
    if (op.op === 'mergeIndexes') return Promise.reject(new Error('disk I/O error'));
    return super.write(op);
  }
}

/**
 * A store of `batches` × `size` messages (indexed for search) in a fresh folder, its real writer (or
 * `Writer`), and a pruner that keeps 1,000 messages, whose reports and log lines are collected.
 */
async function setup(Writer: typeof StoreWriter, batches: number, size: number) {
  const dir = tempDir();
  const db = openDatabase(dir);
  const web = new SourcesRepo(db).upsert({ name: 'web', writeKey: 'wk_web', kind: 'web' }, 0);
  const writer = new Writer(path.join(dir, DATABASE_FILE), () => {});
  writer.setWriteKeys([['wk_web', web.id]]);
  writer.setRoutes([]);
  const bus = new EventBus();
  const reports: PruneReport[] = [];
  bus.on('storage.pruned', (report) => reports.push(report));
  const logged: string[] = [];
  const pruner = new Pruner({ db, writer, bus, clock: { now: () => Date.now() }, configured: { maxAgeDays: null, maxMessages: 1000, maxBytes: null }, log: (line) => logged.push(line) });
  cleanups.push(async () => {
    await pruner.close();
    await writer.close();
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  for (let n = 0; n < batches; n++) {
    const batch = Array.from({ length: size }, (_, i) => ({ type: 'track', userId: 'u', event: `E ${n * size + i}` }));
    await writer.submit({ body: Buffer.from(JSON.stringify({ batch })), sourceId: web.id, endpoint: 'batch', singleType: null, receivedAt: Date.now(), ip: null });
  }
  await indexCaughtUp(dir);
  return { db, writer, pruner, reports, logged };
}

it('reports what a prune and a clear removed when the merge after them fails', async () => {
  // The indexes hold 1,400: removing 400 makes a merge due.
  const { db, writer, pruner, reports, logged } = await setup(FailingMerges, 7, 200);

  // 400 went over the limit of 1,000; the merge that follows fails, and so does the pass.
  await expect(pruner.run()).rejects.toThrow('disk I/O error');
  expect(reports).toEqual([expect.objectContaining({ reason: 'maxMessages', messages: 400 })]);
  expect((db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n).toBe(1000);
  expect(logged).toEqual([expect.stringMatching(/^sluice: removed 400 messages \(over the message limit\)/)]);

  // A clear's: its messages went (here: as the clear removes them, through the writer), then the merge fails.
  const { removed } = await writer.write({ op: 'removeMessages', ids: (db.prepare('SELECT id FROM messages').all() as { id: number }[]).map((row) => row.id) });
  await expect(pruner.cleared({ messages: removed!.messages, deliveries: 0, attempts: 0 }, 1)).rejects.toThrow('disk I/O error');
  expect(reports.at(-1)).toMatchObject({ reason: 'clear', messages: 1000 });
  expect(reports).toHaveLength(2);
});

it('reports a prune whose record cannot be saved, and logs why the record is missing', async () => {
  // The indexes hold 1,050: removing 50 makes no merge due, and the 50 are counted.
  const { db, pruner, reports, logged } = await setup(StoreWriter, 6, 175);
  // The store refuses the record as a full disk would (the settings table only: the messages can still go).
  for (const when of ['INSERT', 'UPDATE']) {
    db.exec(`CREATE TRIGGER refuse_prune_record_${when} BEFORE ${when} ON settings WHEN NEW.key = 'retention.lastPrune'
      BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
  }

  const report = await pruner.run();
  expect(report).toMatchObject({ reason: 'maxMessages', messages: 50 });
  expect(reports).toEqual([expect.objectContaining({ reason: 'maxMessages', messages: 50 })]);
  expect((db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n).toBe(1000);
  expect(logged).toEqual([
    expect.stringMatching(/^sluice: removed 50 messages \(over the message limit\)/),
    'sluice: could not save the last prune in the store; what was removed stays removed: database or disk is full',
  ]);
  expect(pruner.lastPrune()).toBeNull();
  // The removals the indexes still hold are saved all the same: they decide the next merge, after a restart too.
  expect(db.prepare("SELECT value FROM settings WHERE key = 'retention.unmergedRemovals'").get()).toEqual({ value: '50' });
});
