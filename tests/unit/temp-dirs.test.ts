// The suite's temporary folders (tests/helpers/temp-dirs.ts): a test file, run by vitest with the project's
// config, keeps its folders until its own afterAll hooks have run, then they are gone, the folder of a relay
// it killed with SIGKILL too.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dirs.ts';

const root = path.resolve(import.meta.dirname, '../..');

it('removes the folders a test file made once the file has run, not before', () => {
  const report = path.join(tempDir('sluice-temp-dirs-report-'), 'report.txt');
  const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'tests/fixtures/temp-dirs/vitest.config.ts', 'tests/fixtures/temp-dirs/'], {
    cwd: root,
    env: { ...process.env, SLUICE_TEMP_DIRS_REPORT: report, FORCE_COLOR: '0', NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 50_000,
  });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(run.stdout).toMatch(/Tests\s+3 passed \(3\)/);
  const lines = fs.readFileSync(report, 'utf8').trim().split('\n');
  expect(lines).toHaveLength(3);
  const kept = lines[0]!.replace(/^kept /, '');
  const killed = lines[1]!.replace(/^killed /, '');
  expect(path.basename(kept)).toMatch(/^sluice-temp-dirs-/);
  expect(path.basename(killed)).toMatch(/^sluice-ephemeral-/);
  expect(lines[2]).toBe('afterAll sees kept: true'); // the file's own afterAll ran before the removal
  expect(fs.existsSync(kept)).toBe(false);
  expect(fs.existsSync(killed)).toBe(false);
});
