import fs from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'sluice.lock';

/**
 * One Sluice per data folder: two would each read the same open deliveries and send every one twice
 * (and race on ports, settings and audience syncs). The lock file holds its owner's process id; a
 * lock left by a process that is gone (killed, crashed) is taken over. Returns the release, which
 * removes the file; safe to call more than once.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = ownerOf(file);
      if (owner !== null && isRunning(owner)) {
        throw new Error(
          `another Sluice (process ${owner}) is using the data folder ${dataDir}; stop it, or give this one its own folder with --data-dir` +
            ` (if no Sluice is running, delete ${file})`,
        );
      }
      fs.rmSync(file, { force: true }); // left by a process that is gone (or unreadable): take it over
      continue;
    }
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (ownerOf(file) === process.pid) fs.rmSync(file, { force: true });
    };
  }
  throw new Error(`could not lock the data folder ${dataDir}: ${file} keeps reappearing`);
}

function ownerOf(file: string): number | null {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0); // no signal sent: only asks whether the process exists
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}
