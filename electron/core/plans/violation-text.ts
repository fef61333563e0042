/**
 * ajv's errors as violations a person can act on, in Segment's and RudderStack's taxonomy:
 * `required` → Required-Missing, `type` → Datatype-Mismatch, `additionalProperties` → Additional-Properties,
 * everything else → Unknown-Violation with a sentence saying what the plan wants and what came.
 * Only runs when a message fails, so clarity wins over speed here; what must stay bounded is the
 * output: a hostile message can make ajv report thousands of errors or carry megabyte values.
 */
import type { ErrorObject } from 'ajv';
import type { Violation, ViolationType } from '../../../shared/tracking-plan.ts';
import { AMBIGUOUS, groupErrors, type Sub } from './error-groups.ts';

/** Violations listed per message; the rest are counted in one more. */
export const MAX_VIOLATIONS = 20;
/** Characters of one value shown in a sentence; with a field name (≤ 120) a sentence quotes under ~200 characters of the message. */
const VALUE_CHARS = 40;
const FIELD_CHARS = 120;
/** Schema text (enum lists, patterns) is the plan's, not the message's, but still must not flood a sentence. */
const SCHEMA_TEXT_CHARS = 120;
/**
 * Strings longer than this are not matched against a plan's patterns (compile-plan.ts gives ajv a
 * RegExp that says "no match" for them): a pattern's time can grow with the value's length.
 */
export const MAX_PATTERN_INPUT = 8192;

export interface ViolationSubject {
  readonly plan: string;
  /** The message field the schema checks, and the first segment of every path: 'properties', 'traits' or 'context'. */
  readonly section: string;
  /** Whom the schema is for, as it ends a sentence: '"Order Completed"', 'identify calls', 'every message'. */
  readonly target: string;
}

type Err = ErrorObject<string, Record<string, any>, unknown>;

/** A validation function after a run: its errors, and the schema it was compiled from (where their `$ref`s point). */
export interface Validated {
  readonly errors?: readonly Err[] | null;
  readonly schema: unknown;
}

/**
 * Appends to `out` one violation per error of `validate`'s last run (an anyOf/oneOf with its
 * alternatives' errors is one; `contains` with its items' errors too), at most `room` of them, and
 * returns how many more there were. Best with ajv's `verbose` option (see error-groups.ts).
 */
export function appendViolations(out: Violation[], validate: Validated, data: unknown, subject: ViolationSubject, room: number): number {
  const errors = validate.errors ?? [];
  const groups = groupErrors(errors, validate.schema);
  let more = 0;
  for (let i = 0; i < errors.length; i++) {
    const e = errors[i]!;
    // An alternative's own errors are told through its anyOf/oneOf, an item's through `contains`; an `if`
    // only repeats its `then`/`else` errors; a property name's own errors are told through `propertyNames`.
    if (groups.nested.has(i) || e.keyword === 'if' || (e.propertyName !== undefined && e.keyword !== 'propertyNames')) continue;
    if (room <= 0) more++;
    else {
      out.push(violationOf(e, groups.subs.get(i), data, subject));
      room--;
    }
  }
  return more;
}

/** The violation that stands for the ones not listed. */
export function moreViolations(count: number, plan: string): Violation {
  return { type: 'Unknown-Violation', path: '', message: `and ${count} more violation${count === 1 ? '' : 's'} of the plan "${plan}" (only the first ${MAX_VIOLATIONS} are listed)`, plan };
}

function violationOf(e: Err, subs: Sub[] | undefined, data: unknown, s: ViolationSubject): Violation {
  const p = e.params;
  const here = fieldPath(s.section, e.instancePath, data);
  const path = `/${s.section}${e.instancePath}`;
  const value = valueAt(data, e.instancePath);
  const v = (type: ViolationType, at: string, message: string): Violation => ({ type, path: at, message, plan: s.plan });
  switch (e.keyword) {
    case 'required': {
      const at = `${e.instancePath}/${escapePointer(String(p.missingProperty))}`;
      return v('Required-Missing', `/${s.section}${at}`, `${fieldPath(s.section, at, data)} is required by the plan "${s.plan}" for ${s.target}`);
    }
    case 'additionalProperties': {
      const at = `${e.instancePath}/${escapePointer(String(p.additionalProperty))}`;
      return v('Additional-Properties', `/${s.section}${at}`, `${fieldPath(s.section, at, data)} is not in the plan "${s.plan}" for ${s.target}`);
    }
    case 'type':
      return v('Datatype-Mismatch', path, `${here} must ${need(e)}; got ${typedValue(value)}`);
    case 'dependencies':
    case 'dependentRequired': {
      const at = `${e.instancePath}/${escapePointer(String(p.missingProperty))}`;
      const trigger = fieldPath(s.section, `${e.instancePath}/${escapePointer(String(p.property))}`, data);
      return v('Unknown-Violation', `/${s.section}${at}`, `${fieldPath(s.section, at, data)} is required by the plan "${s.plan}" when ${trigger} is present`);
    }
    case 'propertyNames':
      return v('Unknown-Violation', path, `${here} has a field named ${preview(p.propertyName)} that the plan "${s.plan}" does not allow for ${s.target}`);
    case 'false schema':
      if (e.instancePath === '') return v('Unknown-Violation', path, `the plan "${s.plan}" does not allow ${s.target} (its schema is false)`);
      return v('Unknown-Violation', path, `${here} must not be present: the plan "${s.plan}" does not allow it for ${s.target}`);
    case 'anyOf':
    case 'oneOf': {
      if (e.keyword === 'oneOf' && Array.isArray(p.passingSchemas)) {
        const which = (p.passingSchemas as number[]).map((n) => `#${n + 1}`).join(' and ');
        return v('Unknown-Violation', path, `${here} must match exactly one of the plan's alternatives; it matches ${which}`);
      }
      const branches = branchNeeds(e, subs ?? []);
      if (branches === null) return v('Unknown-Violation', path, `${here} must match one of the plan's alternatives (${e.keyword}); got ${preview(value)}`);
      // A union of plain types (`anyOf: [{type: string}, {type: null}]`) is a type list spelt long: same violation type.
      const onlyTypes = branches.every((b) => b.keyword === 'type');
      return v(onlyTypes ? 'Datatype-Mismatch' : 'Unknown-Violation', path, `${here} must ${joinNeeds(branches.map((b) => need(b)))}; got ${onlyTypes ? typedValue(value) : preview(value)}`);
    }
    case 'pattern':
      if (typeof value === 'string' && value.length > MAX_PATTERN_INPUT) {
        return v('Unknown-Violation', path, `${here} is longer than ${MAX_PATTERN_INPUT.toLocaleString('en-US')} characters; Sluice does not match patterns against it`);
      }
      return v('Unknown-Violation', path, `${here} must ${need(e)}; ${gotFor(e, value)}`);
    default:
      return v('Unknown-Violation', path, `${here} must ${need(e)}; ${gotFor(e, value)}`);
  }
}

/** Each alternative's one error at the alternative's own place, or null when some alternative failed in a way one phrase cannot tell. */
function branchNeeds(group: Err, subs: Sub[]): Err[] | null {
  const byBranch = new Map<number, Err[]>();
  for (const { error, branch } of subs) {
    if (branch === AMBIGUOUS) return null;
    const list = byBranch.get(branch);
    if (list) list.push(error);
    else byBranch.set(branch, [error]);
  }
  const out: Err[] = [];
  for (const list of byBranch.values()) {
    const e = list[0]!;
    if (list.length !== 1 || e.instancePath !== group.instancePath || !SIMPLE.has(e.keyword)) return null;
    out.push(e);
  }
  return out.length > 0 ? out : null;
}

const SIMPLE = new Set(['type', 'enum', 'const', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'multipleOf']);

/** 'be a string', 'be one of "a", "b"' ... : what the keyword asks for, to follow "must". */
export function need(e: Err): string {
  const p = e.params;
  switch (e.keyword) {
    case 'type':
      return `be ${typeNames(p.type)}`;
    case 'enum':
      return `be one of ${listOf(p.allowedValues as unknown[])}`;
    case 'const':
      return `be ${preview(p.allowedValue)}`;
    case 'pattern':
      return `match ${clip(String(p.pattern), SCHEMA_TEXT_CHARS)}`;
    case 'format':
      return `be ${FORMATS[p.format as string] ?? `in the format "${clip(String(p.format), 40)}"`}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `be ${COMPARISONS[p.comparison as string] ?? p.comparison} ${p.limit}`;
    case 'minLength':
      return `be at least ${count(p.limit, 'character')} long`;
    case 'maxLength':
      return `be at most ${count(p.limit, 'character')} long`;
    case 'minItems':
      return `have at least ${count(p.limit, 'item')}`;
    case 'maxItems':
    case 'additionalItems':
      return `have at most ${count(p.limit, 'item')}`;
    case 'minProperties':
      return `have at least ${count(p.limit, 'field')}`;
    case 'maxProperties':
      return `have at most ${count(p.limit, 'field')}`;
    case 'multipleOf':
      return `be a multiple of ${p.multipleOf}`;
    case 'uniqueItems':
      return 'not repeat items';
    case 'contains':
      return 'contain an item the plan allows';
    case 'not':
      return 'not match the schema under "not" in the plan';
    default:
      return `satisfy "${e.keyword}" (${e.message ?? 'see the plan'})`;
  }
}

/** What came instead, told the way the keyword counts it. */
function gotFor(e: Err, value: unknown): string {
  switch (e.keyword) {
    case 'minLength':
    case 'maxLength':
      return typeof value === 'string' ? `got ${preview(value)} (${count(value.length, 'character')})` : `got ${preview(value)}`;
    case 'minItems':
    case 'maxItems':
    case 'additionalItems':
      return Array.isArray(value) ? `got ${count(value.length, 'item')}` : `got ${preview(value)}`;
    case 'minProperties':
    case 'maxProperties':
      return value !== null && typeof value === 'object' ? `got ${count(Object.keys(value).length, 'field')}` : `got ${preview(value)}`;
    case 'uniqueItems':
      return `items [${e.params.j}] and [${e.params.i}] are the same`;
    default:
      return `got ${preview(value)}`;
  }
}

const TYPE_NAMES: Record<string, string> = { string: 'a string', number: 'a number', integer: 'an integer', boolean: 'a boolean', null: 'null', array: 'an array', object: 'an object' };
const COMPARISONS: Record<string, string> = { '>=': 'at least', '<=': 'at most', '>': 'greater than', '<': 'less than' };
const FORMATS: Record<string, string> = {
  email: 'an email address',
  'idn-email': 'an email address',
  'date-time': 'a date-time (ISO 8601, e.g. 2024-05-01T12:00:00Z)',
  'iso-date-time': 'a date-time (ISO 8601)',
  date: 'a date (YYYY-MM-DD)',
  time: 'a time (hh:mm:ss with a time zone)',
  'iso-time': 'a time (hh:mm:ss)',
  duration: 'an ISO 8601 duration (e.g. P1DT2H)',
  uri: 'an absolute URI',
  'uri-reference': 'a URI reference',
  url: 'a URL',
  uuid: 'a UUID',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  hostname: 'a host name',
  regex: 'a regular expression',
  byte: 'base64 data',
  int32: 'a 32-bit integer',
  int64: 'a 64-bit integer',
  'json-pointer': 'a JSON Pointer',
  'relative-json-pointer': 'a relative JSON Pointer',
  'uri-template': 'a URI template',
};

function typeNames(type: unknown): string {
  const list = Array.isArray(type) ? type.map(String) : String(type).split(',');
  return orList(list.map((t) => TYPE_NAMES[t] ?? t));
}

function orList(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** Alternatives' needs as one: ['be a string', 'be null'] → 'be a string or null'. */
function joinNeeds(needs: string[]): string {
  const unique = [...new Set(needs)];
  return unique.every((n) => n.startsWith('be ')) ? `be ${orList(unique.map((n) => n.slice(3)))}` : orList(unique);
}

function listOf(values: unknown[]): string {
  let text = '';
  let shown = 0;
  for (const value of values) {
    const item = preview(value);
    if (shown > 0 && text.length + item.length > SCHEMA_TEXT_CHARS) break;
    text += (shown > 0 ? ', ' : '') + item;
    shown++;
  }
  return shown < values.length ? `${text} (or ${values.length - shown} more)` : text;
}

function count(n: unknown, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The value with its JSON type, for type mismatches: 'the string "12"', 'the integer 3', 'the number 2.5', 'null'. */
export function typedValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array ${preview(value)}`;
  const type = typeof value;
  if (type === 'object') return `an object ${preview(value)}`;
  if (type === 'number') return `the ${Number.isInteger(value) ? 'integer' : 'number'} ${preview(value)}`;
  return `the ${type} ${preview(value)}`;
}

/** The value as JSON, cut at VALUE_CHARS without serializing what will not be shown. */
export function preview(value: unknown): string {
  const text = previewInto(value, VALUE_CHARS + 1);
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text;
}

function previewInto(value: unknown, budget: number): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > budget ? value.slice(0, budget) : value);
  if (value === null || typeof value !== 'object') return typeof value === 'number' && !Number.isFinite(value) ? 'null' : String(value);
  const isArray = Array.isArray(value);
  let text = isArray ? '[' : '{';
  let first = true;
  for (const key of isArray ? value.keys() : Object.keys(value)) {
    if (text.length >= budget) break;
    const item = previewInto((value as Record<string | number, unknown>)[key], budget - text.length);
    text += (first ? '' : ',') + (isArray ? item : `${JSON.stringify(clip(String(key), budget))}:${item}`);
    first = false;
  }
  return text + (isArray ? ']' : '}');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * A JSON Pointer under `root` written as a person reads it: 'properties.items[0].price',
 * 'properties["first name"]'. Array indices are told from object keys "0" by looking at `root`.
 */
export function fieldPath(prefix: string, pointer: string, root: unknown): string {
  if (pointer === '') return prefix;
  let text = prefix;
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.includes('~') ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw;
    if (Array.isArray(node) && /^\d+$/.test(key)) text += `[${key}]`;
    else if (IDENTIFIER.test(key) && key.length <= VALUE_CHARS) text += `.${key}`;
    else text += `[${JSON.stringify(clip(key, VALUE_CHARS))}]`;
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  }
  // Keep the start (which section) and the end (which field); the middle of a long path helps least.
  return text.length > FIELD_CHARS ? `${text.slice(0, 40)}…${text.slice(text.length - (FIELD_CHARS - 41))}` : text;
}

export function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    const key = raw.includes('~') ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw;
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

export function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
