// A note beside the store that damage was found while Sluice ran. The start check of a big store
// reads only the file's ends (integrity.ts), so damage a read or a write ran into would otherwise go
// unseen at the next start: with the note there, the start reads the whole store (quick_check) and
// refuses it if it is damaged, or removes the note if it is sound. `sluice doctor --salvage` removes
// it with the damaged file.
import fs from 'node:fs';
import path from 'node:path';

const DAMAGE_MARKER = 'store-damaged';

/** The note's path for a store file (`<dataDir>/sluice.db` → `<dataDir>/store-damaged`). */
function damageMarkerOf(file: string): string {
  return path.join(path.dirname(file), DAMAGE_MARKER);
}

/** Who wants to know when damage is noted, by store file (a running core's health: store-check/store-health.ts). */
const watchers = new Map<string, Set<(sentence: string, at: Date) => void>>();

/**
 * Notes that the store was found damaged: when and SQLite's sentence, on one line. The first note
 * stays (a damaged store answers every request with the same failure). Best effort: a folder that
 * cannot take the note (read-only, a full disk) must not hide the failure being answered. Whoever
 * watches the store is told, each time.
 */
export function markDamaged(file: string, sentence: string, at = new Date()): void {
  try {
    fs.writeFileSync(damageMarkerOf(file), `${at.toISOString()} ${sentence}\n`, { flag: 'wx', mode: 0o600 });
  } catch {
    // There already, or the folder cannot take it: the answer goes out either way.
  }
  for (const watcher of watchers.get(path.resolve(file)) ?? []) watcher(sentence, at);
}

/** Calls `watcher` whenever damage of the store `file` is noted; returns the unsubscribe. */
export function watchDamage(file: string, watcher: (sentence: string, at: Date) => void): () => void {
  const key = path.resolve(file);
  let set = watchers.get(key);
  if (!set) watchers.set(key, (set = new Set()));
  set.add(watcher);
  return () => {
    set.delete(watcher);
    if (set.size === 0) watchers.delete(key);
  };
}

/** The note's text (when and what was found), or null when there is none. */
export function readDamageMarker(file: string): string | null {
  try {
    return fs.readFileSync(damageMarkerOf(file), 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export function removeDamageMarker(file: string): void {
  fs.rmSync(damageMarkerOf(file), { force: true });
}
