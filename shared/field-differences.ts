/**
 * Where one JSON value differs from another, field by field, in the words sluice/testing's near misses
 * use ("properties.price: wanted 12, got "12""): a wait's closest messages (electron/core/queries/
 * filters.ts) and `sluice transform test`'s fixtures (electron/commands/transform.ts) say it so.
 */

/** A value as a difference shows it: its JSON, at most 80 characters; "nothing" for a missing one. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export interface DifferenceOptions {
  /** Only the keys `expected` names, arrays compared whole (a filter's partial match); default: every key of either, arrays item by item. */
  partial?: boolean;
  /** Stop after this many (default: all). */
  limit?: number;
}

/**
 * Each place where `actual` does not hold `expected`, as "path: wanted X, got Y" (`path` names the
 * values themselves; keys join it with dots, array items as [i]): objects key by key, anything else
 * whole. A key only one side has reads "wanted nothing" or "got nothing".
 */
export function fieldDifferences(expected: unknown, actual: unknown, path: string, options: DifferenceOptions = {}): string[] {
  const out: string[] = [];
  walk(expected, actual, path, options.partial ?? false, out, options.limit ?? Infinity);
  return out;
}

function walk(expected: unknown, actual: unknown, path: string, partial: boolean, out: string[], limit: number): void {
  if (out.length >= limit) return;
  if (isRecord(expected)) {
    if (!isRecord(actual)) {
      out.push(`${path}: wanted an object, got ${showValue(actual)}`);
      return;
    }
    for (const key of Object.keys(expected)) walk(expected[key], actual[key], join(path, key), partial, out, limit);
    if (!partial) {
      for (const key of Object.keys(actual)) {
        if (!Object.hasOwn(expected, key) && actual[key] !== undefined && out.length < limit) out.push(`${join(path, key)}: wanted nothing, got ${showValue(actual[key])}`);
      }
    }
    return;
  }
  if (!partial && Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) walk(expected[i], actual[i], `${path}[${i}]`, partial, out, limit);
    return;
  }
  if (!sameJson(expected, actual)) out.push(`${path}: wanted ${showValue(expected)}, got ${showValue(actual)}`);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep equality of JSON values (objects regardless of key order). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, i) => sameJson(item, (b as unknown[])[i]));
  const ak = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bk = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
