// A test suite starts relay after relay in one process (sluice/testing): each relay's first message
// waited for a new writer thread to load its code (Node's start of a thread, then the writer's modules),
// most of what such a relay costs. With `spare`, the writer keeps one thread loaded for the next writer
// of the process, which tells it which store to open. Real threads, real SQLite files, real HTTP.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Worker } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import { createCore } from '../../../electron/core/index.ts';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { DATABASE_FILE, databaseFile, openDatabase } from '../../../electron/core/store/database.ts';
import { StoreWriter } from '../../../electron/core/writer/store-writer.ts';
import { post, tempDir } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

function folder(): string {
  const dir = tempDir();
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function messageIds(dataDir: string): string[] {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    return (db.prepare('SELECT message_id AS messageId FROM messages ORDER BY id').all() as { messageId: string }[]).map((row) => row.messageId);
  } finally {
    db.close();
  }
}

it('a writer keeping a spare starts it beside its own thread, and the next writer takes it instead of starting one', async () => {
  const created: Worker[] = [];
  const onWorker = (worker: Worker) => created.push(worker);
  process.on('worker', onWorker);
  cleanup.push(() => void process.off('worker', onWorker));
  const stores = [folder(), folder()].map((dir) => (openDatabase(dir, { durable: false }).close(), databaseFile(dir)));

  const first = new StoreWriter(stores[0]!, () => {}, undefined, { durable: false, spare: true });
  cleanup.push(() => first.close());
  // Its own thread, and a spare loading meanwhile (process 'worker' events come a turn later).
  await until(() => created.length >= 2, 10_000, 'a second thread beside the first writer');
  expect(created[0]!.threadId).toBe(first.threadId);
  const spare = created[1]!.threadId;

  const second = new StoreWriter(stores[1]!, () => {}, undefined, { durable: false, spare: true });
  cleanup.push(() => second.close());
  expect(second.threadId).toBe(spare); // the thread started before it
  await until(() => created.length >= 3, 10_000, 'the next spare');
  expect(created).toHaveLength(3);
});

it('relays started one after another store each message in their own store, through the spare thread', async () => {
  const dirs = [folder(), folder(), folder()];
  for (const [i, dataDir] of dirs.entries()) {
    const config = parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: `wk_web_${i}` }] }));
    const core = await createCore({ dataDir, ingestPort: 0, receiverPort: 0, durable: false, spareWriter: true, config });
    try {
      const relay = { ingestUrl: core.ingestUrl, writeKey: `wk_web_${i}` };
      expect((await post(relay, '/v1/track', { userId: 'u', event: 'E', messageId: `m-${i}` })).status).toBe(200);
      // A write key in the body is looked up by the writer thread: the spare got this relay's keys, not the last one's.
      expect((await post(relay, '/v1/track', { writeKey: `wk_web_${i}`, userId: 'u', event: 'E', messageId: `k-${i}` }, { writeKey: null })).status).toBe(200);
      if (i > 0) expect((await post(relay, '/v1/track', { writeKey: `wk_web_${i - 1}`, userId: 'u', event: 'E', messageId: `old-${i}` }, { writeKey: null })).status).toBe(401);
    } finally {
      await core.close();
    }
  }
  for (const [i, dataDir] of dirs.entries()) expect(messageIds(dataDir).filter((id) => /^[mk]-/.test(id ?? ''))).toEqual([`m-${i}`, `k-${i}`]);
});
