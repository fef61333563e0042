/**
 * A JSON Schema (as plans hold them: draft-07 read tolerantly, see compile-plan.ts) written as a
 * TypeScript type, for `sluice plan codegen`. The type accepts what the schema accepts as far as
 * TypeScript can say it: objects with their required and optional properties (closed when
 * `additionalProperties` is false, an index signature otherwise), arrays, tuples, enums and `const`
 * as literal unions, `type` lists and OpenAPI's `nullable`, anyOf/oneOf as unions and allOf as
 * intersections, integer as number, formats as string. `$ref`s within the schema (`#/definitions/…`,
 * `#/$defs/…`, any JSON Pointer into it) are followed; a reference back into itself becomes `unknown`.
 * What TypeScript cannot check (formats, patterns, bounds) goes into the property's JSDoc.
 * Deterministic: properties in the plan's order, nothing from the clock, so the same plan gives the same text.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const own = (object: Json, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);

/** Where a schema sits: its root (for `$ref`s) and the references being followed (to stop at a cycle). */
interface Scope {
  root: unknown;
  following: string[];
  /** What could not be followed, one sentence each (the command prints them). */
  notes: string[];
  label: string;
}

export interface SchemaType {
  /** The type's text, indented from `indent`. */
  text: string;
  notes: string[];
}

/** The TypeScript type of `schema`; `label` names it in notes ('events["Order Completed"]'). */
export function schemaType(schema: unknown, label: string, indent = ''): SchemaType {
  const scope: Scope = { root: schema, following: [], notes: [], label };
  return { text: typeOf(schema, scope, indent), notes: scope.notes };
}

/** Whether a value of `schema` is an object with these required keys: for an event's `props` argument. */
export function requiredKeys(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  const required = own(schema, 'required');
  return Array.isArray(required) ? required.filter((key): key is string => typeof key === 'string') : [];
}

const SIMPLE: Record<string, string> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', null: 'null' };

function typeOf(schema: unknown, scope: Scope, indent: string): string {
  if (schema === true || (isObject(schema) && Object.keys(schema).every(isAnnotation))) return 'unknown';
  if (schema === false) return 'never';
  if (!isObject(schema)) return 'unknown';

  const ref = own(schema, '$ref');
  if (typeof ref === 'string') return refType(ref, scope, indent);

  const parts: string[] = [];
  const constant = own(schema, 'const');
  const values = own(schema, 'enum');
  if (Object.hasOwn(schema, 'const')) parts.push(literal(constant));
  else if (Array.isArray(values)) parts.push(values.length === 0 ? 'never' : union(values.map(literal)));
  else {
    const types = typeList(schema);
    if (types === undefined) parts.push(shapeless(schema, scope, indent));
    else parts.push(union(types.map((type) => typed(type, schema, scope, indent))));
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = own(schema, key);
    if (Array.isArray(list) && list.length > 0) parts.push(group(union(list.map((item) => group(typeOf(item, scope, indent))))));
  }
  const all = own(schema, 'allOf');
  if (Array.isArray(all)) for (const item of all) parts.push(group(typeOf(item, scope, indent)));
  const kept = parts.filter((part) => part !== 'unknown');
  return kept.length === 0 ? 'unknown' : kept.length === 1 ? kept[0]! : kept.map(group).join(' & ');
}

/** Keywords that say nothing about what a value may be. */
function isAnnotation(key: string): boolean {
  return ['$schema', '$id', 'id', '$comment', 'title', 'description', 'examples', 'default', 'labels', 'readOnly', 'writeOnly', 'deprecated', 'definitions', '$defs'].includes(key);
}

/** The schema's `type` as a list (with `nullable`'s null); undefined when it names none. */
function typeList(schema: Json): string[] | undefined {
  const type = own(schema, 'type');
  let types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : undefined;
  if (types === undefined) return undefined;
  if (own(schema, 'nullable') === true && !types.includes('null')) types = [...types, 'null'];
  // Both number and integer: one `number`.
  return [...new Set(types.map((t) => (t === 'integer' ? 'number' : t)))];
}

/** A schema without `type`: its shape says what it is (properties → an object, items → an array), else anything. */
function shapeless(schema: Json, scope: Scope, indent: string): string {
  if (['properties', 'required', 'additionalProperties', 'patternProperties'].some((key) => Object.hasOwn(schema, key))) return objectType(schema, scope, indent);
  if (Object.hasOwn(schema, 'items')) return arrayType(schema, scope, indent);
  return 'unknown';
}

function typed(type: string, schema: Json, scope: Scope, indent: string): string {
  if (type === 'object') return objectType(schema, scope, indent);
  if (type === 'array') return arrayType(schema, scope, indent);
  return SIMPLE[type] ?? 'unknown';
}

function objectType(schema: Json, scope: Scope, indent: string): string {
  const properties = isObject(own(schema, 'properties')) ? (own(schema, 'properties') as Json) : {};
  const required = new Set(requiredKeys(schema));
  const inner = `${indent}  `;
  const lines: string[] = [];
  const memberTypes: string[] = [];
  let optional = false;
  for (const [key, value] of Object.entries(properties)) {
    const type = typeOf(value, scope, inner);
    memberTypes.push(type);
    if (!required.has(key)) optional = true;
    const doc = propertyDoc(value, scope);
    if (doc.length > 0) lines.push(...jsDoc(doc, inner));
    lines.push(`${inner}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${type};`);
  }
  // Required keys the schema gives no schema for: present, of any value.
  for (const key of required) {
    if (Object.hasOwn(properties, key)) continue;
    lines.push(`${inner}${propertyKey(key)}: unknown;`);
  }
  const extra = own(schema, 'additionalProperties');
  const patterns = own(schema, 'patternProperties');
  const closed = extra === false && !(isObject(patterns) && Object.keys(patterns).length > 0);
  if (!closed) {
    // A named property's type must fit the index signature: the signature takes theirs as well.
    const typed = isObject(extra) && !(isObject(patterns) && Object.keys(patterns).length > 0);
    const extraType = typed ? typeOf(extra, scope, inner) : 'unknown';
    const all = extraType === 'unknown' ? 'unknown' : union([extraType, ...memberTypes.map(group), ...(optional ? ['undefined'] : [])]);
    lines.push(`${inner}[property: string]: ${all};`);
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function arrayType(schema: Json, scope: Scope, indent: string): string {
  const items = own(schema, 'items');
  if (Array.isArray(items)) {
    // Draft-07's tuple form: each position its own schema; more items only when additionalItems allows them.
    const positions = items.map((item) => typeOf(item, scope, indent));
    const more = own(schema, 'additionalItems');
    const min = typeof own(schema, 'minItems') === 'number' ? (own(schema, 'minItems') as number) : 0;
    const slots = positions.map((type, i) => (i < min ? type : `${group(type)}?`));
    if (more !== false) slots.push(`...${group(more === undefined || more === true ? 'unknown' : typeOf(more, scope, indent))}[]`);
    return `[${slots.join(', ')}]`;
  }
  if (items === undefined) return 'unknown[]';
  return `${group(typeOf(items, scope, indent))}[]`;
}

function refType(ref: string, scope: Scope, indent: string): string {
  if (scope.following.includes(ref)) {
    scope.notes.push(`${scope.label}: ${JSON.stringify(ref)} refers back into itself; it is typed unknown there`);
    return 'unknown';
  }
  const target = ref.startsWith('#') ? pointerAt(scope.root, ref.slice(1)) : undefined;
  if (target === undefined) {
    scope.notes.push(`${scope.label}: ${JSON.stringify(ref)} cannot be followed (only references within the same schema are); it is typed unknown`);
    return 'unknown';
  }
  scope.following.push(ref);
  try {
    return typeOf(target.value, scope, indent);
  } finally {
    scope.following.pop();
  }
}

function pointerAt(root: unknown, pointer: string): { value: unknown } | undefined {
  if (pointer === '') return { value: root };
  if (!pointer.startsWith('/')) return undefined;
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return { value: node };
}

/** What a property's JSDoc says: its description, then what TypeScript cannot check. */
export function propertyDoc(schema: unknown, scope?: Scope): string[] {
  let node = schema;
  // A property that is only a reference: its target's description and constraints.
  const ref = isObject(node) ? own(node, '$ref') : undefined;
  if (typeof ref === 'string' && ref.startsWith('#') && scope !== undefined && own(node as Json, 'description') === undefined) {
    node = pointerAt(scope.root, ref.slice(1))?.value ?? node;
  }
  if (!isObject(node)) return [];
  const out: string[] = [];
  const description = own(node, 'description');
  if (typeof description === 'string' && description.trim() !== '') out.push(...description.trim().split(/\r?\n/));
  const constraints: string[] = [];
  const say = (key: string, words: string) => {
    const value = own(node as Json, key);
    if (typeof value === 'number' || typeof value === 'string') constraints.push(`${words} ${typeof value === 'string' ? JSON.stringify(value) : value}`);
  };
  const type = own(node, 'type');
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer') && !type.includes('number'))) constraints.push('a whole number');
  say('format', 'format');
  say('pattern', 'matching');
  say('minimum', 'at least');
  say('exclusiveMinimum', 'more than');
  say('maximum', 'at most');
  say('exclusiveMaximum', 'less than');
  say('minLength', 'at least this many characters:');
  say('maxLength', 'at most this many characters:');
  say('minItems', 'at least this many items:');
  say('maxItems', 'at most this many items:');
  if (constraints.length > 0) out.push(`The plan also checks: ${constraints.join('; ')}.`);
  return out;
}

/** `/** … *\/` lines; `*\/` inside the text is broken so that it cannot end the comment. */
export function jsDoc(lines: string[], indent: string): string[] {
  const safe = lines.map((line) => line.replace(/\*\//g, '*\\/').trimEnd());
  if (safe.length === 1) return [`${indent}/** ${safe[0]} */`];
  return [`${indent}/**`, ...safe.map((line) => (line === '' ? `${indent} *` : `${indent} * ${line}`)), `${indent} */`];
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyKey(key: string): string {
  return IDENTIFIER.test(key) ? key : literal(key);
}

/** A JSON value as a TypeScript literal type: 'EUR', 42, true, null; objects and arrays as JSON (valid type syntax). */
export function literal(value: unknown): string {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')}'`;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'number';
  if (typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return `readonly [${value.map(literal).join(', ')}]`;
  if (isObject(value)) return `{ ${Object.entries(value).map(([k, v]) => `${propertyKey(k)}: ${literal(v)}`).join('; ')} }`;
  return 'unknown';
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  if (unique.includes('unknown')) return 'unknown';
  const kept = unique.filter((type) => type !== 'never');
  return kept.length === 0 ? 'never' : kept.join(' | ');
}

/** Parenthesised when it holds a top-level union or intersection, for use inside a bigger type. */
function group(type: string): string {
  let depth = 0;
  for (let i = 0; i < type.length; i++) {
    const c = type[i]!;
    if (c === '{' || c === '(' || c === '[' || c === '<') depth++;
    else if (c === '}' || c === ')' || c === ']' || c === '>') depth--;
    else if (c === "'") {
      for (i++; i < type.length && type[i] !== "'"; i++) if (type[i] === '\\') i++;
    } else if (depth === 0 && (c === '|' || c === '&')) return `(${type})`;
  }
  return type;
}
