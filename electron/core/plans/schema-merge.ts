/**
 * One schema that accepts what two schemas both accept, for plan-diff.ts to compare: what a `$ref` and
 * the keywords beside it make. ajv 8 applies both (draft-07 said siblings of `$ref` are ignored; ajv, and
 * 2019-09 on, do not ignore them), so `{$ref: "#/definitions/price", maximum: 100}` is the target with
 * `maximum: 100` too — `allOf: [target, siblings]`. Keywords are merged where one keyword can say both:
 * a keyword on one side is taken; on both, types and enums intersect, `required` and `allOf` join, bounds
 * take the tighter, words take the sibling's (they describe this use). What cannot be one keyword (two
 * different patterns, or `additionalProperties` next to the other side's `properties`, which it would
 * then wrongly let through) stays apart: the sibling's keywords in one more `allOf` entry, which the diff
 * compares whole.
 */
import { draft07Bounds } from './compile-plan.ts';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords that only say something to people: the sibling's win. */
const WORDS = new Set(['description', 'title', '$comment', 'examples', 'default', 'labels', 'deprecated', 'readOnly', 'writeOnly']);
/** Keywords that constrain nothing where they stand: the target's kept. */
const PLACES = new Set(['definitions', '$defs', '$schema', '$id', 'id']);
const LOWER = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']);
const UPPER = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']);
/** Keywords that read each other within one schema object: merged together or kept apart together. */
const LINKED = [['properties', 'patternProperties', 'additionalProperties'], ['items', 'additionalItems'], ['if', 'then', 'else']];

/** `target` with `siblings` applied too, as ajv applies a `$ref`'s siblings. */
export function mergeSchemas(target: unknown, siblings: Json): unknown {
  if (target === false) return false;
  if (!isObject(target)) return { ...siblings };
  const a: Json = { ...target };
  const b: Json = { ...siblings };
  // Draft-04's boolean exclusive bounds qualify `minimum`/`maximum`: made numbers before bounds are compared.
  draft07Bounds(a);
  draft07Bounds(b);
  const out: Json = { ...a };
  const apart: Json = {};
  for (const group of LINKED) {
    const inA = group.filter((key) => Object.hasOwn(a, key));
    const inB = group.filter((key) => Object.hasOwn(b, key));
    if (inB.length === 0) continue;
    const linked = inA.length === 0 ? pick(b, inB) : mergeLinked(group[0]!, a, b);
    for (const key of inB) delete b[key];
    if (linked === undefined) Object.assign(apart, pick(siblings, inB));
    else Object.assign(out, linked);
  }
  for (const [key, value] of Object.entries(b)) {
    if (PLACES.has(key) && Object.hasOwn(a, key)) continue;
    if (!Object.hasOwn(a, key) || WORDS.has(key)) out[key] = value;
    else {
      const merged = mergeKeyword(key, a[key], value);
      if (merged === undefined) apart[key] = value;
      else out[key] = merged;
    }
  }
  if (Object.keys(apart).length > 0) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), apart];
  return out;
}

function pick(schema: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((key) => Object.hasOwn(schema, key)).map((key) => [key, schema[key]]));
}

/** A linked group present on both sides as one, or undefined when it cannot be. */
function mergeLinked(first: string, a: Json, b: Json): Json | undefined {
  if (first === 'properties') {
    // additionalProperties refuses what its own object's properties and patternProperties do not name:
    // beside the other side's properties it would refuse those, which one object cannot say — unless the
    // other side only narrows properties it already names.
    const closes = (s: Json) => Object.hasOwn(s, 'additionalProperties') && s.additionalProperties !== true;
    const named = (s: Json) => (isObject(s.properties) ? s.properties : {});
    const narrowsOnly = closes(a) && !closes(b) && b.patternProperties === undefined && Object.keys(named(b)).every((key) => Object.hasOwn(named(a), key));
    if ((closes(a) || closes(b)) && !narrowsOnly) return same(a, b, ['properties', 'patternProperties', 'additionalProperties']);
    const out: Json = {};
    for (const key of ['properties', 'patternProperties']) {
      const x = a[key];
      const y = b[key];
      if (y === undefined) continue;
      if (!isObject(y) || (x !== undefined && !isObject(x))) return undefined;
      const map: Json = { ...(x ?? {}) };
      for (const [name, schema] of Object.entries(y)) map[name] = Object.hasOwn(map, name) ? both(map[name], schema) : schema;
      out[key] = map;
    }
    return out;
  }
  if (first === 'items' && isObject(a.items) && isObject(b.items) && a.additionalItems === undefined && b.additionalItems === undefined) {
    return { items: both(a.items, b.items) };
  }
  return same(a, b, first === 'items' ? ['items', 'additionalItems'] : ['if', 'then', 'else']);
}

/** The keys as they are when both sides say the same, else undefined. */
function same(a: Json, b: Json, keys: string[]): Json | undefined {
  return keys.every((key) => canonical(a[key]) === canonical(b[key])) ? {} : undefined;
}

/** Two schemas that both apply to one value (a property, an item). */
function both(x: unknown, y: unknown): unknown {
  if (canonical(x) === canonical(y) || y === true) return x;
  if (x === true) return y;
  if (x === false || y === false) return false;
  return isObject(x) && isObject(y) ? mergeSchemas(x, y) : { allOf: [x, y] };
}

/** One keyword on both sides as one, or undefined when it cannot be. */
function mergeKeyword(key: string, x: unknown, y: unknown): unknown {
  if (canonical(x) === canonical(y)) return x;
  if (LOWER.has(key) && typeof x === 'number' && typeof y === 'number') return Math.max(x, y);
  if (UPPER.has(key) && typeof x === 'number' && typeof y === 'number') return Math.min(x, y);
  if ((key === 'required' || key === 'allOf') && Array.isArray(x) && Array.isArray(y)) {
    const seen = new Set(x.map(canonical));
    return [...x, ...y.filter((item) => !seen.has(canonical(item)))];
  }
  if (key === 'uniqueItems' && typeof x === 'boolean' && typeof y === 'boolean') return x || y;
  if (key === 'enum' && Array.isArray(x) && Array.isArray(y)) {
    const inY = new Set(y.map(canonical));
    const common = x.filter((item) => inY.has(canonical(item)));
    return common.length > 0 ? common : undefined;
  }
  if (key === 'type') {
    const types = (t: unknown) => (typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((v): v is string => typeof v === 'string') : []);
    const accepts = (list: string[], t: string) => list.includes(t) || (t === 'integer' && list.includes('number'));
    // integer is within number: number ∩ integer is integer.
    const common = [...new Set([...types(x).filter((t) => accepts(types(y), t)), ...types(y).filter((t) => accepts(types(x), t))])];
    return common.length === 0 ? undefined : common.length === 1 ? common[0] : common;
  }
  return undefined;
}

const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** JSON with object keys sorted, so that key order does not tell values apart. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (isObject(v) ? Object.fromEntries(Object.keys(v).sort(byCodePoint).map((k) => [k, v[k]])) : v)) ?? 'undefined';
}
