// SQL functions Sluice's queries call, registered on every connection that reads messages
// (store/connection.ts: connect and openReadOnly).
import { hasWords, wordText } from '../../../shared/message-query.ts';
import type { SQLInputValue, SQLOutputValue } from 'node:sqlite';
import { issueKind } from './issue-kind.ts';
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
  return hasWords(wordText(text), parsed.words, parsed.prefix) ? 1 : 0;
}

/** sluice_word_text(raw): the text the word index holds for a message (wordText). */
function sluiceWordText(raw: SQLOutputValue): SQLInputValue {
  return typeof raw === 'string' ? wordText(raw) : raw;
}

/** sluice_issue_kind(error_code, response_status, error_message, transform_run): a failed round's error kind (issue-kind.ts), for migration 24's backfill. */
function sluiceIssueKind(code: SQLOutputValue, status: SQLOutputValue, message: SQLOutputValue, transform: SQLOutputValue): SQLInputValue {
  return issueKind({
    errorCode: typeof code === 'string' ? code : null,
    status: typeof status === 'number' || typeof status === 'bigint' ? Number(status) : null,
    message: typeof message === 'string' ? message : null,
    transform: transform !== null && transform !== undefined,
  });
}

export function registerSqlFunctions(db: DatabaseSync): void {
  db.function('sluice_words', { deterministic: true, directOnly: true }, sluiceWords);
  // Not direct-only: the trigger that takes a removed message out of the word index calls it (migration
  // 14), so every connection that may delete messages has it. It reads a string, nothing else.
  db.function('sluice_word_text', { deterministic: true }, sluiceWordText);
  db.function('sluice_issue_kind', { deterministic: true, directOnly: true }, sluiceIssueKind);
}
