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
      if (owner !== null && isHeld(owner, file)) throw inUse(owner, dataDir, file);
      takeOver(file, owner, dataDir);
      continue;
    }
    held.add(file);
    let holding = true;
    return () => {
      if (!holding) return;
      holding = false;
      held.delete(file);
      if (ownerOf(file) === process.pid) fs.rmSync(file, { force: true });
    };
  }
  throw new Error(`could not lock the data folder ${dataDir}: ${file} keeps reappearing`);
}

/** Lock files this process holds: a lock with our own pid that is not among them was left by an earlier process (a container's PID 1 restarted). */
const held = new Set<string>();

function isHeld(owner: number, file: string): boolean {
  return owner === process.pid ? held.has(file) : isRunning(owner);
}

/**
 * Moves a stale lock aside, by a rename only one process can win, and checks it was the stale one:
 * two starting at once must not both remove it (and the second remove the first one's fresh lock).
 */
function takeOver(file: string, staleOwner: number | null, dataDir: string): void {
  const aside = `${file}.${process.pid}.${Date.now()}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another process moved it first: try again
    throw error;
  }
  const moved = ownerOf(aside);
  if (moved !== staleOwner && moved !== null && isHeld(moved, file)) {
    // Between the check and the rename, another process took the lock: give it back.
    try {
      fs.linkSync(aside, file);
    } catch {
      // It is gone only if yet another process locked meanwhile: that one holds the folder now.
    }
    fs.rmSync(aside, { force: true });
    throw inUse(moved, dataDir, file);
  }
  fs.rmSync(aside, { force: true });
}

function inUse(owner: number, dataDir: string, file: string): Error {
  return new Error(
    `another Sluice (process ${owner}) is using the data folder ${dataDir}; stop it, or give this one its own folder with --data-dir` +
      ` (if no Sluice is running, delete ${file})`,
  );
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
