// One Sluice per data folder: a second core on the same folder would send every open delivery again.
// Real cores, a real `sluice serve` in a child process, real lock files. The lock is SQLite's exclusive
// file lock on sluice-lock.db, which the OS lets go of when its process dies — zombie or not; sluice.lock
// holds the owner's pid as text, for older Sluices (whose lock was that file alone).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { LOCK_DB, LOCK_FILE, lockDataDir } from '../../../electron/core/store/data-dir-lock.ts';
import { startCli, type RunningCli } from '../../helpers/cli.ts';
import { startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const LOCK_MODULE = path.resolve(import.meta.dirname, '../../../electron/core/store/data-dir-lock.ts');

const cores: TestCore[] = [];
const clis: RunningCli[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const cli of clis.splice(0)) if (cli.child.exitCode === null && cli.child.signalCode === null) await cli.stop();
  for (const core of cores.splice(0)) await core.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

/** Another process tries to lock the folder: what it says (`locked` when it could, then lets go). */
function lockFromAnotherProcess(dataDir: string): string {
  const script = `import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)};
try { lockDataDir(${JSON.stringify(dataDir)})(); console.log('locked'); } catch (error) { console.log(error.message); }`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return child.stdout.trim();
}

/** A process's state letter from /proc (Linux): Z is a zombie, dead but not yet reaped by its parent. */
function procState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/** Every thread of the process has exited (its leader a zombie until reaped). */
function dead(pid: number): boolean {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).every((task) => procState(Number(task)) === 'Z');
  } catch {
    return false;
  }
}

const inUse = (pid: number, dataDir: string) => `another Sluice (process ${pid}) is using the data folder ${dataDir}`;

it('refuses a second core in the same process, saying which process holds it; other processes too; free again once the first closes', async () => {
  const dataDir = folder();
  const first = await startCore({ dataDir });
  cores.push(first);
  expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\nsqlite-lock\n`);
  await expect(startCore({ dataDir })).rejects.toThrow(inUse(process.pid, dataDir));
  // The refused attempt (its connection opened and closed in this process) left the first one's lock whole.
  expect(lockFromAnotherProcess(dataDir)).toContain(inUse(process.pid, dataDir));
  expect(() => lockDataDir(dataDir)).toThrow(inUse(process.pid, dataDir));
  expect(fs.statSync(path.join(dataDir, LOCK_DB)).mode & 0o777).toBe(0o600);
  expect(fs.statSync(path.join(dataDir, LOCK_FILE)).mode & 0o777).toBe(0o600);

  await first.dispose();
  cores.splice(0);
  expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
  expect(lockFromAnotherProcess(dataDir)).toBe('locked');
  const second = await startCore({ dataDir });
  cores.push(second);
  expect(second.sources.list().length).toBeGreaterThan(0);
});

it('a `sluice serve` holding the folder refuses a core; SIGKILLed, the folder is free at once, while it is still an unreaped zombie', async () => {
  const dataDir = folder();
  const cli = await startCli(['--data-dir', dataDir]);
  clis.push(cli);
  const pid = cli.child.pid!;
  await expect(startCore({ dataDir })).rejects.toThrow(inUse(pid, dataDir));

  cli.child.kill('SIGKILL');
  // Synchronous from here: Node reaps its children only from the event loop, so the killed process
  // stays a zombie (its parent, this process, has not waited for it) for as long as this runs.
  const linux = fs.existsSync('/proc/self/stat');
  if (linux) {
    const end = Date.now() + 5_000;
    while (!dead(pid) && Date.now() < end) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    expect(procState(pid)).toBe('Z');
  }
  const release = lockDataDir(dataDir); // the old lock (does pid N exist?) refused here: a zombie exists
  if (linux) expect(procState(pid)).toBe('Z'); // still not reaped when the lock was taken
  release();

  expect(await cli.exited).toBeNull(); // killed by the signal
  const restarted = await startCore({ dataDir });
  cores.push(restarted);
  expect(restarted.sources.list().map((s) => s.writeKey)).toEqual(cli.ready.sources.map((s) => s.writeKey));
});

it("takes over an older Sluice's text lock whose process is gone, or unreadable; refuses one whose process lives", async () => {
  const dataDir = folder();
  const file = path.join(dataDir, LOCK_FILE);
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  fs.writeFileSync(file, `${gone.stdout}\n`);
  const core = await startCore({ dataDir });
  await core.dispose();
  expect(lockFromAnotherProcess(dataDir)).toBe('locked'); // a SQLite lock now, free after the close

  fs.writeFileSync(file, 'not a pid');
  const again = await startCore({ dataDir });
  await again.dispose();

  // An older Sluice still running (here: the parent of this test process, alive) keeps the folder.
  fs.writeFileSync(file, `${process.ppid}\n`);
  await expect(startCore({ dataDir })).rejects.toThrow(inUse(process.ppid, dataDir));
  expect(fs.readFileSync(file, 'utf8')).toBe(`${process.ppid}\n`); // left as it was

  // Our own pid, but not a lock this process holds: left by an earlier process that had the same pid
  // (a container's PID 1 restarted after a crash).
  fs.writeFileSync(file, `${process.pid}\n`);
  const restarted = await startCore({ dataDir });
  cores.push(restarted);
  expect(fs.readdirSync(dataDir).filter((name) => name.startsWith('sluice.lock') || name.startsWith('sluice-lock')).sort()).toEqual([
    LOCK_DB,
    LOCK_FILE,
  ]); // nothing left aside
});

it('lets go of the lock when the core fails to start', async () => {
  const dataDir = folder();
  const blocker = await startCore({ ingestPort: 0 });
  cores.push(blocker);
  const taken = Number(new URL(blocker.ingestUrl).port);
  await expect(startCore({ dataDir, ingestPort: taken })).rejects.toThrow(/in use/);
  expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
  expect(lockFromAnotherProcess(dataDir)).toBe('locked');
});

/** The data-folder lock of the Sluice before the SQLite lock (2ed80e2), as its users still run it: a text file with the pid. */
function olderSluiceLocks(dataDir: string): string {
  const script = `import fs from 'node:fs';
const file = ${JSON.stringify(path.join(dataDir, LOCK_FILE))};
try { fs.writeFileSync(file, process.pid + '\\n', { flag: 'wx' }); console.log('locked'); }
catch (error) {
  const owner = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
  let alive = false;
  try { process.kill(owner, 0); alive = true; } catch (e) { alive = e.code === 'EPERM'; }
  console.log(alive ? 'refused: ' + owner : 'taken over from ' + owner);
}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return child.stdout.trim();
}

it('an older Sluice (text lock only) is refused while this one holds the folder', async () => {
  const dataDir = folder();
  const core = await startCore({ dataDir });
  cores.push(core);
  expect(olderSluiceLocks(dataDir)).toBe(`refused: ${process.pid}`);
  await core.dispose();
  cores.splice(0);
  expect(olderSluiceLocks(dataDir)).toBe('locked'); // released: the file is gone
});

it('a lock file a system crash left torn is made again, and the lock it then holds keeps another process out', () => {
  const dataDir = folder();
  lockDataDir(dataDir)(); // a lock file as every start leaves it
  const file = path.join(dataDir, LOCK_DB);
  const whole = fs.readFileSync(file);
  const damaged = [
    Buffer.alloc(8192, 0x5a), // not a database at all
    Buffer.concat([whole.subarray(0, 4096), Buffer.alloc(whole.length - 4096, 0xff)]), // its table's page overwritten
  ];
  for (const bytes of damaged) {
    fs.writeFileSync(file, bytes);
    const release = lockDataDir(dataDir);
    try {
      expect(lockFromAnotherProcess(dataDir)).toMatch(/^another Sluice \(process \d+\) is using the data folder/);
      expect(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).toMatch(new RegExp(`^${process.pid}\\n`));
    } finally {
      release();
    }
    expect(lockFromAnotherProcess(dataDir)).toBe('locked');
  }
});
