// Temporary folders of one test file, removed once the whole file has run (tests/helpers/temp-dirs-setup.ts,
// vitest.config.ts setupFiles). Each test file runs in a fork of its own, so this list is that file's. A
// folder lives until the end of its file, not of its test: a test may hand it to a later step of the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];

/** A new folder under the system's temporary folder, removed after the test file. */
export function tempDir(prefix = 'sluice-test-'): string {
  return removeAfterFile(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/**
 * Removes `dir` after the test file, as a folder of tempDir's: for a temporary folder the test did not
 * make, such as one of a relay the test kills with SIGKILL (it cannot remove its own folder then).
 */
export function removeAfterFile(dir: string): string {
  made.push(dir);
  return dir;
}

/**
 * Removes every folder listed so far. The file's own afterAll hooks ran before (the setup file's hook is
 * registered first, and vitest runs afterAll hooks last-registered first), so the relays the file started
 * are closed or killed by now. A process killed just before may still be going away: the retries cover a
 * file it wrote while the folder was being emptied.
 */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}
