// The store's writer restarts when its worker dies, and says so: a worker can die after committing
// and before answering, leaving stored writes (due deliveries) nobody was told about — the core kicks
// the delivery engine on each restart (electron/core/index.ts).
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Worker } from 'node:worker_threads';
import { afterEach, expect, it, vi } from 'vitest';
import { StoreWriter } from '../../../electron/core/writer/store-writer.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { post, startCore, tempDir, waitForStored } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

it('announces each new worker that replaced a dead one, and stops restarting once closed', async () => {
  vi.spyOn(console, 'error').mockImplementation(() => {}); // the deaths are logged; expected here
  const dir = tempDir();
  dirs.push(dir);
  let restarts = 0;
  // A directory where the store file should be: every worker dies opening it.
  const pipeline = new StoreWriter(dir, () => {}, () => restarts++);
  await until(() => restarts >= 2, 5_000, 'two restarts');
  await pipeline.close();
  const after = restarts;
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(restarts).toBe(after); // closed: no more restarts
});

it('a real core reads the store again once its writer is replaced: a delivery committed but never announced is sent', async () => {
  vi.spyOn(console, 'error').mockImplementation(() => {}); // the writer's death is logged; expected here
  const hook = await receiver();
  // The core's threads, as they start: the writer is the one whose death the pipeline answers; the
  // checkpointer starts once the writer has loaded.
  const workers: Worker[] = [];
  const onWorker = (worker: Worker) => workers.push(worker);
  process.on('worker', onWorker);
  const core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: `${hook.url}/in`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
    },
  });
  try {
    await until(() => workers.length >= 2, 10_000, 'the writer and the checkpointer');
    process.off('worker', onWorker);
    core.writeKey = 'wk_web';
    const stored = waitForStored(core, 1);
    expect((await post(core, '/v1/track', { userId: 'u_1', event: 'First' })).status).toBe(200);
    const [message] = await stored;
    await hook.waitFor(1);
    await until(() => core.deliveries.forMessage(message!.id)[0]?.status === 'delivered', 5_000, 'the first delivery');
    await core.delivery.idle();

    // What a writer that died between its commit and its answer leaves behind: a due delivery the
    // engine was never told about (it holds every due row it knew of, so it reads no more until kicked).
    const side = new DatabaseSync(path.join(core.dataDir, DATABASE_FILE));
    side.exec('PRAGMA busy_timeout = 5000');
    const now = Date.now();
    const destinationId = core.destinations.list()[0]!.id;
    side
      .prepare(`INSERT INTO deliveries (message_id, destination_id, trigger, status, next_attempt_at, created_at, updated_at) VALUES (?, ?, 'replay', 'pending', ?, ?, ?)`)
      .run(message!.id, destinationId, now, now, now);
    side.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(1); // not read: nothing told the engine

    // The core's threads (the writer and the checkpointer) die: the pipeline replaces the writer and
    // the core kicks the engine; the checkpointer's death only hands checkpoints back to SQLite.
    expect(workers.length).toBeGreaterThanOrEqual(2);
    await Promise.all(workers.map((worker) => worker.terminate()));
    const [, again] = await hook.waitFor(2, 10_000);
    expect(JSON.parse(again!.body)).toMatchObject({ type: 'track', event: 'First' });
  } finally {
    process.off('worker', onWorker);
    await core.dispose();
  }
});
