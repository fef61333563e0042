/**
 * JSON as text, where a parsed value would change what a client sent: an integer past 2^53
 * (12345678901234567890 reads as 12345678901234567000), a key order JavaScript rewrites (integer-like
 * keys first), an escape written another way (`\u00e9`, `\ud800`). An export splices a stored message's
 * text into its line, edited member by member (objectMembers); an import keeps such numbers as written
 * (parseExact).
 */
import { closingQuote } from '../ingest/batch-slices.ts';

/** One member of a JSON object as written: its key (read) and `"key":value` (the text, spaces inside kept). */
export interface Member {
  key: string;
  text: string;
}

const QUOTE = 34;

/**
 * The members of the JSON object `text`, in order, duplicates included (JSON.parse keeps the last). The
 * text must be valid JSON whose value is an object (JSON.parse said so): only the top level is scanned.
 */
export function objectMembers(text: string): Member[] {
  const members: Member[] = [];
  let depth = 0;
  let start = -1;
  let keyEnd = -1;
  const close = (at: number) => {
    if (start < 0) return;
    const keyText = text.slice(start, keyEnd + 1);
    members.push({ key: keyText.includes('\\') ? (JSON.parse(keyText) as string) : keyText.slice(1, -1), text: text.slice(start, at).trimEnd() });
    start = -1;
  };
  for (let i = text.indexOf('{') + 1; i < text.length; i++) {
    const c = text[i];
    if (text.charCodeAt(i) === QUOTE) {
      const end = closingQuote(text, i);
      if (depth === 0 && start < 0) {
        start = i;
        keyEnd = end;
      }
      i = end;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) {
        close(i);
        break;
      }
      depth--;
    } else if (c === ',' && depth === 0) close(i);
  }
  return members;
}

/**
 * The object `text` with some members set (to a value's JSON text) or removed (undefined), the others
 * as written: a member set takes the place of the first with its key (any later one is dropped), or is
 * added at the end. The text itself when nothing changes.
 */
export function withMembers(text: string, changes: ReadonlyMap<string, string | undefined>): string {
  if (changes.size === 0) return text;
  const out: string[] = [];
  const done = new Set<string>();
  for (const member of objectMembers(text)) {
    if (!changes.has(member.key)) out.push(member.text);
    else if (!done.has(member.key)) {
      done.add(member.key);
      const value = changes.get(member.key);
      if (value !== undefined) out.push(`${JSON.stringify(member.key)}:${value}`);
    }
  }
  for (const [key, value] of changes) if (!done.has(key) && value !== undefined) out.push(`${JSON.stringify(key)}:${value}`);
  return `{${out.join(',')}}`;
}

/**
 * `outer`'s members under the object `own` (written as text): own's win, as `{...outer, ...own}`. Own's
 * members stay as written, after those of outer it does not have; `own` itself when it has them all.
 */
export function mergedUnder(outer: Record<string, unknown>, own: string): string {
  const mine = new Set(objectMembers(own).map((m) => m.key));
  const added = Object.entries(outer).filter(([key, value]) => !mine.has(key) && value !== undefined);
  if (added.length === 0) return own;
  const rest = objectMembers(own).map((m) => m.text);
  return `{${[...added.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`), ...rest].join(',')}}`;
}

/** The text of the last member `key` of the JSON object `text` (the one JSON.parse keeps), or undefined. */
export function memberValue(text: string, key: string): string | undefined {
  const member = objectMembers(text).findLast((m) => m.key === key);
  if (!member) return undefined;
  // After the key's closing quote: optional spaces, the colon, optional spaces, the value.
  const keyEnd = closingQuote(member.text, 0);
  return member.text.slice(member.text.indexOf(':', keyEnd) + 1).trimStart();
}

/** A number a double may not hold as written: 16 digits or more in a row, or an exponent. */
const INEXACT = /\d{16}|\d[eE]/;

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;

/**
 * JSON.parse, except that a number JSON.stringify would not write back as it was written (an integer
 * past 2^53, more digits than a double holds, 1e400) is kept as written (JSON.rawJSON): JSON.stringify
 * of the value then writes it as it was sent. Such a number is not a number in the value (`typeof` says
 * object): only what is written again may read it. Plain JSON.parse when the text has none.
 */
export function parseExact(text: string): unknown {
  if (!INEXACT.test(text)) return JSON.parse(text);
  const keep: Reviver = (_key, value, context) =>
    typeof value === 'number' && context?.source !== undefined && JSON.stringify(value) !== context.source ? rawJSON(context.source) : value;
  return (JSON.parse as (text: string, reviver: Reviver) => unknown)(text, keep);
}

/** JSON.rawJSON (Node.js 21 and newer; the relay's commands need 22.19): not in TypeScript's lib yet. */
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
