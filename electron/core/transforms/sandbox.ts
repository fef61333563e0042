/**
 * The sandbox a transform's file runs in (inside a worker): a `node:vm` context of its own holding only
 * what a call is given — console (captured into the call's logs), fetch, URL, URLSearchParams,
 * TextEncoder/TextDecoder, atob/btoa, structuredClone, crypto.randomUUID, setTimeout/clearTimeout, the
 * error classes RetryError, DropEvent, EventNotSupported and ValidationError, and module/exports — and
 * nothing of Node's: no require, process, import or file system. The file's top level runs once per
 * worker and version; its handlers (Segment's insert-function names, onEvent as the fallback) are found
 * as top-level declarations or on module.exports. Not a security boundary (docs/transforms.md).
 */
import { randomUUID } from 'node:crypto';
import vm from 'node:vm';
import type { CallLogs } from './call-logs.ts';
import type { TransformLogLine } from './transformer.ts';

/** The handler for each message type, as Segment's insert functions name them. */
export const HANDLER_FOR_TYPE: Readonly<Record<string, string>> = {
  track: 'onTrack',
  identify: 'onIdentify',
  page: 'onPage',
  screen: 'onScreen',
  group: 'onGroup',
  alias: 'onAlias',
  delete: 'onDelete',
};
/** Called for a type whose handler the file does not define. */
export const FALLBACK_HANDLER = 'onEvent';
export const HANDLER_NAMES: readonly string[] = [...Object.values(HANDLER_FOR_TYPE), FALLBACK_HANDLER];

export interface SandboxHost {
  /** The logs of the call whose code runs now (null: none — the file's top level, or a call already settled). */
  currentLogs(): CallLogs | null;
  /** setTimeout for the user's code: `callback` runs as part of the call that set it. */
  setTimeout(callback: unknown, ms: unknown, args: unknown[]): number;
  clearTimeout(id: unknown): void;
}

export interface Sandbox {
  /** The handler names the file defines. */
  handlers: string[];
  /** The handler for a message of this type (its own, else onEvent), or null. */
  handlerFor(type: unknown): { name: string; fn: (...args: unknown[]) => unknown } | null;
  /** The input event: the JSON text parsed in the sandbox's realm (a copy the user may change at will). */
  parse(json: string): unknown;
  /** The second argument: the settings' own keys, plus `settings` and `log` (which win over keys so named). */
  second(settingsJson: string, logs: CallLogs): unknown;
}

/** Made inside the context, so that what the user's code touches is of its own realm. */
const BOOTSTRAP = `(function (host) {
  'use strict';
  const define = (name) => {
    const C = class extends Error { constructor(message) { super(message); this.name = name; } };
    Object.defineProperty(C, 'name', { value: name });
    return C;
  };
  const errors = { RetryError: define('RetryError'), DropEvent: define('DropEvent'), EventNotSupported: define('EventNotSupported'), ValidationError: define('ValidationError') };
  const levels = { log: 'log', info: 'info', warn: 'warn', error: 'error', debug: 'log', trace: 'log' };
  const console = {};
  for (const method of Object.keys(levels)) console[method] = (...args) => host.log(null, levels[method], args);
  const parse = JSON.parse;
  const module = { exports: {} };
  return {
    globals: { console, module, exports: module.exports, ...errors },
    parse: (text) => parse(text),
    second: (settingsText, logs) => {
      const settings = parse(settingsText);
      return { ...settings, settings, log: (...args) => host.log(logs, 'log', args) };
    },
  };
})`;

const FIND_HANDLERS = `(() => {
  const exported = typeof module === 'object' && module !== null && module.exports != null ? module.exports : {};
  const found = {};
${HANDLER_NAMES.map((name) => `  found.${name} = typeof exported.${name} === 'function' ? exported.${name} : typeof ${name} === 'function' ? ${name} : undefined;`).join('\n')}
  return found;
})()`;

interface Bootstrapped {
  globals: Record<string, unknown>;
  parse(text: string): unknown;
  second(settingsText: string, logs: CallLogs): unknown;
}

/**
 * Compiles `source` (named `filename` in stacks and syntax errors) and runs its top level in a new
 * context. Throws what the top level throws (a SyntaxError for a file that does not compile).
 */
export function createSandbox(source: string, filename: string, host: SandboxHost): Sandbox {
  const context = vm.createContext({}, { name: `transform ${filename}`, codeGeneration: { strings: true, wasm: false } });
  const log = (logs: CallLogs | null, level: TransformLogLine['level'], args: unknown[]) => (logs ?? host.currentLogs())?.add(level, args);
  const inside = (new vm.Script(BOOTSTRAP, { filename: 'sluice:transform-sandbox' }).runInContext(context) as (host: unknown) => Bootstrapped)({ log });
  Object.assign(context, inside.globals, {
    fetch,
    URL,
    URLSearchParams,
    TextEncoder,
    TextDecoder,
    atob,
    btoa,
    structuredClone,
    crypto: { randomUUID: () => randomUUID() },
    setTimeout: (callback: unknown, ms: unknown, ...args: unknown[]) => host.setTimeout(callback, ms, args),
    clearTimeout: (id: unknown) => host.clearTimeout(id),
  });
  new vm.Script(source, { filename }).runInContext(context);
  const found = new vm.Script(FIND_HANDLERS, { filename: 'sluice:transform-sandbox' }).runInContext(context) as Record<string, ((...args: unknown[]) => unknown) | undefined>;
  const handlers = HANDLER_NAMES.filter((name) => found[name] !== undefined);
  return {
    handlers,
    handlerFor(type) {
      const own = typeof type === 'string' && Object.hasOwn(HANDLER_FOR_TYPE, type) ? HANDLER_FOR_TYPE[type] : undefined;
      const name = own !== undefined && found[own] ? own : found[FALLBACK_HANDLER] ? FALLBACK_HANDLER : null;
      return name ? { name, fn: found[name]! } : null;
    },
    parse: inside.parse,
    second: inside.second,
  };
}
