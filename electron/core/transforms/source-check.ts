/**
 * A transform's source, read without running it: whether it compiles (a syntax error with its line and
 * column), the handler names it defines, and its version. The registry checks a file with it before
 * using it; the inspector checks an edit before saving it. Compiling runs none of the user's code.
 */
import { createHash } from 'node:crypto';
import vm from 'node:vm';
import { HANDLER_NAMES } from './sandbox.ts';

export type SourceCheck = { ok: true; handlers: string[] } | { ok: false; message: string; line: number; column: number };

export function checkTransformSource(source: string, filename: string): SourceCheck {
  try {
    new vm.Script(source, { filename });
  } catch (error) {
    return { ok: false, ...syntaxProblem(error, filename) };
  }
  return { ok: true, handlers: handlersNamed(source) };
}

/** A compile error as "SyntaxError: Unexpected token ';' (amp.js, line 2, column 13)", with its position (1-based). */
export function syntaxProblem(error: unknown, filename: string): { message: string; line: number; column: number } {
  const stack = String((error as Error)?.stack ?? error);
  const lines = stack.split('\n');
  // V8's compile errors begin "FILE:LINE", the source line, then a caret under the column.
  const line = lines[0]?.startsWith(`${filename}:`) ? Number(lines[0].slice(filename.length + 1)) : 0;
  const caret = line > 0 && lines[2] !== undefined ? lines[2].indexOf('^') : -1;
  // No caret under an empty line (the input ended there): its first column.
  const column = caret >= 0 ? caret + 1 : line > 0 && lines[1] === '' ? 1 : 0;
  const what = `${(error as Error)?.name ?? 'Error'}: ${(error as Error)?.message ?? String(error)}`;
  return { message: line > 0 ? `${what} (${filename}, line ${line}${column > 0 ? `, column ${column}` : ''})` : `${what} (${filename})`, line, column };
}

/**
 * The handler names the source defines, read from its text (comments and strings left out): a top-level
 * function or binding named so, or a property of module.exports / exports. Which of them are functions
 * is known only by running the file (the worker does).
 */
export function handlersNamed(source: string): string[] {
  // Comments, then template, single- and double-quoted strings (quotes as \x60, \x27, \x22).
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|\x60(?:\\[\s\S]|[^\\\x60])*\x60|\x27(?:\\.|[^\\\x27\n])*\x27|\x22(?:\\.|[^\\\x22\n])*\x22/g, ' ');
  return HANDLER_NAMES.filter((name) => new RegExp(`(?:function\\s*\\*?\\s*${name}\\b|\\b${name}\\s*(?:[=:(]|,|\\}))`).test(code));
}

/** A source's version: the first 12 hex digits of its SHA-256. */
export function versionOf(source: string): string {
  return createHash('sha256').update(source).digest('hex').slice(0, 12);
}
