// A full disk: a real core on a small tmpfs (mounted for the test: this needs root, and the test is
// skipped without it), the disk filled by another file. Ingestion answers 507 disk_full naming the
// folder, stores again by itself once the file is removed, and loses nothing it had accepted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { post, startCore, storedMessages, type TestCore } from '../../helpers/core.ts';
import { fillDisk } from '../../helpers/full-disk.ts';

let mountPoint: string | undefined;

beforeAll(() => {
  // Not tempDir: a mount point is unmounted before it is removed (afterAll); tempDir's recursive removal would reach through a mount left in place.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
    mountPoint = dir;
  } catch {
    fs.rmdirSync(dir); // not root, or no tmpfs here: the test below is skipped
  }
});

afterAll(() => {
  if (mountPoint === undefined) return;
  execFileSync('umount', [mountPoint]);
  fs.rmdirSync(mountPoint);
});

const batch = (tag: string, n: number) => ({
  batch: Array.from({ length: n }, (_, i) => ({ type: 'track', event: 'Filled', userId: 'u', messageId: `${tag}-${i}`, properties: { pad: 'x'.repeat(600) } })),
});

it.skipIf(process.getuid?.() !== 0)('a full disk answers 507 disk_full naming the folder; once there is room the next request is stored, and nothing accepted before is lost', async () => {
  expect(mountPoint, 'mount -t tmpfs failed although running as root').toBeDefined();
  const dataDir = path.join(mountPoint!, 'data');
  let core: TestCore | undefined = await startCore({ dataDir });
  try {
    expect((await post(core, '/v1/batch', batch('before', 20))).status).toBe(200);
    const filler = path.join(mountPoint!, 'filler');
    fillDisk(filler);
    // ~400 KB of messages: more than the WAL has room for already, so it must grow.
    for (const tag of ['full-1', 'full-2']) {
      const res = await post(core, '/v1/batch', batch(tag, 550));
      expect(res.status).toBe(507);
      expect(res.json).toEqual({
        success: false,
        error: {
          code: 'disk_full',
          message: `the disk holding ${dataDir} is full: Sluice cannot store messages until there is room; free some space or lower the retention (Settings) — it stores again by itself once there is`,
        },
      });
    }
    fs.rmSync(filler);
    expect((await post(core, '/v1/batch', batch('after', 550))).status).toBe(200);

    const tags = (stored: { messageId: string | null }[]) => new Set(stored.map((m) => m.messageId!.replace(/-\d+$/, '')));
    expect(storedMessages(core)).toHaveLength(570);
    expect(tags(storedMessages(core))).toEqual(new Set(['before', 'after']));
    await core.close();
    core = undefined;
    // After a restart too: what was accepted is on disk.
    core = await startCore({ dataDir });
    expect(storedMessages(core)).toHaveLength(570);
  } finally {
    await core?.close();
  }
});
