/**
 * A destination's filters on one message (issue 28): pure, imports only shared/. Delivery calls it
 * before it builds a body, the inspector's preview on a stored message.
 *
 * - Filters run in order; a filter whose `if` (shared/message-match.ts, the store's meaning of the query)
 *   does not hold does nothing. Every `if` tests the message as it came to the filters: a field filter
 *   changes what is sent, not what the filters after it see.
 * - `drop` drops the message; `sample: p` keeps it when the hash of its messageId falls below p (the same
 *   answer on every retry, replay and destination) and drops it otherwise. The first drop decides: the
 *   filters after it are not tested.
 * - `allowFields` keeps only the named paths (and ALWAYS_KEPT_FIELDS), `blockFields` removes them; they
 *   apply one after the other, each on the previous one's result.
 * - A path is dot-separated from the message's root. On an array, a segment of digits names an element
 *   (allow keeps those elements, block removes them); a name applies to every element
 *   (`properties.products.sku` is the sku of each product).
 * - The input is never changed: a field filter works on a copy; with none, the message returned is the
 *   input itself.
 */
import { ALWAYS_KEPT_FIELDS, filterDecisionText, type DestinationFilter } from '../../../shared/destination-filters.ts';
import type { FilterDecision } from '../../../shared/channels/transforms.ts';
import { messageMatcher, type MessageMatcher } from '../../../shared/message-match.ts';

/** What the delivery knows of the message's row besides the message (the clauses on them read these). */
export interface MessageFacts {
  /** The name of the source that received it. */
  source: string | null;
  /** ingest, client, audience or plan (left out: `origin:` clauses do not hold). */
  origin?: string;
  /** Its tracking-plan violations (left out: `violations:` clauses do not hold). */
  violations?: number;
  /** The tracking plans it breaks, by name. */
  plans?: string[];
}

export type FilterOutcome =
  | { kind: 'kept'; message: Record<string, unknown>; decisions: FilterDecision[] }
  | { kind: 'dropped'; decision: FilterDecision; decisions: FilterDecision[] };

/** A filter whose `if` does not parse (settings that skipped validation): the delivery fails saying so. */
export class FilterError extends Error {
  override readonly name = 'FilterError';
}

/** A node of a set of field paths: `all` when a path ends here. */
interface PathTree {
  all: boolean;
  kids: Map<string, PathTree>;
}

interface Compiled {
  filter: DestinationFilter;
  matcher: MessageMatcher;
  fields: PathTree | null;
  /** Its decisions, made once (frozen: every outcome shares them). */
  decided: Partial<Record<FilterDecision['effect'], FilterDecision>>;
}

/** Each filters array compiled once (a destination's settings keep theirs while unchanged: pass that array). */
const compiledByArray = new WeakMap<readonly DestinationFilter[], Compiled[]>();
/** Matchers by query, for filters arrays made afresh (settings read again): bounded. */
const matchers = new Map<string, MessageMatcher>();
const MAX_MATCHERS = 512;

function matcherOf(query: string, index: number): MessageMatcher {
  let matcher = matchers.get(query);
  if (!matcher) {
    try {
      matcher = messageMatcher(query);
    } catch (error) {
      throw new FilterError(`filter ${index + 1}'s if does not parse: ${(error as Error).message}; fix it in the destination's filters`);
    }
    if (matchers.size >= MAX_MATCHERS) matchers.clear();
    matchers.set(query, matcher);
  }
  return matcher;
}

/** Filters arrays made afresh with the same content (settings read again), by their JSON: bounded. */
const compiledByText = new Map<string, Compiled[]>();
const MAX_TEXTS = 256;

function compile(filters: readonly DestinationFilter[]): Compiled[] {
  let compiled = compiledByArray.get(filters);
  if (compiled) return compiled;
  const text = JSON.stringify(filters);
  compiled = compiledByText.get(text);
  if (!compiled) {
    compiled = filters.map((filter, index) => {
      const paths = filter.allowFields ?? filter.blockFields;
      return {
        filter,
        matcher: matcherOf(filter.if, index),
        fields: paths ? pathTree(filter.allowFields ? [...ALWAYS_KEPT_FIELDS, ...paths] : paths) : null,
        decided: {},
      };
    });
    if (compiledByText.size >= MAX_TEXTS) compiledByText.clear();
    compiledByText.set(text, compiled);
  }
  compiledByArray.set(filters, compiled);
  return compiled;
}

/** Checks that every filter's `if` parses (FilterError otherwise) and readies them. */
export function prepareFilters(filters: readonly DestinationFilter[]): void {
  compile(filters);
}

/** The destination's filters on `message` (never changed): kept (the message it gets, maybe with fewer fields) or dropped, and by which filter. */
export function applyFilters(filters: readonly DestinationFilter[], message: Record<string, unknown>, facts: MessageFacts): FilterOutcome {
  if (filters.length === 0) return { kind: 'kept', message, decisions: [] };
  const decisions: FilterDecision[] = [];
  let current = message;
  const compiled = compile(filters);
  for (let index = 0; index < compiled.length; index++) {
    const c = compiled[index]!;
    const { filter, matcher, fields } = c;
    // Every `if` reads the message as it came (the field filters before it change only what is sent).
    if (!matcher.matches(message, facts)) continue;
    if (filter.drop || (filter.sample !== undefined && !sampledIn(message, filter.sample))) {
      const decision = decisionOf(c, index, 'dropped');
      decisions.push(decision);
      return { kind: 'dropped', decision, decisions };
    }
    if (filter.sample !== undefined) {
      decisions.push(decisionOf(c, index, 'kept'));
      continue;
    }
    current = filter.allowFields ? (pick(current, fields!) as Record<string, unknown> | undefined) ?? {} : without(current, fields!);
    decisions.push(decisionOf(c, index, 'fields'));
  }
  return { kind: 'kept', message: current, decisions };
}

function decisionOf(c: Compiled, index: number, effect: FilterDecision['effect']): FilterDecision {
  return (c.decided[effect] ??= Object.freeze({ index, if: c.filter.if, effect, text: filterDecisionText(index, c.filter, effect) }));
}

/** Whether a sample of `rate` keeps this message: the hash of its messageId in [0, 1) below the rate. */
export function sampledIn(message: Readonly<Record<string, unknown>>, rate: number): boolean {
  return sampleHash(typeof message.messageId === 'string' ? message.messageId : JSON.stringify(message)) < rate;
}

/** A string's place in [0, 1): FNV-1a over its UTF-16 units, then murmur3's finalizer to spread close ids. */
export function sampleHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

function pathTree(paths: readonly string[]): PathTree {
  const root: PathTree = { all: false, kids: new Map() };
  for (const path of paths) {
    let node = root;
    for (const segment of path.split('.')) {
      let kid = node.kids.get(segment);
      if (!kid) node.kids.set(segment, (kid = { all: false, kids: new Map() }));
      node = kid;
    }
    node.all = true;
  }
  return root;
}

const isIndex = (segment: string) => /^\d+$/.test(segment);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tree of an array's element `i`: its own index's paths and the names that apply to every element. */
function elementTree(tree: PathTree, i: number): PathTree | null {
  const own = tree.kids.get(String(i));
  const names = [...tree.kids].filter(([segment]) => !isIndex(segment));
  if (names.length === 0) return own ?? null;
  const merged: PathTree = { all: own?.all ?? false, kids: new Map(own ? [...own.kids] : []) };
  for (const [segment, kid] of names) merged.kids.set(segment, merged.kids.has(segment) ? mergeTrees(merged.kids.get(segment)!, kid) : kid);
  return merged;
}

function mergeTrees(a: PathTree, b: PathTree): PathTree {
  const kids = new Map(a.kids);
  for (const [segment, kid] of b.kids) kids.set(segment, kids.has(segment) ? mergeTrees(kids.get(segment)!, kid) : kid);
  return { all: a.all || b.all, kids };
}

/** What `tree` names of `value`, copied; undefined when it names nothing there (no empty object is made up). */
function pick(value: unknown, tree: PathTree): unknown {
  if (tree.all) return copy(value);
  if (Array.isArray(value)) {
    const picked: unknown[] = [];
    value.forEach((element, i) => {
      const sub = elementTree(tree, i);
      if (!sub) return;
      const kept = pick(element, sub);
      // An element keeps its place (as {}) when the names apply to every element: the count still says something.
      if (kept !== undefined) picked.push(kept);
      else if (isObject(element) && !tree.kids.has(String(i))) picked.push({});
    });
    return picked.length > 0 ? picked : undefined;
  }
  if (!isObject(value)) return undefined;
  const out: Record<string, unknown> = {};
  let any = false;
  for (const [segment, sub] of tree.kids) {
    if (!Object.hasOwn(value, segment)) continue;
    const kept = pick(value[segment], sub);
    if (kept !== undefined) setOwn(out, segment, kept), (any = true);
  }
  return any ? out : undefined;
}

/** `value` copied without what `tree` names. */
function without<T>(value: T, tree: PathTree): T {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    value.forEach((element, i) => {
      const sub = elementTree(tree, i);
      if (!sub) out.push(copy(element));
      else if (!sub.all) out.push(without(element, sub));
    });
    return out as T;
  }
  if (!isObject(value)) return copy(value);
  const out: Record<string, unknown> = {};
  for (const [key, element] of Object.entries(value)) {
    const sub = tree.kids.get(key);
    if (!sub) setOwn(out, key, copy(element));
    else if (!sub.all) setOwn(out, key, without(element, sub));
  }
  return out as T;
}

/** Sets an own property, even one named __proto__ (a message's JSON may have that key). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A copy of a JSON value (a message holds nothing else), own keys only. */
function copy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, copy((value as Record<string, unknown>)[key]));
  return out as T;
}
