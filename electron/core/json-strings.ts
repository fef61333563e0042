// Reading JSON text without parsing it: where a string ends, where an object's members are written.
// Ingestion cuts a batch into its messages and drops a message's write key (ingest/batch-slices.ts); an
// export splices a stored message's members (transfer/json-text.ts).

const BACKSLASH = 92;
const QUOTE = 34;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** Index of the quote that closes the string opening at `open`; indexOf is far faster than a loop. */
export function closingQuote(text: string, open: number): number {
  let i = text.indexOf('"', open + 1);
  while (i !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
    i = text.indexOf('"', i + 1);
  }
  return text.length;
}

/** Where one top-level member of a JSON object is written: `"key"` is start..keyEnd (both quotes), `"key":value` start..end (end excluded). */
export interface MemberSpan {
  start: number;
  keyEnd: number;
  end: number;
}

/**
 * Where each member of the JSON object `text` is written, in order, duplicates included (JSON.parse
 * keeps the last). The text must be valid JSON whose value is an object (JSON.parse said so): only the
 * top level is read, strings skipped whole.
 */
export function memberSpans(text: string): MemberSpan[] {
  const spans: MemberSpan[] = [];
  let depth = 0;
  let start = -1;
  let keyEnd = -1;
  let end = -1;
  const close = () => {
    if (start >= 0) spans.push({ start, keyEnd, end });
    start = -1;
  };
  for (let i = text.indexOf('{') + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const closing = closingQuote(text, i);
      if (depth === 0 && start < 0) {
        start = i;
        keyEnd = closing;
      } else if (depth === 0) end = closing + 1;
      i = closing;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0) {
        close();
        break;
      }
      if (--depth === 0) end = i + 1;
    } else if (depth === 0) {
      if (c === COMMA) close();
      else if (c !== COLON && c !== 32 && c !== 10 && c !== 13 && c !== 9) end = i + 1; // a number, true, false or null
    }
  }
  return spans;
}
