// examples/client-retry (docs/testing.md, "Fault injection"), run as a user runs it: node:test with
// Segment's library and sluice/testing, resolved through the package's exports to the built dist/.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

it('examples/client-retry: node --test passes (the client retries through a 503 and a drop, then delivers once)', () => {
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'examples/client-retry/retry.test.mjs'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  expect(run.stdout, run.stderr).toMatch(/# pass 2\n# fail 0/);
  expect(run.status).toBe(0);
});
