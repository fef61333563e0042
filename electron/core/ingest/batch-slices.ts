import { closingQuote, memberSpans } from '../json-strings.ts';

const QUOTE = 34;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const COLON = 58;

/** Whether the key string from `open` to `close` (its quotes) reads "batch", escapes decoded. */
function isBatchKey(text: string, open: number, close: number): boolean {
  if (close - open === 6) return text.startsWith('"batch"', open);
  // Escaped spellings are longer; the document is valid JSON, so the key decodes.
  if (close - open < 6) return false;
  const key = text.slice(open, close + 1);
  return key.includes('\\') && JSON.parse(key) === 'batch';
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

export interface BatchScan {
  /** [start0, end0, start1, end1, ...] (end exclusive), or null when there is no batch array. */
  slices: number[] | null;
  /** The deepest nesting anywhere in the document (the body object is depth 1). */
  maxDepth: number;
}

/**
 * Finds the source text of each element of the top-level `"batch"` array of a JSON document that
 * JSON.parse has already accepted, and how deeply the document nests. Storing these slices keeps
 * each message exactly as the client sent it and saves re-serializing every event on the ingest
 * path. Keys are compared as JSON.parse reads them (`"\u0062atch"` is "batch" too), and the last
 * "batch" wins as it does there: the slices are always the elements JSON.parse returned.
 */
export function scanBatch(text: string): BatchScan {
  const n = text.length;
  let depth = 0;
  let maxDepth = 0;
  let expectKey = false;
  let keyIsBatch = false;
  let inBatch = false;
  let elementStart = -1;
  let current: number[] = [];
  let result: number[] | null = null;

  const closeElement = (at: number) => {
    if (elementStart < 0) return;
    let end = at;
    while (end > elementStart && isSpace(text.charCodeAt(end - 1))) end--;
    current.push(elementStart, end);
    elementStart = -1;
  };

  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i = closingQuote(text, i);
      if (depth === 1 && expectKey) {
        keyIsBatch = isBatchKey(text, start, i);
        expectKey = false;
      } else if (inBatch && depth === 2 && elementStart < 0) {
        elementStart = start;
      } else if (depth === 1 && keyIsBatch) {
        result = null; // the last "batch" is a string: JSON.parse keeps that one, not an earlier array
        keyIsBatch = false;
      }
      continue;
    }
    if (isSpace(c) || c === COLON) continue;
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (inBatch && depth === 2 && elementStart < 0) elementStart = i;
      depth++;
      if (depth > maxDepth) maxDepth = depth;
      if (depth === 1) expectKey = c === OPEN_BRACE;
      else if (depth === 2 && keyIsBatch && c === OPEN_BRACKET) {
        inBatch = true;
        current = [];
        elementStart = -1;
      }
      if (depth === 2) {
        if (keyIsBatch && c === OPEN_BRACE) result = null; // the last "batch" is an object
        keyIsBatch = false;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (inBatch && depth === 2) {
        closeElement(i);
        result = current; // a later "batch" key would win in JSON.parse, and here too
        inBatch = false;
      }
      depth--;
    } else if (c === COMMA) {
      if (depth === 1) {
        expectKey = true;
        keyIsBatch = false;
      } else if (inBatch && depth === 2) closeElement(i);
    } else if (inBatch && depth === 2 && elementStart < 0) {
      elementStart = i; // a number, true, false or null element
    } else if (depth === 1) {
      if (keyIsBatch) result = null; // "batch" whose value is a number, true, false or null
      keyIsBatch = false;
    }
  }
  return { slices: result, maxDepth };
}

/** How deeply a JSON text nests (a bare object is depth 1, a scalar 0). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = closingQuote(text, i);
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) max = depth;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return max;
}

/**
 * `text`, a JSON object JSON.parse has accepted, without its top-level members named `key` (escaped
 * spellings too, as JSON.parse reads them), and otherwise exactly as written: no re-serializing, so
 * nothing the client sent (an integer past 2^53, its spacing) changes. Unchanged when there is none.
 */
export function withoutMember(text: string, key: string): string {
  const members = memberSpans(text);
  const named = members.map(({ start, keyEnd }) => {
    const written = text.slice(start, keyEnd + 1);
    return written === `"${key}"` || (written.includes('\\') && JSON.parse(written) === key);
  });
  if (!named.includes(true)) return text;
  // Each run of named members goes as a whole: with the comma after it when a kept member follows (cut
  // up to that member), else with the comma before it (from the last kept member's value on).
  let out = '';
  let from = 0;
  for (let i = 0; i < members.length; i++) {
    if (!named[i]) continue;
    let last = i;
    while (last + 1 < members.length && named[last + 1]) last++;
    const next = members[last + 1];
    const previous = members[i - 1]; // kept, since a run starts after a kept member or at the first
    const cutFrom = next || !previous ? members[i]!.start : previous.end;
    const cutTo = next ? next.start : members[last]!.end;
    out += text.slice(from, cutFrom);
    from = cutTo;
    i = last;
  }
  return out + text.slice(from);
}
