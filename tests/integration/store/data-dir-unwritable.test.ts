// A data folder Sluice cannot write: read-only (a read-only bind mount of a folder a real `sluice serve`
// filled) and on a full disk (a small tmpfs filled by another file). Mounting needs root: without it
// the tests are skipped, and the reason printed. `sluice serve` refuses in one sentence naming the
// folder and the fix, and leaves nothing of the attempt behind; `sluice export` and `sluice plan infer`
// read a store on read-only media — a store a Sluice stopped cleanly (no WAL left), and one whose Sluice
// was killed (its WAL and -shm still there) — and refuse, saying what to do, the one case SQLite cannot
// read there (a WAL without its -shm).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../../helpers/cli.ts';
import { post, tempDir } from '../../helpers/core.ts';
import { fillDisk } from '../../helpers/full-disk.ts';

const mounts: string[] = [];
let canMount = process.getuid?.() === 0;

beforeAll(() => {
  if (!canMount) {
    console.warn('data-dir-unwritable: skipped: mounting a read-only folder and a small tmpfs needs root');
    return;
  }
  const probe = tempDir('sluice-mount-probe-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe]);
  } catch (error) {
    canMount = false;
    console.warn(`data-dir-unwritable: skipped: mount failed although running as root (${(error as Error).message.split('\n')[0]})`);
  }
  fs.rmdirSync(probe);
});

afterEach(() => {
  for (const point of mounts.splice(0).reverse()) {
    execFileSync('umount', [point]);
    fs.rmdirSync(point);
  }
});

/** `dir`, seen read-only at a new mount point (a read-only bind mount: nothing may write through it). */
function readOnlyView(dir: string): string {
  // Not tempDir: a mount point is unmounted before it is removed (afterEach); tempDir's recursive removal would reach through a mount left in place.
  const point = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-ro-'));
  execFileSync('mount', ['--bind', dir, point]);
  mounts.push(point);
  execFileSync('mount', ['-o', 'remount,bind,ro', point]);
  expect(() => fs.writeFileSync(path.join(point, 'probe'), 'x')).toThrow(/EROFS/);
  return point;
}

function smallDisk(): string {
  // Not tempDir, as readOnlyView's: a mount point, unmounted before it is removed.
  const point = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-full-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', point]);
  mounts.push(point);
  return point;
}

/** A folder a real `sluice serve` stored `count` messages in, then stopped (SIGTERM) or was killed (SIGKILL). */
async function servedFolder(count: number, end: 'SIGTERM' | 'SIGKILL'): Promise<string> {
  const dataDir = tempDir('sluice-served-');
  const cli = await startCli(['--data-dir', dataDir]);
  const writeKey = cli.ready.sources[0]!.writeKey;
  for (let start = 0; start < count; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({ type: 'track', event: `Event ${(start + i) % 3}`, userId: `u-${i % 9}`, messageId: `m-${start + i}`, properties: { n: start + i } }));
    expect((await post({ ingestUrl: cli.ready.ingest, writeKey }, '/v1/batch', { batch })).status).toBe(200);
  }
  cli.child.kill(end);
  await cli.exited;
  return dataDir;
}

const listing = (dir: string) => fs.readdirSync(dir).sort();
const exportedIds = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { message: { messageId: string } }).message.messageId)
    .sort();

describe('a read-only data folder', () => {
  it.skipIf(!canMount)('sluice serve refuses naming the folder and what to do; export and plan infer read the store a stopped Sluice left', async () => {
    const served = await servedFolder(500, 'SIGTERM');
    expect(listing(served)).not.toContain('sluice.db-wal'); // a clean stop leaves no WAL: SQLite would make one (and a -shm) to read it
    const folder = readOnlyView(served);
    const before = listing(folder);

    const serve = await runCli(['serve', '--data-dir', folder, '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0']);
    expect(serve).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `sluice: the data folder ${folder} is read-only (a read-only file system): Sluice writes its lock and its store there; give it a writable folder ` +
        `with --data-dir (a copy of this one keeps its messages), or read this store as it is with "sluice export --data-dir ${folder}"\n`,
    });

    const out = path.join(tempDir('sluice-export-'), 'out.ndjson');
    const exported = await runCli(['export', '--data-dir', folder, '--out', out]);
    expect([exported.code, exported.stderr]).toEqual([0, `exported 500 messages to ${out}\n`]);
    expect(exportedIds(out)).toEqual(Array.from({ length: 500 }, (_, i) => `m-${i}`).sort());

    const inferred = await runCli(['plan', 'infer', '--data-dir', folder]);
    expect(inferred.code).toBe(0);
    expect(Object.keys((JSON.parse(inferred.stdout) as { events: object }).events).sort()).toEqual(['Event 0', 'Event 1', 'Event 2']);
    expect(listing(folder)).toEqual(before);
  });

  it.skipIf(!canMount)('export reads the WAL of a Sluice that was killed; without its -shm it refuses, saying to read a copy', async () => {
    const served = await servedFolder(300, 'SIGKILL');
    expect(fs.statSync(path.join(served, 'sluice.db-wal')).size).toBeGreaterThan(0);
    const folder = readOnlyView(served);
    const out = path.join(tempDir('sluice-export-'), 'out.ndjson');
    const exported = await runCli(['export', '--data-dir', folder, '--out', out]);
    expect([exported.code, exported.stderr]).toEqual([0, `exported 300 messages to ${out}\n`]);

    const withoutShm = tempDir('sluice-no-shm-');
    for (const name of ['sluice.db', 'sluice.db-wal']) fs.copyFileSync(path.join(served, name), path.join(withoutShm, name));
    const bare = readOnlyView(withoutShm);
    const refused = await runCli(['export', '--data-dir', bare, '--out', path.join(path.dirname(out), 'refused.ndjson')]);
    const file = path.join(bare, 'sluice.db');
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `sluice: cannot open the store ${file}: it is on a read-only folder and its WAL (sluice.db-wal, left by a Sluice that was stopped abruptly) holds writes ` +
        'not yet in the database file, which SQLite can read there only with its -shm file, and that is missing: copy the folder somewhere writable and read the copy (--data-dir COPY)\n',
    });
  });

  it.skipIf(!canMount)('a folder to be made under a read-only one: the same sentence, not ENOENT', async () => {
    const empty = tempDir('sluice-ro-parent-');
    const parent = readOnlyView(empty);
    const folder = path.join(parent, 'data');
    const serve = await runCli(['serve', '--data-dir', folder, '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0']);
    expect([serve.code, serve.stderr]).toEqual([2, `sluice: the data folder ${folder} is read-only (a read-only file system): Sluice writes its lock and its store there; give it a writable folder with --data-dir\n`]);
  });
});

describe('a full disk at start', () => {
  const sentence = (dataDir: string) =>
    `sluice: the disk holding the data folder ${dataDir} is full: Sluice cannot start, it writes its lock and its store there; free some space (or give another folder with --data-dir) and start again\n`;

  it.skipIf(!canMount)('a folder used before: the sentence names it, and no sluice.lock.<pid> is left behind; once there is room it starts', async () => {
    const disk = smallDisk();
    const dataDir = path.join(disk, 'data');
    const cli = await startCli(['--data-dir', dataDir]);
    expect(await cli.stop()).toBe(0);
    const before = listing(dataDir);
    fillDisk(path.join(disk, 'filler'));

    const serve = await runCli(['serve', '--data-dir', dataDir, '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0']);
    expect(serve).toEqual({ code: 2, stdout: '', stderr: sentence(dataDir) });
    expect(listing(dataDir)).toEqual(before);

    fs.rmSync(path.join(disk, 'filler'));
    const again = await startCli(['--data-dir', dataDir]);
    expect(await again.stop()).toBe(0);
  });

  it.skipIf(!canMount)('a new folder: the same sentence, and nothing in it but the lock file every start uses', async () => {
    const disk = smallDisk();
    fillDisk(path.join(disk, 'filler'));
    const dataDir = path.join(disk, 'data');
    const serve = await runCli(['serve', '--data-dir', dataDir, '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0']);
    expect(serve).toEqual({ code: 2, stdout: '', stderr: sentence(dataDir) });
    expect(listing(dataDir)).toEqual(['sluice-lock.db']);
  });
});
