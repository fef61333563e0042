/**
 * Checks the replay editor's text as the user types: a JSON object, or the first syntax error with
 * its line and column. The scanner is our own (not JSON.parse's message) because engines word their
 * errors differently and some of V8's name no position at all.
 */

export type JsonCheck =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; message: string; offset: number; line: number; column: number };

/** Nesting deeper than this is refused (it would only be a mistake in a webhook body, and keeps the scanner's stack small). */
export const MAX_DEPTH = 256;

class SyntaxProblem {
  readonly offset: number;
  readonly message: string;
  constructor(offset: number, message: string) {
    this.offset = offset;
    this.message = message;
  }
}

/** 1-based line and column of a UTF-16 offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** The text as a webhook body: a JSON object. */
export function checkJsonBody(text: string): JsonCheck {
  const problem = findSyntaxProblem(text);
  if (problem) return { ok: false, message: problem.message, offset: problem.offset, ...lineColumn(text, problem.offset) };
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const offset = text.length - text.trimStart().length;
    return { ok: false, message: 'a webhook body must be a JSON object: wrap it in { }', offset, ...lineColumn(text, offset) };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function shown(text: string, i: number): string {
  if (i >= text.length) return 'the end of the text';
  const c = text[i]!;
  if (c === '\n') return 'a line break';
  return `'${c}'`;
}

/** The first syntax error in `text` as JSON, or null when it is valid JSON. */
export function findSyntaxProblem(text: string): { offset: number; message: string } | null {
  let i = 0;
  const n = text.length;
  const fail = (offset: number, message: string): never => {
    throw new SyntaxProblem(offset, message);
  };
  const skipSpace = () => {
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) break;
    }
  };

  const string = () => {
    const start = i;
    i++; // the opening quote
    for (;;) {
      if (i >= n) fail(start, 'this string is not closed: add the closing "');
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return;
      }
      if (c === 92) {
        const e = text[i + 1];
        if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else fail(i, `\\${e ?? ''} is not a JSON escape: use \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX`);
        continue;
      }
      if (c < 0x20) fail(i, c === 10 ? 'a string cannot span lines: close it, or write the line break as \\n' : 'a control character inside a string: escape it (e.g. \\t)');
      i++;
    }
  };

  const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const number = () => {
    numberPattern.lastIndex = i;
    const match = numberPattern.exec(text);
    if (!match) fail(i, `${shown(text, i)} does not start a valid number`);
    const end = i + match![0].length;
    if (/[0-9]/.test(text[end] ?? '')) fail(i, 'a number cannot start with 0 (write 7, not 07)');
    if (text[end] === '.' || /[eE]/.test(text[end] ?? '')) fail(end, 'a decimal point or exponent must be followed by digits');
    i = end;
  };

  const value = (depth: number) => {
    skipSpace();
    if (i >= n) fail(i, 'the text ends where a value should be');
    if (depth > MAX_DEPTH) fail(i, `nesting deeper than ${MAX_DEPTH} levels`);
    const c = text[i]!;
    if (c === '{') return object(depth);
    if (c === '[') return array(depth);
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    if (c === "'") fail(i, 'JSON strings use double quotes, not single quotes');
    fail(i, `unexpected ${shown(text, i)} where a value should be (a string, number, object, array, true, false or null)`);
  };

  const object = (depth: number) => {
    i++;
    skipSpace();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      skipSpace();
      if (i >= n) fail(i, "the text ends inside an object: close it with '}'");
      if (text[i] === '}') fail(i, 'a comma before } is not allowed in JSON: remove it');
      if (text[i] !== '"') fail(i, `expected a property name in double quotes, found ${shown(text, i)}`);
      string();
      skipSpace();
      if (text[i] !== ':') fail(i, `expected ':' after the property name, found ${shown(text, i)}`);
      i++;
      value(depth + 1);
      skipSpace();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return;
      }
      fail(i, i >= n ? "the text ends inside an object: close it with '}'" : `expected ',' or '}' after the property value, found ${shown(text, i)}`);
    }
  };

  const array = (depth: number) => {
    i++;
    skipSpace();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (;;) {
      skipSpace();
      if (text[i] === ']') fail(i, 'a comma before ] is not allowed in JSON: remove it');
      value(depth + 1);
      skipSpace();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return;
      }
      fail(i, i >= n ? "the text ends inside an array: close it with ']'" : `expected ',' or ']' after the array element, found ${shown(text, i)}`);
    }
  };

  try {
    value(0);
    skipSpace();
    if (i < n) fail(i, `unexpected ${shown(text, i)} after the JSON value`);
    return null;
  } catch (error) {
    if (error instanceof SyntaxProblem) return { offset: error.offset, message: error.message };
    throw error;
  }
}
