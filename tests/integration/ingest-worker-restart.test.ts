// The store's writer restarts when its worker dies, and says so: a worker can die after committing
// and before answering, leaving stored writes (due deliveries) nobody was told about — the core kicks
// the delivery engine on each restart (electron/core/index.ts).
import fs from 'node:fs';
import { afterEach, expect, it, vi } from 'vitest';
import { IngestPipeline } from '../../electron/core/ingest/ingest-pipeline.ts';
import { tempDir } from '../helpers/core.ts';
import { until } from '../helpers/wait.ts';

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
  const pipeline = new IngestPipeline(dir, () => {}, () => restarts++);
  await until(() => restarts >= 2, 5_000, 'two restarts');
  await pipeline.close();
  const after = restarts;
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(restarts).toBe(after); // closed: no more restarts
});
