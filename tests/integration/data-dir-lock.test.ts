// One Sluice per data folder: a second core on the same folder would send every open delivery again.
// Real cores, real lock files; a lock left by a process that is gone is taken over.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { LOCK_FILE } from '../../electron/core/store/data-dir-lock.ts';
import { startCore, tempDir, type TestCore } from '../helpers/core.ts';

const cores: TestCore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

it('refuses a second core on a data folder in use, saying which process holds it; free again once the first closes', async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const first = await startCore({ dataDir });
  cores.push(first);
  expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
  await expect(startCore({ dataDir })).rejects.toThrow(`another Sluice (process ${process.pid}) is using the data folder ${dataDir}`);
  await first.dispose();
  cores.splice(0);
  expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
  const second = await startCore({ dataDir });
  cores.push(second);
  expect(second.sources.list().length).toBeGreaterThan(0);
});

it('takes over a lock left by a process that is gone (killed), and one it cannot read', async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${gone.stdout}\n`);
  const core = await startCore({ dataDir });
  expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
  await core.dispose();
  fs.writeFileSync(path.join(dataDir, LOCK_FILE), 'not a pid');
  const again = await startCore({ dataDir });
  await again.dispose();
  // Our own pid, but not a lock this process holds: left by an earlier process that had the same pid
  // (a container's PID 1 restarted after a crash).
  fs.writeFileSync(path.join(dataDir, LOCK_FILE), `${process.pid}\n`);
  const restarted = await startCore({ dataDir });
  cores.push(restarted);
  expect(fs.readdirSync(dataDir).filter((name) => name.startsWith(LOCK_FILE))).toEqual([LOCK_FILE]); // nothing left aside
});

it('lets go of the lock when the core fails to start', async () => {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const blocker = await startCore({ ingestPort: 0 });
  cores.push(blocker);
  const taken = Number(new URL(blocker.ingestUrl).port);
  await expect(startCore({ dataDir, ingestPort: taken })).rejects.toThrow(/in use/);
  expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
});
