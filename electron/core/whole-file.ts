// Writing a small file so that a reader — Sluice's own file watchers, an editor, the next start — sees
// the old text or the new, never half of one: the text goes to a temporary file in the same folder (a
// rename does not cross file systems), then replaces the file. Used for tracking plans, transforms, the
// inspector's token and the store check's progress.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface WholeFileOptions {
  /** The mode a new file is created with (the umask applies); default owner-only. */
  mode?: number;
  /** Flushed to disk before the rename, so that a crash leaves one text or the other (default true). */
  durable?: boolean;
  /** An existing file keeps its permissions, and a symbolic link stays a link to the file written (default false). */
  keepFile?: boolean;
}

/** Writes `text` to `file` whole or not at all; throws the file system's error, leaving no temporary file behind. */
export function writeWholeFile(file: string, text: string, options: WholeFileOptions = {}): void {
  let target = file;
  let kept: number | undefined;
  if (options.keepFile) {
    try {
      target = fs.realpathSync(file);
      kept = fs.statSync(target).mode & 0o7777;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = fs.openSync(temporary, 'wx', kept ?? options.mode ?? 0o600);
    try {
      fs.writeFileSync(fd, text);
      if (kept !== undefined) fs.fchmodSync(fd, kept); // the umask narrowed the mode given to open
      if (options.durable ?? true) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
