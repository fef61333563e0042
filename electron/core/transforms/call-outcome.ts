/**
 * What a handler's return or throw comes to (the policy of TransformOutcome, inside the worker): the
 * event(s) to send as JSON text, a drop, a retry or a failure. A return JSON cannot carry is a
 * `not-json` failure naming what and where, rather than a body that silently loses it.
 */
import { inspect } from 'node:util';
import type { TransformFailure, TransformLogLine } from './transformer.ts';

/** A call's outcome in the worker: the events as their JSON text. */
export type Outcome =
  | { kind: 'events'; events: string[]; changed: boolean }
  | { kind: 'dropped'; reason: string }
  | { kind: 'retry'; message: string }
  | { kind: 'failed'; code: TransformFailure; message: string; stack?: string };

/** One CallResult as JSON text, the events' text spliced in as it is (not encoded again). */
export function encodeResult(outcome: Outcome, ms: number, logs: readonly TransformLogLine[]): string {
  const tail = `"ms":${Math.round(ms * 1000) / 1000},"logs":${logs.length === 0 ? '[]' : JSON.stringify(logs)}}`;
  if (outcome.kind === 'events') return `{"kind":"events","changed":${outcome.changed},"events":[${outcome.events.join(',')}],${tail}`;
  const text = JSON.stringify(outcome);
  return `${text.slice(0, -1)},${tail}`;
}

/** The outcome of `returned`, from handler `handler`, for an input whose JSON text is `input`. */
export function fromReturn(returned: unknown, handler: string, input: string): Outcome {
  if (returned === null || returned === undefined) return { kind: 'dropped', reason: `${handler} returned ${returned === null ? 'null' : 'nothing'}` };
  if (Array.isArray(returned)) {
    if (returned.length === 0) return { kind: 'dropped', reason: `${handler} returned an empty array` };
    const events: string[] = [];
    for (let i = 0; i < returned.length; i++) {
      const item: unknown = returned[i];
      if (!isPlainObject(item)) return notJson(`${handler} returned an array whose item [${i}] is ${describe(item)}; each item must be an event (an object)`);
      const problem = jsonProblem(item, `[${i}]`);
      if (problem) return notJson(`${handler} returned what JSON cannot carry: ${problem}`);
      const text = stringify(item, `[${i}]`);
      if (text.startsWith('!')) return notJson(`${handler} returned what JSON cannot carry: ${text.slice(1)}`);
      events.push(text);
    }
    return { kind: 'events', events, changed: events.length !== 1 || events[0] !== input };
  }
  if (!isPlainObject(returned)) return notJson(`${handler} returned ${describe(returned)}; return the event (an object), an array of events to send several, or null to drop it`);
  const problem = jsonProblem(returned, '');
  if (problem) return notJson(`${handler} returned what JSON cannot carry: ${problem}`);
  const text = stringify(returned, 'the top');
  if (text.startsWith('!')) return notJson(`${handler} returned what JSON cannot carry: ${text.slice(1)}`);
  return { kind: 'events', events: [text], changed: text !== input };
}

/** The outcome of `thrown`: DropEvent drops, RetryError retries, anything else fails with its stack (frames in `filename` only). */
export function fromThrow(thrown: unknown, filename: string): Outcome {
  const name = errorName(thrown);
  const message = typeof thrown === 'object' && thrown !== null && typeof (thrown as Error).message === 'string' ? (thrown as Error).message : '';
  if (name === 'DropEvent') return { kind: 'dropped', reason: message || 'the transform threw DropEvent' };
  if (name === 'RetryError') return { kind: 'retry', message: message || 'the transform threw RetryError' };
  if (name === null) return { kind: 'failed', code: 'error', message: `the transform threw ${inspect(thrown, { depth: 2, breakLength: Infinity })} (not an Error)` };
  const stack = userStack((thrown as Error).stack, filename);
  return { kind: 'failed', code: 'error', message: `${name}: ${message}`, ...(stack ? { stack } : {}) };
}

/** An Error's (or any realm's Error subclass's) name; null for something that is not an error. */
function errorName(thrown: unknown): string | null {
  if (typeof thrown !== 'object' || thrown === null) return null;
  const stack = (thrown as Error).stack;
  const name = (thrown as Error).name;
  if (typeof name === 'string' && (typeof stack === 'string' || Object.prototype.toString.call(thrown) === '[object Error]')) return name;
  return null;
}

/** The stack's head and the frames that point into the user's file (the runtime's own frames say nothing to them). */
export function userStack(stack: unknown, filename: string): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const lines = stack.split('\n');
  const firstFrame = lines.findIndex((line) => /^\s+at /.test(line));
  if (firstFrame < 0) return stack;
  const frames = lines.slice(firstFrame).filter((line) => line.includes(filename));
  return [...lines.slice(0, firstFrame), ...frames].join('\n');
}

/** JSON text, or "!" and why not (a toJSON that returned a BigInt, a getter that threw). */
function stringify(value: object, at: string): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    return `!${(error as Error).message} (under ${at})`;
  }
}

function notJson(message: string): Outcome {
  return { kind: 'failed', code: 'not-json', message };
}

/** Object.prototype of each realm seen (the sandbox's objects have their own). */
const objectPrototypes = new WeakSet<object>();

/** A plain object of any realm. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto === null || objectPrototypes.has(proto)) return true;
  const plain = Object.getPrototypeOf(proto) === null && Object.prototype.toString.call(value) === '[object Object]' && typeof (proto as { hasOwnProperty?: unknown }).hasOwnProperty === 'function' && Object.hasOwn(proto, 'hasOwnProperty');
  if (plain) objectPrototypes.add(proto);
  return plain;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'bigint') return `a BigInt (${value}n)`;
  if (typeof value === 'function') return `a function${value.name ? ` (${value.name})` : ''}`;
  if (typeof value === 'symbol') return `a symbol (${String(value)})`;
  if (typeof value === 'number' && !Number.isFinite(value)) return `${value} (JSON has no such number)`;
  if (typeof value !== 'object') return `a ${typeof value} (${inspect(value, { breakLength: Infinity }).slice(0, 60)})`;
  if (Array.isArray(value)) return 'an array';
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return name ? `a ${name}` : 'an object';
}

/**
 * The first value under `value` that JSON cannot carry, as "a BigInt at properties.total" — a BigInt,
 * function, symbol, NaN or Infinity, a cycle, or an object that is not plain (a Map, a class's
 * instance; a Date and anything with toJSON are fine). Undefined properties are left out, as JSON does.
 * Null when there is none. `prefix`: the path of `value` itself ("" for the returned event).
 */
export function jsonProblem(value: unknown, prefix: string): string | null {
  const trail: (string | number)[] = [];
  const what = unfit(value, [], trail);
  if (what === null) return null;
  const path = prefix + trail.reverse().map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('');
  return `${what} at ${path === '' ? 'the top' : path.replace(/^\./, '')}`;
}

/** What is unfit under `value` (its path pushed onto `trail`, innermost first), or null. */
function unfit(value: unknown, ancestors: object[], trail: (string | number)[]): string | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : describe(value);
    case 'bigint':
    case 'function':
    case 'symbol':
      return describe(value);
  }
  if (value === null) return null;
  const object = value as Record<string, unknown>;
  if (ancestors.includes(object)) return 'a cycle (an object that contains itself)';
  if (ancestors.length >= 200) return 'nesting deeper than 200 levels';
  if (Array.isArray(object)) {
    ancestors.push(object);
    for (let i = 0; i < object.length; i++) {
      const problem = unfit(object[i], ancestors, trail);
      if (problem !== null) {
        trail.push(i);
        return problem;
      }
    }
    ancestors.pop();
    return null;
  }
  if (!isPlainObject(object)) return typeof (object as { toJSON?: unknown }).toJSON === 'function' ? null : `${describe(object)} (JSON would turn it into {} or lose it)`;
  ancestors.push(object);
  for (const key of Object.keys(object)) {
    const problem = unfit(object[key], ancestors, trail);
    if (problem !== null) {
      trail.push(key);
      return problem;
    }
  }
  ancestors.pop();
  return null;
}

/** Why a call ran past its limit: a synchronous stretch (the worker was stopped) or a promise that had not settled. */
export function timeoutMessage(ms: number, how: 'sync' | 'async'): string {
  const limit = `${ms.toLocaleString('en-US')} ms`;
  return how === 'sync'
    ? `the transform ran past its ${limit} limit and was stopped`
    : `the transform ran past its ${limit} limit (its promise had not settled); whatever it returns later is ignored`;
}
