// Where a round of the background check is (store-check.ts), kept beside the store as
// `<dataDir>/store-check.json` so that a restart resumes the round rather than starting over. The file
// is there only while a round is unfinished: a round that ends (sound, or damage found) removes it,
// and the next start begins a new one. Written whole and renamed over the old one: a crash leaves the
// last progress saved, never half a file.
import fs from 'node:fs';
import path from 'node:path';
import type { WalkPosition } from '../store/store-walk.ts';
import { writeWholeFile } from '../whole-file.ts';

export const PROGRESS_FILE = 'store-check.json';

export interface CheckProgress {
  startedAt: number;
  position: WalkPosition | null;
  rows: number;
  tablesChecked: number;
}

export function progressFileOf(storeFile: string): string {
  return path.join(path.dirname(storeFile), PROGRESS_FILE);
}

/** The unfinished round's progress, or null (none, or a file this version cannot read: a new round then). */
export function readProgress(storeFile: string): CheckProgress | null {
  let text: string;
  try {
    text = fs.readFileSync(progressFileOf(storeFile), 'utf8');
  } catch {
    return null;
  }
  try {
    const value = JSON.parse(text) as Partial<CheckProgress>;
    if (typeof value.startedAt !== 'number' || typeof value.rows !== 'number' || typeof value.tablesChecked !== 'number') return null;
    const position = value.position ?? null;
    if (position !== null && (typeof position.table !== 'string' || !(position.after === null || Array.isArray(position.after)))) return null;
    return { startedAt: value.startedAt, position, rows: value.rows, tablesChecked: value.tablesChecked };
  } catch {
    return null;
  }
}

/** Saves the progress; best effort (a full disk must not stop the check, which goes on from memory). */
export function saveProgress(storeFile: string, progress: CheckProgress): boolean {
  try {
    writeWholeFile(progressFileOf(storeFile), `${JSON.stringify(progress)}\n`, { durable: false });
    return true;
  } catch {
    return false;
  }
}

export function removeProgress(storeFile: string): void {
  fs.rmSync(progressFileOf(storeFile), { force: true });
}
