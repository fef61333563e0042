import type { DatabaseSync } from 'node:sqlite';

/** A store smaller than this is converted at start (a VACUUM of it takes a second or so); a bigger one is left to `sluice doctor --vacuum`. */
const CONVERT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Makes the store able to shrink: with `auto_vacuum = INCREMENTAL` the pages that pruning and
 * clearing free can be given back to the file system (retention/pruner.ts vacuum()); without it they
 * stay in the file, reused but never returned. A new store gets it before its first page (the only
 * time SQLite lets it be set without rewriting the file: the main connection asks for it before the
 * switch to WAL, connection.ts), or right after, with a VACUUM of nothing; an older small one is
 * rewritten once (VACUUM);
 * an older big one is left as it is, with a line saying how to convert it.
 */
export function useIncrementalVacuum(db: DatabaseSync, file: string, log: (line: string) => void = (line) => console.error(line)): void {
  const value = (pragma: string) => Number(Object.values(db.prepare(`PRAGMA ${pragma}`).get() as object)[0]);
  if (value('auto_vacuum') === 2) return;
  db.exec('PRAGMA auto_vacuum = INCREMENTAL');
  // Only a file with no page yet takes it as set; one with a header (switching to WAL writes it) needs
  // a VACUUM to apply it: instant for a new store, a rewrite for an older one.
  if (value('auto_vacuum') === 2) return;
  const bytes = value('page_count') * value('page_size');
  if (bytes > CONVERT_MAX_BYTES) {
    log(`sluice: ${file} cannot give freed space back to the disk (it predates incremental vacuum); run "sluice doctor --vacuum" once while Sluice is stopped`);
    return;
  }
  db.exec('VACUUM');
}
