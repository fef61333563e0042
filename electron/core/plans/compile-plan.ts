/**
 * A tracking plan compiled for checking messages: every schema compiled once, up front, so that the
 * relay's ingestion path only runs ajv's generated functions. Pure: no I/O.
 *
 * Plans come from Segment Protocols and RudderStack exports and from people's editors, so compiling
 * tolerates what those carry (Segment's Typewriter refused many of them: typewriter #271, #277, #281):
 * vendor keywords (`labels`, `description`, `examples`, `$comment`) are ignored, draft-04's `id` is
 * dropped, `$schema` is dropped everywhere and every schema is checked with draft-07 semantics
 * whatever draft it names (draft-04's boolean exclusiveMinimum/Maximum are rewritten to draft-07's
 * numbers; 2019-09/2020-12-only keywords such as prefixItems are ignored), and formats that
 * ajv-formats does not know are ignored. What cannot be made to work is a PlanError listing every
 * problem with its place in the plan.
 *
 * ReDoS: a plan's `pattern` and `patternProperties` keys run on message values in the relay's writer
 * thread, and plans may be third-party exports. Two guards (see patternRisk and boundedRegExp below):
 * a pattern whose backtracking can take exponential time (a repetition inside a repeated group, as in
 * `^(a+)+$`; a backreference) is refused at compile time with a sentence saying how to rewrite it, and
 * no pattern is run on a string longer than MAX_PATTERN_INPUT (8,192) characters — such a value is an
 * Unknown-Violation saying so. Not caught: overlapping alternatives in a repeated group (`^(\w|\d)+$`)
 * and polynomial ones (`^a*a*a*b$`), as safe-regex does not either; the length bound limits those.
 */
import AjvModule from 'ajv';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema, TrackingPlan, UnplannedMode, Violation } from '../../../shared/tracking-plan.ts';
import { PlanError } from './plan-error.ts';
import { patternRisk } from './pattern-safety.ts';
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUED } from './schema-keywords.ts';
import { appendViolations, fieldPath, MAX_PATTERN_INPUT, MAX_VIOLATIONS, moreViolations, need, preview, valueAt, type ViolationSubject } from './violation-text.ts';

// Both packages are CommonJS that set `exports.default` to themselves: Node's default import (the
// module.exports), TypeScript's nodenext typing (the namespace) and bundlers' interop all agree on `.default`.
const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

/** Deeper than this (schema in schema, or a value in a schema) is refused: recursion over it could exhaust the stack. */
export const MAX_SCHEMA_DEPTH = 64;
export const MAX_PLAN_BYTES = 5 * 1024 * 1024;
/** More compile problems than this are counted, not listed: one broken generator can produce thousands. */
const MAX_PROBLEMS = 50;

export interface CheckedMessage {
  type: string;
  event?: unknown;
  properties?: unknown;
  traits?: unknown;
  context?: unknown;
}

export interface CompiledPlan {
  readonly name: string;
  /** Violations of this message against the plan; [] when it conforms. `unplanned` decides whether an unlisted track event gives an Unplanned-Event violation ('flag' and 'block' do, 'allow' does not). */
  check(message: CheckedMessage, unplanned: UnplannedMode): Violation[];
  /** Whether the plan lists this track event. */
  plans(event: string): boolean;
}

interface Section extends ViolationSubject {
  readonly validate: ValidateFunction;
}

/** What a missing properties/traits/context is checked as; frozen because it is shared by every check. */
const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

export function compilePlan(name: string, plan: TrackingPlan): CompiledPlan {
  const problems: string[] = [];
  checkSize(plan, problems);
  if (problems.length > 0) throw new PlanError(problems);

  // addUsedSchema: false — a compiled schema's $id is not registered, so two events copied from one
  // template (same $id) do not collide. validateSchema: false — we validate against the meta-schema
  // ourselves, to name the place of each problem. logger: false — unknown formats are ignored quietly.
  // code.regExp — patterns are not run on strings longer than MAX_PATTERN_INPUT. verbose — each error
  // names the schema object it came from, which tells an alternative's errors from inside a $ref apart
  // (error-groups.ts); it only adds to the code run when a message fails.
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, logger: false, addUsedSchema: false, validateSchema: false, code: { regExp: boundedRegExp } });
  addFormats(ajv);
  const compile = (label: string, section: string, target: string, schema: unknown): Section | undefined => {
    const validate = compileSchema(ajv, label, schema, problems);
    return validate && { validate, plan: name, section, target };
  };

  const events = new Map<string, Section>();
  for (const [event, schema] of Object.entries(plan.events ?? {})) {
    const compiled = compile(`events[${JSON.stringify(event)}]`, 'properties', `"${clipName(event)}"`, schema);
    if (compiled) events.set(event, compiled);
  }
  const optional = (key: 'identify' | 'group' | 'page' | 'screen' | 'context', section: string, target: string) =>
    plan[key] === undefined ? undefined : compile(key, section, target, plan[key]);
  const identify = optional('identify', 'traits', 'identify calls');
  const group = optional('group', 'traits', 'group calls');
  const page = optional('page', 'properties', 'page calls');
  const screen = optional('screen', 'properties', 'screen calls');
  const context = optional('context', 'context', 'every message');
  if (problems.length > MAX_PROBLEMS) problems.splice(MAX_PROBLEMS, Infinity, `and ${problems.length - MAX_PROBLEMS} more problems`);
  if (problems.length > 0) throw new PlanError(problems);

  const unplannedText = new Map<string, string>();
  const unplannedMessage = (event: string): string => {
    let text = unplannedText.get(event);
    if (text === undefined) {
      const close = closestName(event, events.keys());
      text = `"${clipName(event)}" is not in the plan "${name}"${close === undefined ? '' : `; did you mean "${clipName(close)}"?`}`;
      // Event names come from clients: bound the cache rather than let a stream of unique names grow it.
      if (unplannedText.size >= 1000) unplannedText.clear();
      unplannedText.set(event, text);
    }
    return text;
  };

  return {
    name,
    plans: (event) => events.has(event),
    check(message, unplanned) {
      let out: Violation[] | undefined;
      let section: Section | undefined;
      let data: unknown;
      switch (message.type) {
        case 'track': {
          const event = message.event;
          section = typeof event === 'string' ? events.get(event) : undefined;
          data = message.properties;
          if (section === undefined && unplanned !== 'allow') {
            const text = typeof event === 'string' ? unplannedMessage(event) : `a track call without an event name is not in the plan "${name}"`;
            out = [{ type: 'Unplanned-Event', path: '/event', message: text, plan: name }];
          }
          break;
        }
        case 'identify':
          section = identify;
          data = message.traits;
          break;
        case 'group':
          section = group;
          data = message.traits;
          break;
        case 'page':
          section = page;
          data = message.properties;
          break;
        case 'screen':
          section = screen;
          data = message.properties;
          break;
      }
      // Written out rather than a closure: this is the ingestion path, and a conforming message should cost
      // ajv's generated functions and nothing else.
      let more = 0;
      if (section !== undefined) {
        const value = data === undefined ? EMPTY : data;
        if (!section.validate(value)) {
          out ??= [];
          more += appendViolations(out, section.validate, value, section, MAX_VIOLATIONS - out.length);
        }
      }
      if (context !== undefined) {
        const value = message.context === undefined ? EMPTY : message.context;
        if (!context.validate(value)) {
          out ??= [];
          more += appendViolations(out, context.validate, value, context, MAX_VIOLATIONS - out.length);
        }
      }
      if (more > 0) out!.push(moreViolations(more, name));
      return out ?? [];
    },
  };
}

function checkSize(plan: TrackingPlan, problems: string[]): void {
  let text: string | undefined;
  try {
    text = JSON.stringify(plan);
  } catch {
    // A RangeError from a structure too deep to serialize; anything else (a cycle, a BigInt) is not JSON either.
    problems.push(`the plan is not JSON, or is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
    return;
  }
  if (text !== undefined && Buffer.byteLength(text, 'utf8') > MAX_PLAN_BYTES) {
    problems.push(`the plan is ${(Buffer.byteLength(text, 'utf8') / 1024 / 1024).toFixed(1)} MB of JSON; at most ${MAX_PLAN_BYTES / 1024 / 1024} MB is accepted`);
  }
}

/** Compiles one schema, or records why it cannot be and returns undefined. */
function compileSchema(ajv: InstanceType<typeof Ajv>, label: string, schema: unknown, problems: string[]): ValidateFunction | undefined {
  const before = problems.length;
  const refs: { pointer: string; ref: string }[] = [];
  let copy: unknown;
  try {
    copy = tolerantCopy(schema, '', 0, { label, root: schema, problems, refs });
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error;
    problems.push(`${fieldPath(label, error.pointer, schema)}: nested deeper than ${MAX_SCHEMA_DEPTH} levels; flatten the schema`);
    return undefined;
  }
  if (problems.length > before) return undefined;
  if (!ajv.validateSchema(copy as JsonSchema)) {
    problems.push(...metaProblems(label, ajv.errors ?? [], copy));
    return undefined;
  }
  try {
    return ajv.compile(copy as JsonSchema);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unresolved = (error as { missingRef?: unknown }).missingRef !== undefined ? refs.filter((r) => message.includes(`reference ${r.ref} `)) : [];
    if (unresolved.length > 0) {
      for (const r of unresolved) problems.push(`${fieldPath(label, r.pointer, copy)}: ${JSON.stringify(r.ref)} cannot be resolved; only references within the same schema (such as "#/definitions/price") are followed`);
    } else problems.push(`${label}: ${message}`);
    return undefined;
  }
}

class TooDeep {
  readonly pointer: string;
  constructor(pointer: string) {
    this.pointer = pointer;
  }
}

interface CopyContext {
  label: string;
  /** The caller's schema, for naming places (it has the copy's shape). */
  root: unknown;
  problems: string[];
  refs: { pointer: string; ref: string }[];
}

/**
 * A copy of a schema that ajv (draft-07, strict off) compiles, and the caller's plan untouched: only
 * schema objects are copied (keyword values that are data — enum, default, examples, labels — are shared,
 * ajv only reads them). Walks subschemas by keyword, so a property named "id" or "$schema" is kept.
 */
function tolerantCopy(node: unknown, pointer: string, depth: number, ctx: CopyContext): unknown {
  if (depth > MAX_SCHEMA_DEPTH) throw new TooDeep(pointer);
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (key === '$schema' || key === 'id') continue;
    if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map((item, i) => tolerantCopy(item, `${at}/${i}`, depth + 1, ctx));
    else if (SCHEMA_VALUED.has(key)) out[key] = tolerantCopy(value, at, depth + 1, ctx);
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const map: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const kAt = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (key === 'patternProperties') checkPattern(k, at, ctx);
        // dependencies' string lists are data; everything else in these maps is a schema.
        map[k] = Array.isArray(v) ? v : tolerantCopy(v, kAt, depth + 1, ctx);
      }
      out[key] = map;
    } else {
      if (key === 'pattern' && typeof value === 'string') checkPattern(value, at, ctx);
      if (key === '$ref' && typeof value === 'string') ctx.refs.push({ pointer: at, ref: value });
      if (!shallowerThan(value, MAX_SCHEMA_DEPTH)) throw new TooDeep(at);
      out[key] = value;
    }
  }
  // OpenAPI's `nullable` (which ajv knows) is refused by ajv without a `type`; without one, null is allowed anyway.
  if ('nullable' in out && !('type' in out)) delete out.nullable;
  draft07Bounds(out);
  return out;
}

/**
 * Draft-04's `exclusiveMinimum: true` qualifies `minimum`; draft-07 puts the bound in exclusiveMinimum
 * itself. Rewrites a schema object (in place) to draft-07's numbers; a boolean without its bound, or
 * false, is dropped. Also what plan-diff.ts compares.
 */
export function draft07Bounds(schema: Record<string, unknown>): void {
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof schema[exclusive] !== 'boolean') continue;
    if (schema[exclusive] === true && typeof schema[bound] === 'number') {
      schema[exclusive] = schema[bound];
      delete schema[bound];
    } else delete schema[exclusive];
  }
}

function checkPattern(pattern: string, at: string, ctx: CopyContext): void {
  try {
    // The flag ajv uses (unicodeRegExp, its default), so that what passes here compiles there.
    new RegExp(pattern, 'u');
  } catch (error) {
    // V8 says "Invalid regular expression: /<pattern>/u: <reason>"; the pattern is quoted already.
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: \/[\s\S]*\/u: /, '') : String(error);
    ctx.problems.push(`${fieldPath(ctx.label, at, ctx.root)}: ${JSON.stringify(pattern)} is not a valid regular expression (JavaScript, Unicode mode): ${reason}`);
    return;
  }
  const risk = patternRisk(pattern);
  if (risk !== undefined) ctx.problems.push(`${fieldPath(ctx.label, at, ctx.root)}: ${risk}`);
}

type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;

/**
 * ajv's RegExp engine (its `code.regExp` option): the RegExp ajv would make, except that a string
 * longer than MAX_PATTERN_INPUT does not match it. For `pattern` that is a violation, which
 * violation-text.ts words as "… is longer than 8,192 characters; Sluice does not match patterns
 * against it"; a property name that long matches no `patternProperties` key, and a value that long
 * under `not: {pattern}` counts as not matching. `toString` is the RegExp's: ajv shares one compiled
 * pattern between the places that use the same one by that text, so it must differ between patterns.
 */
const boundedRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const re = new RegExp(pattern, flags);
    return { test: (text: string) => text.length <= MAX_PATTERN_INPUT && re.test(text), toString: () => re.toString() };
  },
  // Only for ajv's standalone code, which Sluice does not generate.
  { code: 'boundedRegExp' },
);

// ---------------------------------------------------------------------------------------------------
// Patterns whose backtracking can take exponential time.
//
// A star-height check like safe-regex's: a group repeated more than once ({n,m} with m > 1, *, +, {n,})
// that itself holds a repetition of variable length (?, *, +, {n,m} with n < m; also through
// alternation and nested groups) is refused, because a string can be split between the group's
// repetitions in exponentially many ways, each tried before a match fails: `^(a+)+$`, `^(\w+\s?)*$`,
// `^(a|b+)*$`, `(x+x+)+y`. One exception keeps common shapes: a group with no top-level alternation
// whose first or last element is one plain character (a literal or an escaped one, unrepeated) that
// nothing else in the group can match, so that this character marks where each repetition starts or
// ends and the split is unique: `^[a-z]+(-[a-z]+)*$`, `^([a-z0-9]+\.)+[a-z]{2,}$`. (safe-regex refuses those.)
// Backreferences (`\1`, `\k<name>`) are refused: matching with them is NP-hard in general.
// The pattern is known to be valid in Unicode mode (what ajv compiles) before it is parsed here.
// ---------------------------------------------------------------------------------------------------

function shallowerThan(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (levels <= 0) return false;
  for (const item of Array.isArray(value) ? value : Object.values(value)) if (!shallowerThan(item, levels - 1)) return false;
  return true;
}

/**
 * The meta-schema's errors as one sentence per place. Only the deepest places are told: a bad `type`
 * deep inside `items` also fails `items` itself, which would only repeat the same problem vaguely.
 */
function metaProblems(label: string, errors: readonly ErrorObject[], schema: unknown): string[] {
  const byPlace = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const list = byPlace.get(e.instancePath);
    if (list) list.push(e);
    else byPlace.set(e.instancePath, [e]);
  }
  const places = [...byPlace.keys()];
  const out: string[] = [];
  for (const [place, list] of byPlace) {
    if (places.some((other) => other.startsWith(`${place}/`))) continue;
    const specific = list.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
    const needs = [...new Set((specific.length > 0 ? specific : list).map((e) => need(e)))];
    const joined = needs.every((n) => n.startsWith('be ')) ? `be ${needs.map((n) => n.slice(3)).join(' or ')}` : needs.join(' or ');
    out.push(`${fieldPath(label, place, schema)}: must ${joined}; got ${preview(valueAt(schema, place))}`);
  }
  return out;
}

/** A planned name close to one the plan lacks: same letters ignoring case and separators, else at most two edits apart. */
function closestName(event: string, planned: Iterable<string>): string | undefined {
  const squash = (s: string) => s.toLowerCase().replace(/[\s_\-.:]+/g, '');
  const target = squash(event);
  const lower = event.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const name of planned) {
    if (squash(name) === target) return name;
    // Long names are compared for equality only: edit distance is quadratic and the cache is per name seen.
    if (bestDistance > 1 && lower.length <= 200 && name.length <= 200) {
      const d = editDistance(lower, name.toLowerCase(), 2);
      if (d < bestDistance) {
        best = name;
        bestDistance = d;
      }
    }
  }
  return best;
}

/** Levenshtein distance if at most `max`, else max + 1; only the diagonal band |i - j| ≤ max is computed. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(max + 1);
    cur[0] = i;
    let rowMin = i;
    for (let j = Math.max(1, i - max); j <= Math.min(b.length, i + max); j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (cur[j]! < rowMin) rowMin = cur[j]!;
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return Math.min(prev[b.length]!, max + 1);
}

function clipName(name: string): string {
  return name.length > 100 ? `${name.slice(0, 99)}…` : name;
}
