/**
 * What changed between two tracking plans (both in Sluice's format: plan-document.ts converts the
 * vendors'), each change classified for the clients that send to them. Breaking: a message OLD
 * accepted may be refused by NEW, or a field it described is gone — an event or a property removed, a
 * property made required or added as required, a type narrowed or changed, an enum value removed or an
 * enum/const/format/pattern added, additionalProperties made false, a bound tightened. Compatible:
 * NEW accepts all OLD did — an event or an optional property added, a type widened, an enum value
 * added, a bound loosened — or only words changed (descriptions, titles). A keyword whose change
 * Sluice cannot judge (not, if/then/else, patternProperties, dependencies…) counts as breaking, saying so.
 * A property added is also compared with what OLD accepted in its place (additionalProperties), a tuple's
 * places with the other side's place or rest, and draft-04's boolean exclusive bounds as draft-07's numbers.
 * A `$ref` is followed, with the keywords beside it applied to its target (schema-merge.ts), as ajv does.
 * Pure: no I/O. Deterministic: events and properties in code-point order.
 */
import type { JsonSchema, TrackingPlan } from '../../../shared/tracking-plan.ts';
import { draft07Bounds } from './compile-plan.ts';
import { mergeSchemas } from './schema-merge.ts';

export type PlanPart = 'event' | 'identify' | 'group' | 'page' | 'screen' | 'context';

export interface PlanChange {
  kind: 'breaking' | 'compatible';
  /** What it concerns: a track event (`event` names it), or the schema of identify, group, page, screen or context. */
  part: PlanPart;
  event: string | null;
  /** The field in a message ("properties.items[].sku", "traits.email"); the section alone for the whole schema. */
  path: string;
  /** A stable code: event-removed, property-added-optional, type-narrowed, enum-value-removed, … */
  change: string;
  /** The change in words: 'type narrowed from number to integer'. */
  text: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const own = (object: Json, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const PARTS: [Exclude<PlanPart, 'event'>, string][] = [['identify', 'traits'], ['group', 'traits'], ['page', 'properties'], ['screen', 'properties'], ['context', 'context']];

export function diffPlans(before: TrackingPlan, after: TrackingPlan): PlanChange[] {
  const changes: PlanChange[] = [];
  const names = [...new Set([...Object.keys(before.events), ...Object.keys(after.events)])].sort(byCodePoint);
  for (const event of names) {
    const add = (kind: PlanChange['kind'], path: string, change: string, text: string) => changes.push({ kind, part: 'event', event, path, change, text });
    const old = Object.hasOwn(before.events, event) ? before.events[event] : undefined;
    const next = Object.hasOwn(after.events, event) ? after.events[event] : undefined;
    if (next === undefined) add('breaking', 'properties', 'event-removed', 'event removed');
    else if (old === undefined) add('compatible', 'properties', 'event-added', 'event added');
    else compareSchemas(old, next, 'properties', add);
  }
  for (const [part, section] of PARTS) {
    const add = (kind: PlanChange['kind'], path: string, change: string, text: string) => changes.push({ kind, part, event: null, path, change, text });
    const old = before[part];
    const next = after[part];
    if (old === undefined && next === undefined) continue;
    if (next === undefined) add('compatible', section, 'part-removed', `no longer checked by the plan`);
    else if (old === undefined) add('breaking', section, 'part-added', `now checked by the plan`);
    else compareSchemas(old, next, section, add);
  }
  return changes;
}

type Add = (kind: PlanChange['kind'], path: string, change: string, text: string) => void;

interface Side {
  root: unknown;
  following: string[];
}

function compareSchemas(old: JsonSchema, next: JsonSchema, section: string, add: Add): void {
  compare(old, next, section, { root: old, following: [] }, { root: next, following: [] }, add, 0);
}

/** Keywords that only say something to people. */
const WORDS = ['description', 'title', '$comment', 'examples', 'default', 'labels', 'deprecated', 'readOnly', 'writeOnly'];
/** Keywords compared here, one by one. */
const JUDGED = new Set([...WORDS, '$schema', '$id', 'id', 'definitions', '$defs', '$ref', 'type', 'nullable', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items', 'additionalItems', 'format', 'pattern', 'anyOf', 'oneOf', 'allOf', 'uniqueItems', 'multipleOf', 'minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'eventMetadata']);
/** Lower bounds (raising one narrows) and upper bounds (lowering one narrows), with their words. */
const LOWER: [string, string][] = [['minimum', 'minimum'], ['exclusiveMinimum', 'exclusive minimum'], ['minLength', 'minLength'], ['minItems', 'minItems'], ['minProperties', 'minProperties']];
const UPPER: [string, string][] = [['maximum', 'maximum'], ['exclusiveMaximum', 'exclusive maximum'], ['maxLength', 'maxLength'], ['maxItems', 'maxItems'], ['maxProperties', 'maxProperties']];
const MAX_DEPTH = 64;

function compare(oldNode: unknown, newNode: unknown, path: string, o: Side, n: Side, add: Add, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const a = resolve(oldNode, o);
  const b = resolve(newNode, n);
  if (a.cycle || b.cycle) {
    if (canonical(a.node) !== canonical(b.node)) add('breaking', path, 'schema-changed', 'a recursive schema changed (Sluice does not follow it further: counted as breaking)');
    return;
  }
  const enter = (fn: () => void) => {
    o.following.push(...a.refs);
    n.following.push(...b.refs);
    try {
      fn();
    } finally {
      o.following.length -= a.refs.length;
      n.following.length -= b.refs.length;
    }
  };
  enter(() => compareResolved(a.node, b.node, path, o, n, add, depth));
}

function compareResolved(oldNode: unknown, newNode: unknown, path: string, o: Side, n: Side, add: Add, depth: number): void {
  if (oldNode === false && newNode === false) return;
  if (newNode === false) return add('breaking', path, 'schema-closed', 'now accepts nothing (false)');
  if (oldNode === false) return add('compatible', path, 'schema-opened', 'accepted nothing (false), now accepts values');
  // Draft-04's boolean exclusiveMinimum/Maximum as draft-07's numbers, as the plans are compiled.
  const a: Json = isObject(oldNode) ? { ...oldNode } : {};
  const b: Json = isObject(newNode) ? { ...newNode } : {};
  draft07Bounds(a);
  draft07Bounds(b);

  for (const key of ['description', 'title']) {
    // An empty description (Segment's exports carry many) is none.
    const words = (s: Json) => (typeof own(s, key) === 'string' && own(s, key) !== '' ? own(s, key) : undefined);
    if (words(a) !== words(b)) add('compatible', path, `${key}-changed`, `${key} ${words(a) === undefined ? 'added' : words(b) === undefined ? 'removed' : 'changed'}`);
  }
  compareTypes(a, b, path, add);
  compareValues(a, b, path, add);
  compareBounds(a, b, path, add);
  compareObjects(a, b, path, o, n, add, depth);
  compareArrays(a, b, path, o, n, add, depth);
  for (const key of ['anyOf', 'oneOf']) compareAlternatives(a, b, key, path, add);
  const allA = listOf(a, 'allOf');
  const allB = listOf(b, 'allOf');
  const removedAll = allA.filter((x) => !allB.includes(x));
  const addedAll = allB.filter((x) => !allA.includes(x));
  if (addedAll.length > 0) add('breaking', path, 'all-of-added', `allOf: ${addedAll.length} schema${addedAll.length === 1 ? '' : 's'} added or changed (each must hold)`);
  else if (removedAll.length > 0) add('compatible', path, 'all-of-removed', `allOf: ${removedAll.length} schema${removedAll.length === 1 ? '' : 's'} removed`);
  const others = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !JUDGED.has(key)).sort(byCodePoint);
  for (const key of others) {
    if (canonical(own(a, key)) !== canonical(own(b, key))) add('breaking', path, 'keyword-changed', `${key} ${own(a, key) === undefined ? 'added' : own(b, key) === undefined ? 'removed' : 'changed'} (Sluice cannot tell whether that narrows: counted as breaking)`);
  }
}

/** The schema's types as a set (integer within number); undefined: any type. */
function typesOf(schema: Json): Set<string> | undefined {
  const type = own(schema, 'type');
  const list = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : undefined;
  if (list === undefined) return undefined;
  const set = new Set(list);
  if (own(schema, 'nullable') === true) set.add('null');
  if (set.has('number')) set.delete('integer');
  return set;
}

const accepts = (set: Set<string> | undefined, type: string): boolean => set === undefined || set.has(type) || (type === 'integer' && set.has('number'));
const typeWords = (set: Set<string> | undefined): string => (set === undefined ? 'any type' : [...set].sort(byCodePoint).join(' or '));

function compareTypes(a: Json, b: Json, path: string, add: Add): void {
  const before = typesOf(a);
  const after = typesOf(b);
  const lost = before === undefined ? (after === undefined ? [] : ['any']) : [...before].filter((t) => !accepts(after, t));
  const gained = after === undefined ? (before === undefined ? [] : ['any']) : [...after].filter((t) => !accepts(before, t));
  const words = `from ${typeWords(before)} to ${typeWords(after)}`;
  if (lost.length > 0 && gained.length > 0) add('breaking', path, 'type-changed', `type changed ${words}`);
  else if (lost.length > 0) add('breaking', path, 'type-narrowed', `type narrowed ${words}`);
  else if (gained.length > 0) add('compatible', path, 'type-widened', `type widened ${words}`);
}

function compareValues(a: Json, b: Json, path: string, add: Add): void {
  const hasConst = (s: Json) => Object.hasOwn(s, 'const');
  if (hasConst(a) || hasConst(b)) {
    const x = canonical(own(a, 'const'));
    const y = canonical(own(b, 'const'));
    if (!hasConst(a)) add('breaking', path, 'const-added', `now must be ${y}`);
    else if (!hasConst(b)) add('compatible', path, 'const-removed', `no longer must be ${x}`);
    else if (x !== y) add('breaking', path, 'const-changed', `must be ${y} instead of ${x}`);
  }
  const enumA = Array.isArray(own(a, 'enum')) ? (own(a, 'enum') as unknown[]).map(canonical) : undefined;
  const enumB = Array.isArray(own(b, 'enum')) ? (own(b, 'enum') as unknown[]).map(canonical) : undefined;
  if (enumA === undefined && enumB === undefined) return;
  if (enumA === undefined) return add('breaking', path, 'enum-added', `now limited to ${enumB!.join(', ')}`);
  if (enumB === undefined) return add('compatible', path, 'enum-removed', `no longer limited to ${enumA.join(', ')}`);
  for (const value of enumA) if (!enumB.includes(value)) add('breaking', path, 'enum-value-removed', `enum value ${value} removed`);
  for (const value of enumB) if (!enumA.includes(value)) add('compatible', path, 'enum-value-added', `enum value ${value} added`);
}

function compareBounds(a: Json, b: Json, path: string, add: Add): void {
  for (const [list, narrows] of [[LOWER, (x: number, y: number) => y > x], [UPPER, (x: number, y: number) => y < x]] as const) {
    for (const [key, words] of list) {
      const x = own(a, key);
      const y = own(b, key);
      if (x === y || (typeof x !== 'number' && typeof y !== 'number')) continue;
      if (typeof x !== 'number') add('breaking', path, 'bound-added', `${words} ${y} added`);
      else if (typeof y !== 'number') add('compatible', path, 'bound-removed', `${words} ${x} removed`);
      else if (narrows(x, y)) add('breaking', path, 'bound-tightened', `${words} tightened from ${x} to ${y}`);
      else add('compatible', path, 'bound-loosened', `${words} loosened from ${x} to ${y}`);
    }
  }
  for (const key of ['format', 'pattern', 'multipleOf']) {
    const x = own(a, key);
    const y = own(b, key);
    if (canonical(x) === canonical(y)) continue;
    if (x === undefined) add('breaking', path, `${key}-added`, `${key} ${canonical(y)} added`);
    else if (y === undefined) add('compatible', path, `${key}-removed`, `${key} ${canonical(x)} removed`);
    else add('breaking', path, `${key}-changed`, `${key} changed from ${canonical(x)} to ${canonical(y)}`);
  }
  if (own(a, 'uniqueItems') !== true && own(b, 'uniqueItems') === true) add('breaking', path, 'unique-items-added', 'items must now be unique');
  if (own(a, 'uniqueItems') === true && own(b, 'uniqueItems') !== true) add('compatible', path, 'unique-items-removed', 'items no longer need be unique');
}

function compareObjects(a: Json, b: Json, path: string, o: Side, n: Side, add: Add, depth: number): void {
  const propsA = isObject(own(a, 'properties')) ? (own(a, 'properties') as Json) : {};
  const propsB = isObject(own(b, 'properties')) ? (own(b, 'properties') as Json) : {};
  const reqA = new Set(stringList(own(a, 'required')));
  const reqB = new Set(stringList(own(b, 'required')));
  const keys = [...new Set([...Object.keys(propsA), ...Object.keys(propsB), ...reqA, ...reqB])].sort(byCodePoint);
  const extraA = own(a, 'additionalProperties');
  const extraB = own(b, 'additionalProperties');
  for (const key of keys) {
    const at = fieldPath(path, key);
    const inA = Object.hasOwn(propsA, key);
    const inB = Object.hasOwn(propsB, key);
    if (inA && !inB && !reqB.has(key)) add('breaking', at, 'property-removed', 'property removed');
    else if (!inA && inB && !reqA.has(key)) {
      add(reqB.has(key) ? 'breaking' : 'compatible', at, reqB.has(key) ? 'property-added-required' : 'property-added-optional', `${reqB.has(key) ? 'required' : 'optional'} property added`);
      // Where OLD typed its other properties (an additionalProperties schema), it promised that type for this
      // key too: NEW's schema for it must accept what that did. Where OLD said nothing of them (absent or
      // true), an optional property added is compatible, as a plan's users read it (and Segment and Avo
      // count it): the plan made no promise about keys it did not list. Where OLD refused them (false),
      // nothing sent had the key.
      if (isObject(extraA) && !reqB.has(key)) {
        const inPlace: Add = (kind, p, change, text) => {
          if (change !== 'description-changed' && change !== 'title-changed') add(kind, p, change, `${text} (compared with what the old plan accepted there as an unnamed property)`);
        };
        compare(extraA ?? true, propsB[key], at, o, n, inPlace, depth + 1);
      }
    } else {
      if (!reqA.has(key) && reqB.has(key)) add('breaking', at, 'made-required', 'property made required');
      if (reqA.has(key) && !reqB.has(key)) add('compatible', at, 'made-optional', 'property made optional');
      // A key only required on a side takes that side's additionalProperties (true when absent).
      if (inA || inB) compare(inA ? propsA[key] : (extraA ?? true), inB ? propsB[key] : (extraB ?? true), at, o, n, add, depth + 1);
    }
  }
  if (extraA !== false && extraB === false) add('breaking', path, 'additional-properties-closed', 'additionalProperties made false: other properties are refused');
  else if (extraA === false && extraB !== false) add('compatible', path, 'additional-properties-opened', 'additionalProperties no longer false: other properties are accepted');
  else if (isObject(extraA) || isObject(extraB)) compare(extraA ?? true, extraB ?? true, `${path}.*`, o, n, add, depth + 1);
}

function compareArrays(a: Json, b: Json, path: string, o: Side, n: Side, add: Add, depth: number): void {
  const x = own(a, 'items');
  const y = own(b, 'items');
  if (x === undefined && y === undefined) return;
  if (Array.isArray(x) || Array.isArray(y)) {
    // A tuple on either side: each position against what the other side allows there (its own position,
    // or its rest when it is shorter or a list), then rest against rest.
    const length = Math.max(Array.isArray(x) ? x.length : 0, Array.isArray(y) ? y.length : 0);
    for (let i = 0; i < length; i++) compare(itemAt(a, i), itemAt(b, i), `${path}[${i}]`, o, n, add, depth + 1);
    compare(restItems(a), restItems(b), `${path}[…]`, o, n, add, depth + 1);
    return;
  }
  compare(x ?? true, y ?? true, `${path}[]`, o, n, add, depth + 1);
}

/** The schema an array's items past its tuple take: additionalItems for a tuple (true when absent), else items itself. */
function restItems(schema: Json): unknown {
  const items = own(schema, 'items');
  if (Array.isArray(items)) return own(schema, 'additionalItems') ?? true;
  return items ?? true;
}

/** The schema the item at position `i` takes. */
function itemAt(schema: Json, i: number): unknown {
  const items = own(schema, 'items');
  return Array.isArray(items) && i < items.length ? items[i] : restItems(schema);
}

function compareAlternatives(a: Json, b: Json, key: string, path: string, add: Add): void {
  if (own(a, key) === undefined && own(b, key) === undefined) return;
  const x = listOf(a, key);
  const y = listOf(b, key);
  if (own(a, key) === undefined) return add('breaking', path, `${key}-added`, `${key} added: a value must match one of ${y.length} schemas`);
  if (own(b, key) === undefined) return add('compatible', path, `${key}-removed`, `${key} removed`);
  const removed = x.filter((s) => !y.includes(s)).length;
  const added = y.filter((s) => !x.includes(s)).length;
  if (removed > 0) add('breaking', path, `${key}-narrowed`, `${key}: ${removed} alternative${removed === 1 ? '' : 's'} removed or changed`);
  else if (added > 0) add(key === 'oneOf' ? 'breaking' : 'compatible', path, `${key}-widened`, `${key}: ${added} alternative${added === 1 ? '' : 's'} added${key === 'oneOf' ? ' (a value matching two is refused by oneOf: counted as breaking)' : ''}`);
}

/**
 * The node with each `$ref` within its schema followed, and the keywords beside it applied too (ajv 8
 * applies them: `{$ref, maximum: 100}` is the target capped at 100), and the references followed, to
 * stop at a cycle. A reference to another document is left as it is.
 */
function resolve(node: unknown, side: Side): { node: unknown; refs: string[]; cycle?: boolean } {
  const refs: string[] = [];
  let current = node;
  while (isObject(current) && typeof own(current, '$ref') === 'string') {
    const ref = own(current, '$ref') as string;
    if (side.following.includes(ref) || refs.includes(ref)) return { node: current, refs, cycle: true };
    const target = lookup(side.root, ref);
    if (target === undefined) break;
    refs.push(ref);
    const { $ref: _, ...siblings } = current;
    current = Object.keys(siblings).length === 0 ? target : mergeSchemas(target, siblings);
  }
  return { node: current, refs };
}

function lookup(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let target: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined; // a malformed %-escape: not a reference Sluice can follow
    }
    target = isObject(target) && Object.hasOwn(target, key) ? target[key] : Array.isArray(target) ? target[Number(key)] : undefined;
  }
  return target;
}

function listOf(schema: Json, key: string): string[] {
  const list = own(schema, key);
  return Array.isArray(list) ? list.map(canonical) : [];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** JSON with object keys sorted, so that key order does not count as a change; words left out of schemas compared whole. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (isObject(v) ? Object.fromEntries(Object.keys(v).sort(byCodePoint).filter((k) => !WORDS.includes(k) || !isSchemaish(v)).map((k) => [k, v[k]])) : v)) ?? 'undefined';
}

const isSchemaish = (v: Json): boolean => ['type', 'properties', 'enum', 'const', '$ref', 'items'].some((k) => Object.hasOwn(v, k));

function fieldPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
