// SQL functions Sluice's queries call, registered on every connection that reads messages
// (store/connection.ts, transfer/read-only.ts).
import { hasWords } from '../../../shared/message-query.ts';
import type { DatabaseSync } from './sqlite.ts';

/** Parsed word lists by their JSON (a query tests many rows with the same one). */
const specs = new Map<string, { words: string[]; prefix: boolean }>();

/**
 * sluice_words(text, spec): whether `text` holds the words of `spec` (store/message-query-sql.ts
 * wordsSpec) as the word index finds them — for the messages the index does not hold yet.
 */
function sluiceWords(text: unknown, spec: unknown): number {
  if (typeof text !== 'string' || typeof spec !== 'string') return 0;
  let parsed = specs.get(spec);
  if (!parsed) {
    const [prefix, ...words] = JSON.parse(spec) as [number, ...string[]];
    parsed = { words, prefix: prefix === 1 };
    if (specs.size >= 64) specs.clear();
    specs.set(spec, parsed);
  }
  return hasWords(text, parsed.words, parsed.prefix) ? 1 : 0;
}

export function registerSqlFunctions(db: DatabaseSync): void {
  db.function('sluice_words', { deterministic: true, directOnly: true }, sluiceWords);
}
