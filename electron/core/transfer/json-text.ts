/**
 * JSON as text, where a parsed value would change what a client sent: an integer past 2^53
 * (12345678901234567890 reads as 12345678901234567000), a key order JavaScript rewrites (integer-like
 * keys first), an escape written another way (`\u00e9`, `\ud800`). An export splices a stored message's
 * text into its line, edited member by member (objectMembers); an import keeps such numbers as written
 * (parseExact).
 */
import { closingQuote, memberSpans } from '../json-strings.ts';

/** One member of a JSON object as written: its key (read) and `"key":value` (the text, spaces inside kept). */
export interface Member {
  key: string;
  text: string;
}

/**
 * The members of the JSON object `text`, in order, duplicates included (JSON.parse keeps the last). The
 * text must be valid JSON whose value is an object (JSON.parse said so): only the top level is read.
 */
export function objectMembers(text: string): Member[] {
  return memberSpans(text).map(({ start, keyEnd, end }) => {
    const key = text.slice(start + 1, keyEnd);
    return { key: key.includes('\\') ? (JSON.parse(`"${key}"`) as string) : key, text: text.slice(start, end) };
  });
}

/** The value of the last member `key` (the one JSON.parse keeps), as written; undefined when there is none. */
export function memberValue(members: readonly Member[], key: string): string | undefined {
  const member = members.findLast((m) => m.key === key);
  return member?.text.slice(member.text.indexOf(':', closingQuote(member.text, 0)) + 1).trim();
}

/**
 * The object `text` (read as `parsed`, its members `members()`) with some members set (to a value's
 * JSON text) or removed (undefined), the others as written: a member set takes the place of the first
 * with its key (any later one is dropped), or is added at the end. When every change adds a member the
 * object lacks, the text is only extended, not read member by member.
 */
export function withMembers(
  text: string,
  parsed: Record<string, unknown>,
  changes: ReadonlyMap<string, string | undefined>,
  members: () => readonly Member[] = () => objectMembers(text),
): string {
  if (changes.size === 0) return text;
  const added = [...changes].map(([key, value]) => (value === undefined || Object.hasOwn(parsed, key) ? undefined : `${JSON.stringify(key)}:${value}`));
  if (added.every((member) => member !== undefined)) {
    const end = text.lastIndexOf('}');
    return `${text.slice(0, end).trimEnd()}${Object.keys(parsed).length > 0 ? ',' : ''}${added.join(',')}}`;
  }
  const out: string[] = [];
  const done = new Set<string>();
  for (const member of members()) {
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
 * `outer`'s members under the object `own` (its text, read as `ownValue`): own's win, as
 * `{...outer, ...own}`. Those of outer that own lacks go first, own's text follows as written; `own`
 * itself when it lacks none.
 */
export function mergedUnder(outer: Record<string, unknown>, own: string, ownValue: Record<string, unknown>): string {
  const added = Object.entries(outer).filter(([key]) => !Object.hasOwn(ownValue, key));
  if (added.length === 0) return own;
  const rest = own.slice(own.indexOf('{') + 1);
  const members = added.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',');
  return `{${members}${Object.keys(ownValue).length > 0 ? ',' : ''}${rest}`;
}

/**
 * What JSON.parse reads of mergedUnder's text, built from the values: `outer`'s members that `ownValue`
 * lacks, then `ownValue`'s, in that order (not `{...outer, ...ownValue}`, which keeps outer's order for
 * the keys both have). Object.fromEntries, as JSON.parse, makes a `__proto__` key a member, not the prototype.
 */
export function mergedValue(outer: Record<string, unknown>, ownValue: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries([...Object.entries(outer).filter(([key]) => !Object.hasOwn(ownValue, key)), ...Object.entries(ownValue)]);
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
