// Where a text stops being JSON: the offset, line and column of the first character JSON's grammar
// refuses, and the lines around it for a reader. Found by a scanner of our own rather than read from
// JSON.parse's message, whose wording changes with the engine (Node 20 says "at position N" for some
// errors and nothing for others — "Unexpected token '}', "…" is not valid JSON" —, newer ones add
// "(line L column C)"). Iterative: a body nesting a million arrays deep does not overflow the stack.

/** The place a JSON text breaks, and the text around it. */
export interface JsonErrorPlace {
  /** Offset in the text (UTF-16 units) of the first character refused; the text's length when it ends too early. */
  position: number;
  /** 1-based line (lines end at \n; a \r before it is not shown). */
  line: number;
  /** 1-based column, in characters (code points) from the line's start. */
  column: number;
  /** The error's line and up to CONTEXT_LINES before and one after it, each cut to a window around the column ("…" where cut). */
  lines: { number: number; text: string }[];
  /** Where to mark the column in the error line's `text`, in characters (0-based). */
  mark: number;
}

/** Lines shown before the error's line. */
export const CONTEXT_LINES = 2;
/** Characters of each line shown: a window around the column on a long line. */
export const LINE_WINDOW = 80;

/** The place a text that JSON.parse refused breaks; null when it is JSON after all. */
export function jsonErrorPlace(text: string): JsonErrorPlace | null {
  const position = jsonErrorOffset(text);
  if (position === null) return null;
  const lineStart = text.lastIndexOf('\n', position - 1) + 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < lineStart; i = text.indexOf('\n', i + 1)) line++;
  const column = chars(text, lineStart, position) + 1;
  // Every shown line is cut to the same window of columns, so the lines stay aligned.
  const from = Math.max(0, column - 1 - Math.floor(LINE_WINDOW / 2));
  const all = lineTexts(text, lineStart, line);
  const lines = all.map(({ number, text: whole }) => ({ number, text: cut(whole, from) }));
  return { position, line, column, lines, mark: column - 1 - from + (from > 0 ? 1 : 0) };
}

/** The lines around `line` (which starts at `lineStart`): CONTEXT_LINES before, it, one after. */
function lineTexts(text: string, lineStart: number, line: number): { number: number; text: string }[] {
  const out: { number: number; text: string }[] = [];
  let start = lineStart;
  for (let n = line; n >= 1 && n > line - CONTEXT_LINES - 1; n--) {
    out.unshift({ number: n, text: lineAt(text, start) });
    if (start === 0) break;
    start = start >= 2 ? text.lastIndexOf('\n', start - 2) + 1 : 0;
  }
  const next = text.indexOf('\n', lineStart);
  if (next !== -1) out.push({ number: line + 1, text: lineAt(text, next + 1) });
  return out;
}

/** The line starting at `start`, without its end; read no further than a window past it needs. */
function lineAt(text: string, start: number): string {
  const end = text.indexOf('\n', start);
  return text.slice(start, end === -1 ? text.length : end).replace(/\r$/, '');
}

/** Characters (code points) in text[start, end). */
function chars(text: string, start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one character.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    count++;
  }
  return count;
}

/** The UTF-16 offset of the `count`th character of `text` (its length when it has fewer). */
function offsetOf(text: string, count: number): number {
  let i = 0;
  for (let k = 0; k < count && i < text.length; k++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
}

/** The window of a line's characters from `from`, "…" where the line goes on either side. */
function cut(line: string, from: number): string {
  const start = offsetOf(line, from);
  const end = start + offsetOf(line.slice(start, start + 2 * LINE_WINDOW), LINE_WINDOW);
  return `${from > 0 && start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`;
}

const OBJECT = 1;
const ARRAY = 2;

/** The offset of the first character JSON's grammar (RFC 8259, as JSON.parse reads it) refuses; null for JSON. */
export function jsonErrorOffset(text: string): number | null {
  const n = text.length;
  const stack: number[] = [];
  let i = 0;
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
  };
  /** A string at i (its opening quote checked by the caller); the error's offset, or -1 once past it. */
  const string = (): number => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) return (i++, -1);
      if (c < 0x20) return i;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === undefined) return n;
        if (e === 'u') {
          for (let k = 2; k < 6; k++) {
            if (i + k >= n) return n;
            if (!/[0-9a-fA-F]/.test(text[i + k]!)) return i + k;
          }
          i += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e)) return i + 1;
        i += 2;
        continue;
      }
      i++;
    }
    return n;
  };
  const digits = (): boolean => {
    const start = i;
    while (i < n && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    return i > start;
  };
  const number = (): number => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (!digits()) return i;
    if (text[i] === '.') {
      i++;
      if (!digits()) return i;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!digits()) return i;
    }
    return -1;
  };
  /** A key and its colon; the error's offset, or -1. */
  const key = (): number => {
    ws();
    if (text[i] !== '"') return i;
    const bad = string();
    if (bad !== -1) return bad;
    ws();
    if (text[i] !== ':') return i;
    i++;
    return -1;
  };
  let expectValue = true;
  for (;;) {
    ws();
    if (expectValue) {
      const c = text[i];
      if (c === undefined) return n;
      if (c === '{') {
        i++;
        ws();
        if (text[i] === '}') {
          i++;
          expectValue = false;
          continue;
        }
        stack.push(OBJECT);
        const bad = key();
        if (bad !== -1) return bad;
        continue;
      }
      if (c === '[') {
        i++;
        ws();
        if (text[i] === ']') {
          i++;
          expectValue = false;
          continue;
        }
        stack.push(ARRAY);
        continue;
      }
      let bad = -1;
      if (c === '"') bad = string();
      else if (c === '-' || (c >= '0' && c <= '9')) bad = number();
      else {
        const word = c === 't' ? 'true' : c === 'f' ? 'false' : c === 'n' ? 'null' : null;
        if (word === null) return i;
        for (const expected of word) {
          if (i >= n) return n;
          if (text[i] !== expected) return i;
          i++;
        }
      }
      if (bad !== -1) return bad;
      expectValue = false;
      continue;
    }
    const top = stack.at(-1);
    if (top === undefined) return i < n ? i : null;
    const c = text[i];
    if (c === undefined) return n;
    if (c === ',') {
      i++;
      if (top === OBJECT) {
        const bad = key();
        if (bad !== -1) return bad;
      }
      expectValue = true;
      continue;
    }
    if ((top === OBJECT && c === '}') || (top === ARRAY && c === ']')) {
      stack.pop();
      i++;
      continue;
    }
    return i;
  }
}

/** JSON.parse's message without its positions and its echo of the text: what is wrong, not where. */
export function jsonProblem(message: string): string {
  if (/Unexpected end of JSON input/.test(message)) return 'it ends too early (a closing } or ] or " is missing)';
  const what = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*in JSON at position \d+/, '')
    .replace(/\s*at position \d+/, '')
    .replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '');
  return what.charAt(0).toLowerCase() + what.slice(1);
}
