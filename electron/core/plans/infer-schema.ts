/**
 * A first draft of a plan from what was actually sent: draft-07 schemas describing stored examples.
 * The schema must accept every example it came from (compilePlan checks it with ajv and ajv-formats),
 * so it only claims what all examples agree on: no enums, no ranges, extra fields allowed, and a
 * format only when every string is a date-time ajv-formats would accept. Numbers are `number` (a
 * price that happened to be whole is still a price) unless `integers` is asked for. A field seen with
 * values of more than one type gets no type at all and is reported (MixedField): a union would bake
 * into the plan the very mistake the plan should catch, so a person decides.
 */
import type { JsonSchema, MixedField, TrackingPlan } from '../../../shared/tracking-plan.ts';

export type { MixedField } from '../../../shared/tracking-plan.ts';

/** Nesting described; below it a value is only said to be an object or array, anything inside allowed. */
const MAX_DEPTH = 8;
/** Types in a list, in a fixed order so the same examples always give the same output. */
const TYPE_ORDER = ['array', 'boolean', 'null', 'number', 'object', 'string'] as const;
type JsonType = (typeof TYPE_ORDER)[number];

export interface InferOptions {
  /** `integer` for a field whose numbers were all whole (default: `number`). */
  integers?: boolean | undefined;
}

/** One example: the properties or traits of a message, and its messageId (named in what is reported). */
export interface Example {
  value: unknown;
  messageId: string | null;
}


/** The schema of the examples (properties or traits of stored messages; a missing one counts as {}). */
export function inferSchema(examples: unknown[], options: InferOptions = {}): JsonSchema {
  return inferExamples(
    examples.map((value) => ({ value, messageId: null })),
    options,
    { type: '', event: null, root: '' },
  ).schema;
}

/** The schema of the examples, and the fields whose types disagree (under `where.root`: properties or traits). */
export function inferExamples(examples: Example[], options: InferOptions, where: { type: string; event: string | null; root: string }): { schema: JsonSchema; mixed: MixedField[] } {
  const mixed: MixedField[] = [];
  const schema = describe(
    examples.map((e) => (e.value === undefined ? { value: {}, messageId: e.messageId } : e)),
    0,
    where.root,
    options,
    (path, types) => mixed.push({ type: where.type, event: where.event, path, types }),
  );
  return { schema, mixed };
}

export interface MessageExample {
  type: string;
  event?: string | null;
  messageId?: string | null;
  properties?: unknown;
  traits?: unknown;
}

/** A plan describing the messages: track events by name, identify/group traits, page/screen properties. Context is not inferred. */
export function inferPlan(messages: MessageExample[], options: InferOptions = {}): { plan: TrackingPlan; mixed: MixedField[] } {
  const events = new Map<string, Example[]>();
  const byType = new Map<string, Example[]>();
  const add = (map: Map<string, Example[]>, key: string, value: unknown, messageId: string | null | undefined) => {
    const example = { value, messageId: messageId ?? null };
    const list = map.get(key);
    if (list) list.push(example);
    else map.set(key, [example]);
  };
  for (const m of messages) {
    if (m.type === 'track') {
      if (typeof m.event === 'string' && m.event !== '') add(events, m.event, m.properties, m.messageId);
    } else if (m.type === 'identify' || m.type === 'group') add(byType, m.type, m.traits, m.messageId);
    else if (m.type === 'page' || m.type === 'screen') add(byType, m.type, m.properties, m.messageId);
  }
  const plan: TrackingPlan = { events: {} };
  const mixed: MixedField[] = [];
  for (const name of [...events.keys()].sort()) {
    const inferred = inferExamples(events.get(name)!, options, { type: 'track', event: name, root: 'properties' });
    setOwn(plan.events, name, inferred.schema);
    mixed.push(...inferred.mixed);
  }
  for (const type of ['identify', 'group', 'page', 'screen'] as const) {
    const examples = byType.get(type);
    if (!examples) continue;
    const inferred = inferExamples(examples, options, { type, event: null, root: type === 'identify' || type === 'group' ? 'traits' : 'properties' });
    plan[type] = inferred.schema;
    mixed.push(...inferred.mixed);
  }
  return { plan, mixed };
}

type OnMixed = (path: string, types: MixedField['types']) => void;

function describe(values: Example[], depth: number, path: string, options: InferOptions, onMixed: OnMixed): JsonSchema {
  const seen = new Map<JsonType, { count: number; example: string | null }>();
  const objects: Example[] = [];
  const items: Example[] = [];
  let strings = 0;
  let dateTimes = 0;
  let fractions = 0;
  for (const example of values) {
    const { value } = example;
    const type = jsonType(value);
    if (type === undefined) continue;
    const tally = seen.get(type);
    if (tally) tally.count++;
    else seen.set(type, { count: 1, example: example.messageId });
    if (type === 'object') objects.push(example);
    else if (type === 'array') for (const item of value as unknown[]) items.push({ value: item, messageId: example.messageId });
    else if (type === 'number' && !Number.isInteger(value)) fractions++;
    else if (type === 'string') {
      strings++;
      if (isDateTime(value as string)) dateTimes++;
    }
  }
  // No JSON value seen (only undefined inside arrays, say): say nothing rather than forbid everything.
  if (seen.size === 0) return {};
  const schema: Record<string, unknown> = {};
  if (seen.size === 1) {
    const type = [...seen.keys()][0]!;
    schema.type = type === 'number' && options.integers && fractions === 0 ? 'integer' : type;
  } else {
    const types = TYPE_ORDER.filter((t) => seen.has(t)).map((type) => ({ type, ...seen.get(type)! }));
    onMixed(path, types.sort((a, b) => b.count - a.count));
  }
  if (strings > 0 && dateTimes === strings) schema.format = 'date-time';
  if (objects.length > 0 && depth < MAX_DEPTH) {
    const fields = new Map<string, Example[]>();
    const present = new Map<string, number>();
    for (const { value, messageId } of objects) {
      const object = value as Record<string, unknown>;
      for (const key of Object.keys(object)) {
        const field = object[key];
        if (field === undefined) continue;
        const list = fields.get(key);
        if (list) list.push({ value: field, messageId });
        else fields.set(key, [{ value: field, messageId }]);
        if (field !== null) present.set(key, (present.get(key) ?? 0) + 1);
      }
    }
    const keys = [...fields.keys()].sort();
    const properties: Record<string, JsonSchema> = {};
    for (const key of keys) setOwn(properties, key, describe(fields.get(key)!, depth + 1, path === '' ? key : `${path}.${key}`, options, onMixed));
    schema.properties = properties;
    const required = keys.filter((key) => present.get(key) === objects.length);
    if (required.length > 0) schema.required = required;
  }
  if (items.length > 0 && depth < MAX_DEPTH) schema.items = describe(items, depth + 1, `${path}[]`, options, onMixed);
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
      return Number.isFinite(value) ? 'number' : 'null';
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
