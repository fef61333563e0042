import { jsonErrorPlace, jsonProblem } from '../../../../shared/json-error-place.ts';

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

/** What is wrong (JSON.parse's words) and where (the line and column, found by shared/json-error-place.ts). */
function syntaxProblem(text: string, message: string): string {
  const what = jsonProblem(message);
  const place = jsonErrorPlace(text);
  if (!place || /Unexpected end of JSON input/.test(message)) return what;
  return `${what} at line ${place.line}, column ${place.column}`;
}
