/**
 * What a transform changed in a message: the fields added, removed or changed between its input and
 * one output, by path — each as a dotted path for the list and a JSON Pointer for the tree's notes
 * (components/json-pointer.ts). Objects are compared key by key, arrays item by item; a value whose
 * kind changed (an object become a string) is one change. Pure, tested in Node.
 */
import { childPointer } from '../../components/json-pointer.ts';

export interface FieldChange {
  kind: 'added' | 'removed' | 'changed';
  /** "properties.price", "products[0].sku"; "(the whole message)" for the root. */
  path: string;
  pointer: string;
  before?: unknown;
  after?: unknown;
}

/** At most this many changes are listed (a transform that rewrites everything says so once). */
export const MAX_CHANGES = 200;

export function diffJson(before: unknown, after: unknown, limit = MAX_CHANGES): { changes: FieldChange[]; more: boolean } {
  const changes: FieldChange[] = [];
  let more = false;
  const add = (change: FieldChange) => {
    if (changes.length < limit) changes.push(change);
    else more = true;
  };
  const walk = (a: unknown, b: unknown, path: string, pointer: string) => {
    if (Object.is(a, b)) return;
    if (isRecord(a) && isRecord(b)) {
      for (const key of Object.keys(a)) {
        const p = join(path, key);
        if (!(key in b)) add({ kind: 'removed', path: p, pointer: childPointer(pointer, key), before: a[key] });
        else walk(a[key], b[key], p, childPointer(pointer, key));
      }
      for (const key of Object.keys(b)) if (!(key in a)) add({ kind: 'added', path: join(path, key), pointer: childPointer(pointer, key), after: b[key] });
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      const n = Math.max(a.length, b.length);
      for (let i = 0; i < n; i++) {
        const p = `${path}[${i}]`;
        if (i >= b.length) add({ kind: 'removed', path: p, pointer: childPointer(pointer, i), before: a[i] });
        else if (i >= a.length) add({ kind: 'added', path: p, pointer: childPointer(pointer, i), after: b[i] });
        else walk(a[i], b[i], p, childPointer(pointer, i));
      }
      return;
    }
    add({ kind: 'changed', path: path || '(the whole message)', pointer, before: a, after: b });
  };
  walk(before, after, '', '');
  return { changes, more };
}

/** A value as one short line: JSON, cut at `max` characters. */
export function shortJson(value: unknown, max = 80): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
