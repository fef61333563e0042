/**
 * Newline-delimited JSON, one rule for every writer and reader of Sluice (`sluice export`, `check
 * --json`, the HTTP export, the inspector's download and drop, `sluice import`, the ready line): a line
 * ends at `\n` (a `\r` before it is dropped), and nowhere else. Readers that also end lines at U+2028
 * and U+2029, as Node's readline and some editors do, would cut a line in the middle of a string, where
 * JSON.stringify writes those characters raw: so every line written has them escaped, and every line read
 * here is cut at `\n` only.
 */

const LINE_BREAKING = /[\n\r\u2028\u2029]/g;
const HAS_LINE_BREAKING = /[\n\r\u2028\u2029]/;

/**
 * JSON text made safe for one NDJSON line: U+2028 and U+2029 (which JSON allows raw only inside
 * strings) written as `\u2028` and `\u2029`, and a raw line break (which JSON allows only as whitespace
 * between tokens, as a pretty-printing client sends it) left out. `json` must be valid JSON: the value
 * read back is the same.
 */
export function lineSafe(json: string): string {
  if (!HAS_LINE_BREAKING.test(json)) return json;
  return json.replace(LINE_BREAKING, (c) => (c === '\u2028' ? '\\u2028' : c === '\u2029' ? '\\u2029' : ''));
}

/** A value as one NDJSON line (without its `\n`). */
export function ndjsonLine(value: unknown): string {
  return lineSafe(JSON.stringify(value));
}

/** A line as read: without the `\r` of a CRLF line end. */
export function withoutCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** A whole text's lines (the last one without a line end included, when it is not empty). */
export function splitLines(text: string): string[] {
  const lines = text.split('\n').map(withoutCr);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
