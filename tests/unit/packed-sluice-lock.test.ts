// The packaging tests' shared npm pack (tests/helpers/packed-sluice.ts): a folder whose packer was killed
// mid-pack (a run stopped) is taken over by one waiting test file, rather than holding every later run
// of the same checkout for the whole wait and then failing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeOver } from '../helpers/packed-sluice.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

function packFolder(owner?: number): string {
  const dir = tempDir('sluice-pack-lock-');
  if (owner !== undefined) fs.writeFileSync(path.join(dir, 'owner.pid'), String(owner));
  fs.mkdirSync(path.join(dir, 'source'));
  return dir;
}

/** The id of a process that has ended. */
function endedPid(): number {
  const run = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  expect(run.status).toBe(0);
  return run.pid!;
}

describe('takeOver', () => {
  it('takes a folder whose packer has ended, once: the copy it left goes, the folder is this process\'s', () => {
    const dead = endedPid();
    const dir = packFolder(dead);
    expect(takeOver(dir)).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'owner.pid'), 'utf8')).toBe(String(process.pid));
    expect(fs.existsSync(path.join(dir, 'source'))).toBe(false);
    // Another waiting process that read the ended packer's id too finds it taken.
    fs.writeFileSync(path.join(dir, 'owner.pid'), String(dead));
    expect(takeOver(dir)).toBe(false);
  });

  it('leaves a folder whose packer runs, or has not written its id yet', () => {
    const running = packFolder(process.ppid);
    expect(takeOver(running)).toBe(false);
    expect(fs.existsSync(path.join(running, 'source'))).toBe(true);
    expect(takeOver(packFolder())).toBe(false);
  });
});
