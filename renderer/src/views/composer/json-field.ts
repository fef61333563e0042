/** A JSON-object form field (traits, properties), checked as the user types. */
export type JsonFieldResult = { ok: true; value: Record<string, unknown> | undefined } | { ok: false; error: string };

const EXAMPLE = '{"plan": "pro"}';

/**
 * Parses `text` as a JSON object. Empty text means the field is left out. An error is a sentence that
 * says where the JSON breaks (line and column) and what to write instead.
 */
export function parseJsonObject(text: string, label: string): JsonFieldResult {
  if (text.trim() === '') return { ok: true, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `${label} is not valid JSON: ${syntaxProblem(text, (error as Error).message)}.` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    return { ok: false, error: `${label} must be a JSON object such as ${EXAMPLE}, not ${kind}.` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** V8's message without its own position, plus the line and column the position is at. */
function syntaxProblem(text: string, message: string): string {
  const at = /at position (\d+)/.exec(message);
  const what = message
    .replace(/\s*\(line \d+ column \d+\)/, '')
    .replace(/\s*in JSON at position \d+/, '')
    .replace(/\s*at position \d+/, '')
    .replace(/, ".*" is not valid JSON$/s, '');
  if (/Unexpected end of JSON input/.test(message)) return `it ends too early (a closing } or ] or " is missing)`;
  if (!at) return what;
  const position = Number(at[1]);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `${lowerFirst(what)} at line ${line}, column ${column}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
