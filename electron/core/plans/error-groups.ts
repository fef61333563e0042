/**
 * Which of ajv's errors are told through another error rather than on their own: an anyOf/oneOf's
 * alternatives' errors (one violation for the anyOf says what each alternative wanted), and the per-item
 * errors of `contains` (an item need not match it — one must — so "tags[0] must be "x"" is no violation;
 * the `contains` error itself is).
 *
 * ajv (allErrors) reports the errors of such a keyword just before its own error, nested like
 * parentheses, so they are found walking backwards with a stack, in linear time. Whether an error lies
 * inside the keyword cannot be read from its schemaPath alone: an error from inside a `$ref` carries the
 * target's path (`#/definitions/price/type`), and in a schema ajv compiles as a function of its own
 * (recursive ones) paths start again at that schema. So each subschema is followed to the `$ref` targets
 * it can reach, and an error belongs to it when its instancePath is at or under the keyword's and the
 * schema object holding its keyword (ajv's `parentSchema`, with the `verbose` option) is the subschema, a
 * target, or applied under one. Without `verbose`, the schemaPath prefix is used, which is exact only
 * for inline alternatives.
 *
 * Not told apart: an error from a keyword evaluated just before the group, at the same place, from a schema
 * the group's subschemas also reach (`{$ref: A, anyOf: [{$ref: A}, …]}`). It is counted in the group, which
 * then gives its general sentence.
 */
import type { ErrorObject } from 'ajv';
import { DEFINITIONS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUED } from './schema-keywords.ts';

type Err = ErrorObject<string, Record<string, any>, unknown>;

/** An alternative's error, with the alternative's index; AMBIGUOUS when it could be in several. */
export interface Sub {
  readonly error: Err;
  readonly branch: number;
}

export const AMBIGUOUS = -1;

export interface ErrorGroups {
  /** Indices of the errors told through the group that holds them. */
  readonly nested: Set<number>;
  /** An anyOf/oneOf's alternatives' errors (not those inside a group within them), by the index of its own error. */
  readonly subs: Map<number, Sub[]>;
}

interface Open {
  readonly error: Err;
  /** What each subschema can evaluate; undefined without `verbose` (no subschema objects to follow). */
  readonly reaches: readonly Reach[] | undefined;
  readonly subs: Sub[] | undefined;
}

/**
 * The groups among `errors` (one validation's, in ajv's order). `root` is the schema the validation
 * function was compiled from, against which `$ref`s are resolved.
 */
export function groupErrors(errors: readonly Err[], root: unknown): ErrorGroups {
  const nested = new Set<number>();
  const subs = new Map<number, Sub[]>();
  const stack: Open[] = [];
  for (let i = errors.length - 1; i >= 0; i--) {
    const e = errors[i]!;
    let branch: number | undefined;
    while (stack.length > 0) {
      branch = branchOf(stack[stack.length - 1]!, e, root);
      if (branch !== undefined) break;
      stack.pop();
    }
    const top = stack[stack.length - 1];
    if (top) {
      nested.add(i);
      top.subs?.push({ error: e, branch: branch! });
    }
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'contains') {
      const list: Sub[] | undefined = e.keyword === 'contains' ? undefined : [];
      if (list) subs.set(i, list);
      stack.push({ error: e, reaches: subschemas(e)?.map((s) => reachOf(s, root)), subs: list });
    }
  }
  for (const list of subs.values()) list.reverse();
  return { nested, subs };
}

/** The alternatives of an anyOf/oneOf error, or the one schema of `contains`, as ajv's `verbose` gives them. */
function subschemas(e: Err): readonly unknown[] | undefined {
  const parent = e.parentSchema;
  if (parent === null || typeof parent !== 'object') return undefined;
  const value = (parent as Record<string, unknown>)[e.keyword];
  return e.keyword === 'contains' ? [value] : Array.isArray(value) ? value : undefined;
}

/** Which subschema of the group `e` comes from; undefined when it is not from inside the group. */
function branchOf(group: Open, e: Err, root: unknown): number | undefined {
  const at = group.error.instancePath;
  if (e.instancePath !== at && !e.instancePath.startsWith(`${at}/`)) return undefined;
  // Typed as an object, but `false` for a false schema's error.
  const parent: unknown = e.parentSchema;
  const reaches = group.reaches;
  const named = branchByPath(group.error, e);
  if (reaches !== undefined && parent !== null && typeof parent === 'object') {
    // The subschema that can evaluate the error's schema object; when several can (a recursive schema reaches
    // its own alternatives again), the one its schemaPath names, which is exact when both are in one function.
    const tree = appliedParents(root);
    const found = which(reaches, (r) => evaluates(r, parent, tree), named);
    // A subschema with a $ref not followed here may reach anything: an error at its place is counted in.
    return found ?? which(reaches, (r) => r.open, named);
  }
  if (parent === false && reaches !== undefined) return which(reaches, (r) => r.falseSchema, named);
  // Without `verbose`: the schemaPath alone.
  return named;
}

/** The subschema the error's schemaPath names under the group's: exact when ajv compiled both in one function (no `$ref` between). */
function branchByPath(group: Err, e: Err): number | undefined {
  const prefix = `${group.schemaPath}/`;
  if (!e.schemaPath.startsWith(prefix)) return undefined;
  if (group.keyword === 'contains') return 0;
  const branch = Number(e.schemaPath.slice(prefix.length).split('/', 1)[0]);
  return Number.isInteger(branch) ? branch : AMBIGUOUS;
}

/** The one subschema that passes `test`; among several, `named` if it is one of them, else AMBIGUOUS. */
function which(reaches: readonly Reach[], test: (r: Reach) => boolean, named: number | undefined): number | undefined {
  let found: number | undefined;
  for (let k = 0; k < reaches.length; k++) {
    if (!test(reaches[k]!)) continue;
    if (found === undefined) found = k;
    else {
      const byPath = named !== undefined && named >= 0 ? reaches[named] : undefined;
      return byPath !== undefined && test(byPath) ? named : AMBIGUOUS;
    }
  }
  return found;
}

/**
 * What a subschema can evaluate, kept small: the subschema and the targets of the `$ref`s it can reach
 * (each the top of what it applies). A schema object is evaluated under it when the object or one of its
 * applied ancestors is among them.
 */
interface Reach {
  readonly tops: Set<object>;
  /** It can evaluate a `false` schema. */
  readonly falseSchema: boolean;
  /** It has a `$ref` this file does not resolve (another document, a base changed by a nested `$id`). */
  readonly open: boolean;
}

function evaluates(reach: Reach, schema: object, tree: Map<object, object>): boolean {
  // Ancestors are at most compile-plan's 64 levels.
  for (let node: object | undefined = schema; node !== undefined; node = tree.get(node)) if (reach.tops.has(node)) return true;
  return false;
}

/** Reaches by subschema object (a subschema is in one compiled schema): a compiled plan keeps its schemas, so each is followed once. */
const reachCache = new WeakMap<object, Reach>();

function reachOf(schema: unknown, root: unknown): Reach {
  if (schema === null || typeof schema !== 'object') return { tops: new Set(), falseSchema: schema === false, open: false };
  let reach = reachCache.get(schema);
  if (reach === undefined) {
    reach = follow(schema, root);
    reachCache.set(schema, reach);
  }
  return reach;
}

/** Walks applied subschemas and `$ref` targets (not `definitions` themselves: only what is referenced runs). Iterative: refs chain without bound. */
function follow(schema: object, root: unknown): Reach {
  const tops = new Set<object>([schema]);
  const seen = new Set<object>();
  let falseSchema = false;
  let open = false;
  const todo: unknown[] = [schema];
  while (todo.length > 0) {
    const node = todo.pop();
    if (node === false) falseSchema = true;
    if (node === null || typeof node !== 'object' || Array.isArray(node) || seen.has(node)) continue;
    seen.add(node);
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref') {
        const target = typeof value === 'string' ? resolveRef(root, value) : undefined;
        if (target === undefined) open = true;
        else {
          if (typeof target === 'object') tops.add(target);
          todo.push(target);
        }
      } else if (key === '$id') {
        if (typeof value === 'string' && !value.startsWith('#') && node !== root) open = true;
      } else todo.push(...appliedChildren(key, value));
    }
  }
  return { tops, falseSchema, open };
}

/** The subschemas a keyword applies to the same instance or a part of it. */
function appliedChildren(key: string, value: unknown): unknown[] {
  if (SCHEMA_LISTS.has(key) && Array.isArray(value)) return value;
  if (SCHEMA_VALUED.has(key)) return [value];
  if (SCHEMA_MAPS.has(key) && !DEFINITIONS.has(key) && value !== null && typeof value === 'object') return Object.values(value);
  return [];
}

const parentsCache = new WeakMap<object, Map<object, object>>();

/** Each schema object's applied parent (definitions have none: they run only where referenced), once per schema. */
function appliedParents(root: unknown): Map<object, object> {
  if (root === null || typeof root !== 'object') return new Map();
  let parents = parentsCache.get(root);
  if (parents !== undefined) return parents;
  parents = new Map();
  const todo: object[] = [root];
  const seen = new Set<object>();
  while (todo.length > 0) {
    const node = todo.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    for (const [key, value] of Object.entries(node)) {
      const definitions = DEFINITIONS.has(key) && value !== null && typeof value === 'object' ? Object.values(value) : [];
      for (const child of definitions) if (child !== null && typeof child === 'object' && !Array.isArray(child)) todo.push(child);
      for (const child of appliedChildren(key, value)) {
        if (child === null || typeof child !== 'object' || Array.isArray(child)) continue;
        if (!parents.has(child)) parents.set(child, node);
        todo.push(child);
      }
    }
  }
  parentsCache.set(root, parents);
  return parents;
}

/** A `$ref` within the schema (`#`, `#/json/pointer`, `#anchor`); undefined for anything else. */
function resolveRef(root: unknown, ref: string): object | boolean | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return root !== null && typeof root === 'object' ? root : undefined;
  if (!fragment.startsWith('/')) return anchorsOf(root).get(fragment);
  let node: unknown = root;
  for (const raw of fragment.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== null && typeof node === 'object' ? node : typeof node === 'boolean' ? node : undefined;
}

const anchors = new WeakMap<object, Map<string, object>>();

/** Draft-07's `$id: "#name"` and 2019-09's `$anchor: "name"`, anywhere in the schema. */
function anchorsOf(root: unknown): Map<string, object> {
  if (root === null || typeof root !== 'object') return new Map();
  let map = anchors.get(root);
  if (map !== undefined) return map;
  map = new Map();
  const seen = new Set<object>();
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const node = todo.pop();
    if (node === null || typeof node !== 'object' || seen.has(node)) continue;
    seen.add(node);
    const id = (node as Record<string, unknown>).$id;
    const anchor = (node as Record<string, unknown>).$anchor;
    if (!Array.isArray(node)) {
      if (typeof id === 'string' && id.startsWith('#') && !map.has(id.slice(1))) map.set(id.slice(1), node);
      if (typeof anchor === 'string' && !map.has(anchor)) map.set(anchor, node);
    }
    todo.push(...Object.values(node));
  }
  anchors.set(root, map);
  return map;
}
