// What a tool answers: compact JSON text, bounded so that one large payload cannot fill an agent's
// context, or a tool error (isError) with the relay's sentence. Long strings are cut first, then the
// longest lists; what was cut is said in a `truncated` note, with the way to see the whole.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RelayError } from './relay-api.ts';

/** Characters of a tool's answer, at most (about 10,000 tokens). */
export const MAX_RESULT_CHARS = 40_000;
/** Each string is cut to the first of these that makes the answer fit. */
const STRING_CAPS = [4_000, 1_000, 200, 60];

export function result(value: Record<string, unknown>, whole?: string): CallToolResult {
  return { content: [{ type: 'text', text: boundedJson(value, whole) }] };
}

/** The value as compact JSON of at most MAX_RESULT_CHARS; `whole` says how to see what was cut. */
export function boundedJson(value: Record<string, unknown>, whole = 'ask for fewer (limit) or one message (get_message)'): string {
  return bounded(value, whole).text;
}

/** As boundedJson, and when a list had to be shortened, which and to how many. */
function bounded(value: Record<string, unknown>, whole = 'ask for fewer (limit) or one message (get_message)'): { text: string; shortened?: { key: string; keep: number } } {
  let text = JSON.stringify(value);
  if (text.length <= MAX_RESULT_CHARS) return { text };
  // A note the value carries already (answerPage's) comes first in the one that says what was cut.
  const said = typeof value.truncated === 'string' ? `${value.truncated}; ` : '';
  for (const cap of STRING_CAPS) {
    let cut = 0;
    const capped = capStrings(value, cap, () => cut++) as Record<string, unknown>;
    text = JSON.stringify({ ...capped, truncated: `${said}${cut} long string values were cut to ${cap} characters ("…[N more characters]"); ${whole}` });
    if (text.length <= MAX_RESULT_CHARS) return { text };
  }
  // Still too long: the longest list is shortened until it fits.
  const capped = capStrings(value, STRING_CAPS.at(-1)!, () => {}) as Record<string, unknown>;
  const key = Object.keys(capped).filter((k) => Array.isArray(capped[k])).sort((a, b) => (capped[b] as unknown[]).length - (capped[a] as unknown[]).length)[0];
  if (key !== undefined) {
    const list = capped[key] as unknown[];
    for (let keep = list.length - 1; keep >= 0; keep = Math.min(keep - 1, Math.floor(keep * 0.8))) {
      text = JSON.stringify({ ...capped, [key]: list.slice(0, keep), truncated: `${said}only the first ${keep} of ${list.length} ${key} are shown, their long strings cut; ${whole}` });
      if (text.length <= MAX_RESULT_CHARS) return { text, shortened: { key, keep } };
    }
  }
  return { text: `${text.slice(0, MAX_RESULT_CHARS)}… [answer cut at ${MAX_RESULT_CHARS} characters; ${whole}]` };
}

/**
 * A page of a list (search_messages, list_deliveries): `read(limit)` asks the relay for it. When the
 * answer only fits with its list shortened, the page is asked again with as many as fit (fewer each time
 * the note or a changed page makes it still too long, a few times at most), so that its `next` goes on
 * after the last one shown — not after the last one read, which would skip the ones cut.
 */
export async function answerPage(read: (limit: number | undefined) => Promise<Record<string, unknown>>, whole?: string): Promise<CallToolResult> {
  try {
    const first = bounded(await read(undefined), whole);
    if (!first.shortened) return text(first.text);
    const key = first.shortened.key;
    let keep = Math.max(1, first.shortened.keep);
    for (let tries = 0; ; tries++) {
      const fewer = `only ${keep} ${key} fit in this page ("next" goes on after them)`;
      const again = bounded({ ...(await read(keep)), truncated: fewer }, whole);
      if (!again.shortened) return text(again.text);
      // One alone too large even with its strings cut: shown cut, and `next` goes past it (read it whole
      // with get_message). Otherwise fewer, unless it has been tried enough.
      if (keep === 1 || tries === 3) return text(again.text);
      keep = Math.max(1, Math.min(again.shortened.keep, keep - 1));
    }
  } catch (error) {
    return failure(error);
  }
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** A tool error: the relay's sentence (and what it added, such as a wait's closest messages). */
export function failure(error: unknown): CallToolResult {
  if (!(error instanceof RelayError)) return { isError: true, content: [{ type: 'text', text: (error as Error).message }] };
  const extra = Object.keys(error.details).length > 0 ? `\n${boundedJson(error.details)}` : '';
  return { isError: true, content: [{ type: 'text', text: `${error.message}${extra}` }] };
}

/** Runs a tool's body: its value as a bounded result, a thrown error as a tool error. */
export async function answer(run: () => Promise<Record<string, unknown>>, whole?: string): Promise<CallToolResult> {
  try {
    return result(await run(), whole);
  } catch (error) {
    return failure(error);
  }
}

function capStrings(value: unknown, cap: number, counted: () => void): unknown {
  if (typeof value === 'string') {
    if (value.length <= cap) return value;
    counted();
    return `${value.slice(0, cap)}…[${value.length - cap} more characters]`;
  }
  if (Array.isArray(value)) return value.map((item) => capStrings(item, cap, counted));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, capStrings(v, cap, counted)]));
  return value;
}
