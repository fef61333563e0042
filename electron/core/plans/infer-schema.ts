/**
 * A first draft of a plan from what was actually sent: draft-07 schemas describing stored examples.
 * The schema must accept every example it came from (compilePlan checks it with ajv and ajv-formats),
 * so it only claims what all examples agree on: no enums, no ranges, extra fields allowed, and a
 * format only when every string is a date-time ajv-formats would accept.
 */
import type { JsonSchema, TrackingPlan } from '../../../shared/tracking-plan.ts';

/** Nesting described; below it a value is only said to be an object or array, anything inside allowed. */
const MAX_DEPTH = 8;
/** Types in a union, in a fixed order so the same examples always give the same schema. */
const TYPE_ORDER = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] as const;
type JsonType = (typeof TYPE_ORDER)[number];

/** The schema of the examples (properties or traits of stored messages; a missing one counts as {}). */
export function inferSchema(examples: unknown[]): JsonSchema {
  return describe(
    examples.map((e) => (e === undefined ? {} : e)),
    0,
  );
}

interface MessageExample {
  type: string;
  event?: string | null;
  properties?: unknown;
  traits?: unknown;
}

/** A plan describing the messages: track events by name, identify/group traits, page/screen properties. Context is not inferred. */
export function inferPlan(messages: MessageExample[]): TrackingPlan {
  const events = new Map<string, unknown[]>();
  const byType = new Map<string, unknown[]>();
  const add = (map: Map<string, unknown[]>, key: string, example: unknown) => {
    const list = map.get(key);
    if (list) list.push(example);
    else map.set(key, [example]);
  };
  for (const m of messages) {
    if (m.type === 'track') {
      if (typeof m.event === 'string' && m.event !== '') add(events, m.event, m.properties);
    } else if (m.type === 'identify' || m.type === 'group') add(byType, m.type, m.traits);
    else if (m.type === 'page' || m.type === 'screen') add(byType, m.type, m.properties);
  }
  const plan: TrackingPlan = { events: {} };
  for (const name of [...events.keys()].sort()) setOwn(plan.events, name, inferSchema(events.get(name)!));
  for (const type of ['identify', 'group', 'page', 'screen'] as const) {
    const examples = byType.get(type);
    if (examples) plan[type] = inferSchema(examples);
  }
  return plan;
}

function describe(values: unknown[], depth: number): JsonSchema {
  const types = new Set<JsonType>();
  const objects: Record<string, unknown>[] = [];
  const items: unknown[] = [];
  let strings = 0;
  let dateTimes = 0;
  for (const value of values) {
    const type = jsonType(value);
    if (type === undefined) continue;
    types.add(type);
    if (type === 'object') objects.push(value as Record<string, unknown>);
    else if (type === 'array') for (const item of value as unknown[]) items.push(item);
    else if (type === 'string') {
      strings++;
      if (isDateTime(value as string)) dateTimes++;
    }
  }
  // "integer" only when every number is one: 2 and 2.5 together are numbers.
  if (types.has('number')) types.delete('integer');
  const list = TYPE_ORDER.filter((t) => types.has(t));
  // No JSON value seen (only undefined inside arrays, say): say nothing rather than forbid everything.
  if (list.length === 0) return {};
  const schema: Record<string, unknown> = { type: list.length === 1 ? list[0] : list };
  if (strings > 0 && dateTimes === strings) schema.format = 'date-time';
  if (objects.length > 0 && depth < MAX_DEPTH) {
    const fields = new Map<string, unknown[]>();
    const present = new Map<string, number>();
    for (const object of objects) {
      for (const key of Object.keys(object)) {
        const value = object[key];
        if (value === undefined) continue;
        const seen = fields.get(key);
        if (seen) seen.push(value);
        else fields.set(key, [value]);
        if (value !== null) present.set(key, (present.get(key) ?? 0) + 1);
      }
    }
    const keys = [...fields.keys()].sort();
    const properties: Record<string, JsonSchema> = {};
    for (const key of keys) setOwn(properties, key, describe(fields.get(key)!, depth + 1));
    schema.properties = properties;
    const required = keys.filter((key) => present.get(key) === objects.length);
    if (required.length > 0) schema.required = required;
  }
  if (items.length > 0 && depth < MAX_DEPTH) schema.items = describe(items, depth + 1);
  return schema;
}

function jsonType(value: unknown): JsonType | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      // NaN and Infinity are not JSON (JSON.stringify writes null); stored messages never hold them.
      return Number.isFinite(value) ? (Number.isInteger(value) ? 'integer' : 'number') : 'null';
    case 'object':
      return Array.isArray(value) ? 'array' : 'object';
    default:
      return undefined;
  }
}

/**
 * RFC 3339 date-time, the subset ajv-formats' `date-time` accepts (seconds and a zone required), with the
 * field ranges checked too: a string inferred as a date-time must pass the schema it came from.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isDateTime(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS[month - 1];
  if (days === undefined || day < 1 || day > days) return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  return m[7] === undefined || (Number(m[7]) <= 23 && Number(m[8]) <= 59);
}

/** Assigns even a key named "__proto__" as an own property (plain assignment would set the prototype). */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
