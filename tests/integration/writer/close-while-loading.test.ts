// A relay closed right after its start does not wait for its threads to finish loading: close()
// cancels a thread still loading (the store's writer, the checkpointer, the store check) when nothing
// was handed to it to store, and still waits for every accepted write otherwise. The threads' loading
// is held at a gate (worker-options.ts LoadGate) so that "still loading" is a state the test sees, not a
// race it times. Real threads, real SQLite files, real HTTP.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Worker } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import { createCore } from '../../../electron/core/index.ts';
import { StoreCheck } from '../../../electron/core/store-check/store-check.ts';
import { DATABASE_FILE, openDatabase } from '../../../electron/core/store/database.ts';
import { LoadGate } from '../../../electron/core/worker-options.ts';
import { StoreWriter } from '../../../electron/core/writer/store-writer.ts';
import { post, storedMessages, tempDir } from '../../helpers/core.ts';
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

/** Opens the gate once the test is over, whatever happened (a thread left at it would hold the process). */
function gate(): LoadGate {
  const made = new LoadGate();
  cleanup.push(() => made.open());
  return made;
}

/** A few turns of the event loop (messages from threads, timers of 0) — not a timing. */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

function integrity(dataDir: string): string {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    return (db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check;
  } finally {
    db.close();
  }
}

it('close() right after a start cancels the threads still loading, and the folder is sound and reusable', async () => {
  const dataDir = folder();
  const held = gate();
  // A first run stores a message, so that the cancelled run has something to keep.
  const first = await createCore({ dataDir, ingestPort: 0, receiverPort: 0 });
  const writeKey = first.sources.list()[0]!.writeKey;
  expect((await post({ ingestUrl: first.ingestUrl, writeKey }, '/v1/track', { userId: 'u1', event: 'Before', messageId: 'm-before' })).status).toBe(200);
  await first.close();

  const threads: Worker[] = [];
  const exited: Promise<unknown>[] = [];
  const onThread = (thread: Worker) => {
    threads.push(thread);
    exited.push(new Promise((resolve) => thread.once('exit', resolve)));
  };
  process.on('worker', onThread);
  cleanup.push(() => {
    process.off('worker', onThread);
  });
  const core = await createCore({ dataDir, ingestPort: 0, receiverPort: 0, loadGate: held });
  await until(() => held.reached >= 1, 10_000, 'the writer held in its loading');
  await core.close(); // today's close() waits for the writer to load: with its loading held, never
  expect(held.passed).toBe(0); // resolved while the writer was still loading
  expect(threads).toHaveLength(1); // the writer alone: the checkpointer starts once the writer has loaded
  // The writer had not opened the store, and never does: the main connection closed last and took the
  // WAL away, and the thread ends (ended by close(), or by itself once past the gate).
  expect(fs.existsSync(path.join(dataDir, `${DATABASE_FILE}-wal`))).toBe(false);
  held.open();
  await Promise.all(exited);

  // The lock is released, the store sound, what the first run stored is there, and a new start writes.
  expect(integrity(dataDir)).toBe('ok');
  const next = await createCore({ dataDir, ingestPort: 0, receiverPort: 0 });
  try {
    expect((await post({ ingestUrl: next.ingestUrl, writeKey }, '/v1/track', { userId: 'u1', event: 'After', messageId: 'm-after' })).status).toBe(200);
    expect(storedMessages(next).map((m) => m.messageId)).toEqual(['m-before', 'm-after']);
  } finally {
    await next.close();
  }
});

it('the checkpointer starts once the writer has loaded, and a close() then leaves the store checkpointed', async () => {
  const dataDir = folder();
  const held = gate();
  const core = await createCore({ dataDir, ingestPort: 0, receiverPort: 0, loadGate: held });
  await until(() => held.reached >= 1, 10_000, 'the writer held in its loading');
  held.open(); // the writer loads; the checkpointer it starts finds the gate open too
  await until(() => held.passed >= 2, 10_000, 'the writer and then the checkpointer loaded');
  await core.close();
  expect(fs.existsSync(path.join(dataDir, `${DATABASE_FILE}-wal`))).toBe(false); // checkpointed and removed at close
  expect(integrity(dataDir)).toBe('ok');
});

it('start → close → start on one folder, again and again, keeps every message written in between', async () => {
  const dataDir = folder();
  const sent: string[] = [];
  let writeKey = '';
  for (let round = 0; round < 12; round++) {
    const core = await createCore({ dataDir, ingestPort: 0, receiverPort: 0 });
    writeKey ||= core.sources.list()[0]!.writeKey;
    // Every other round sends (and closes at once after the answer); the others close at once after the start.
    if (round % 2 === 1) {
      const messageId = `m-${round}`;
      expect((await post({ ingestUrl: core.ingestUrl, writeKey }, '/v1/track', { userId: 'u1', event: 'Round', messageId })).status).toBe(200);
      sent.push(messageId);
    }
    await core.close();
  }
  expect(integrity(dataDir)).toBe('ok');
  const last = await createCore({ dataDir, ingestPort: 0, receiverPort: 0 });
  try {
    expect(storedMessages(last).map((m) => m.messageId)).toEqual(sent);
  } finally {
    await last.close();
  }
});

it('close() while the writer is still loading, with a request handed to it, waits for it to load and commit', async () => {
  const dir = folder();
  const db = openDatabase(dir);
  cleanup.push(() => db.close());
  db.exec(`INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'web', 'wk_web', 'web', 0)`);
  const held = gate();
  const writer = new StoreWriter(path.join(dir, DATABASE_FILE), () => {}, undefined, { gate: held.cells });
  await until(() => held.reached >= 1, 10_000, 'the writer held in its loading');
  const stored = writer.submit({ body: Buffer.from(JSON.stringify({ userId: 'u1', event: 'Accepted', messageId: 'm-1' })), sourceId: 1, endpoint: 'track', singleType: 'track', receivedAt: Date.now(), ip: null });
  let closed = false;
  const closing = writer.close().then(() => (closed = true));
  await turns();
  expect(closed).toBe(false); // the request is the writer's: close() does not cancel it
  held.open();
  await closing;
  const committed = await stored;
  expect(held.passed).toBe(1);
  const rows = db.prepare('SELECT id, message_id FROM messages').all() as { id: number; message_id: string }[];
  expect(rows).toEqual([{ id: committed.ids[0], message_id: 'm-1' }]);
});

it("the store check's thread, still loading when Sluice stops, is not waited for", async () => {
  const dir = folder();
  const db = openDatabase(dir);
  db.close();
  const held = gate();
  const check = new StoreCheck({
    file: path.join(dir, DATABASE_FILE),
    clock: { now: () => Date.now() },
    writer: { lastCommitAt: -Infinity },
    checkedAtStart: false,
    onFound: () => {},
    onState: () => {},
    timing: { startAfterMs: 0 },
    log: () => {},
    gate: held.cells,
  });
  check.start();
  await until(() => held.reached >= 1, 10_000, "the check's thread held in its loading");
  expect(check.view().state).toBe('checking'); // its first slice is out, to a thread not loaded yet
  await check.close();
  held.open();
  await turns();
  expect(held.passed).toBe(0); // ended at the gate, not let load and read its slice
  expect(integrity(dir)).toBe('ok');
});
