/**
 * A file dropped on the stream (or picked with Import…), read as text for `messages.import` — within
 * the channel's limit, or a sentence saying to use `sluice import` instead. Pure but for `File.text()`,
 * tested in Node with file-likes.
 */
import { IMPORT_MAX_CHARS } from './limits.ts';
import { formatBytes } from './storage-words.ts';

/** What the page needs of a File. */
export interface FileLike {
  name: string;
  size: number;
  text(): Promise<string>;
}

export type ReadFile = { ok: true; name: string; text: string } | { ok: false; name: string; message: string };

/** The command to run instead, with the name quoted when it needs it. */
export function importCommand(name: string, sourceName?: string): string {
  const quote = (s: string) => (/^[\w./@+-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`);
  return `sluice import ${quote(name)}${sourceName ? ` --source ${quote(sourceName)}` : ''}`;
}

export function tooBig(name: string, size: string, max = IMPORT_MAX_CHARS): string {
  return `${name} is ${size}: a file imported here may be at most ${formatBytes(max)}. Import it from a terminal instead: ${importCommand(name)}`;
}

/**
 * How a file of `bytes` compares with the limit in characters (UTF-16 units, as the contract counts
 * them): each unit comes from 1 to 3 bytes of UTF-8 (a 4-byte character makes 2 units), so a file of
 * at most `max` bytes always fits and one over 3 × `max` never does; between the two, read and count.
 */
export function sizeVerdict(bytes: number, max = IMPORT_MAX_CHARS): 'fits' | 'count' | 'too-big' {
  if (bytes <= max) return 'fits';
  if (bytes > 3 * max) return 'too-big';
  return 'count';
}

/** Reads the file as text, or says why it is not sent (empty, too big, unreadable). */
export async function readImportFile(file: FileLike, max = IMPORT_MAX_CHARS): Promise<ReadFile> {
  const { name } = file;
  const verdict = sizeVerdict(file.size, max);
  if (verdict === 'too-big') return { ok: false, name, message: tooBig(name, formatBytes(file.size), max) };
  if (file.size === 0) return { ok: false, name, message: `${name} is empty: nothing to import.` };
  let text: string;
  try {
    text = await file.text();
  } catch (error) {
    return { ok: false, name, message: `Could not read ${name}: ${error instanceof Error ? error.message : String(error)}.` };
  }
  if (text.length > max) return { ok: false, name, message: tooBig(name, `${formatBytes(file.size)} (${text.length.toLocaleString('en-US')} characters)`, max) };
  if (text.trim() === '') return { ok: false, name, message: `${name} holds only blank space: nothing to import.` };
  return { ok: true, name, text };
}

/** The file types offered by the picker (a file of another type may still be dropped: the core says what it could not read). */
export const IMPORT_ACCEPT = '.ndjson,.jsonl,.json,.har,.txt,.log,application/x-ndjson,application/json';

/** Whether a drag carries files (not text or a link dragged from the page). */
export function carriesFiles(types: Iterable<string> | undefined): boolean {
  return types !== undefined && Array.from(types).includes('Files');
}
