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

/**
 * A type's text, and whether it must be parenthesised inside a bigger type (a top-level union or
 * intersection, or `readonly …`): said by whoever builds it, never read back from the text, which holds
 * JSDoc and string literals.
 */
interface TypeText {
  text: string;
  needsParens: boolean;
}

const UNKNOWN: TypeText = { text: 'unknown', needsParens: false };
const NEVER: TypeText = { text: 'never', needsParens: false };
const plain = (text: string): TypeText => ({ text, needsParens: false });

export interface SchemaType {
  /** The type's text, indented from `indent`. */
  text: string;
  notes: string[];
}

/** The TypeScript type of `schema`; `label` names it in notes ('events["Order Completed"]'). */
export function schemaType(schema: unknown, label: string, indent = ''): SchemaType {
  const scope: Scope = { root: schema, following: [], notes: [], label };
  return { text: typeOf(schema, scope, indent).text, notes: scope.notes };
}

/**
 * Whether a value of `schema` must hold some property — a `required` key or `minProperties` on the
 * schema, behind its `$ref`, in one of its `allOf`, or in every `anyOf`/`oneOf` alternative — so that an
 * event's `props` cannot be left out (`{}` would be refused).
 */
export function propsRequired(schema: unknown): boolean {
  return needsKeys(schema, schema, []);
}

function needsKeys(schema: unknown, root: unknown, following: string[]): boolean {
  if (!isObject(schema)) return false;
  const ref = own(schema, '$ref');
  if (typeof ref === 'string') {
    // As typeOf: a reference stands for its target (draft-07 ignores its siblings).
    if (following.includes(ref) || !ref.startsWith('#')) return false;
    const target = pointerAt(root, ref.slice(1));
    return target !== undefined && needsKeys(target.value, root, [...following, ref]);
  }
  const min = own(schema, 'minProperties');
  if (requiredKeys(schema).length > 0 || (typeof min === 'number' && min > 0)) return true;
  const all = own(schema, 'allOf');
  if (Array.isArray(all) && all.some((item) => needsKeys(item, root, following))) return true;
  return (['anyOf', 'oneOf'] as const).some((key) => {
    const list = own(schema, key);
    return Array.isArray(list) && list.length > 0 && list.every((item) => needsKeys(item, root, following));
  });
}

function requiredKeys(schema: unknown): string[] {
  if (!isObject(schema)) return [];
  const required = own(schema, 'required');
  return Array.isArray(required) ? required.filter((key): key is string => typeof key === 'string') : [];
}

const SIMPLE: Record<string, string> = { string: 'string', number: 'number', integer: 'number', boolean: 'boolean', null: 'null' };

function typeOf(schema: unknown, scope: Scope, indent: string): TypeText {
  if (schema === true || (isObject(schema) && Object.keys(schema).every(isAnnotation))) return UNKNOWN;
  if (schema === false) return NEVER;
  if (!isObject(schema)) return UNKNOWN;

  const ref = own(schema, '$ref');
  if (typeof ref === 'string') return refType(ref, scope, indent);

  const parts: TypeText[] = [];
  const constant = own(schema, 'const');
  const values = own(schema, 'enum');
  if (Object.hasOwn(schema, 'const')) parts.push(literalType(constant));
  else if (Array.isArray(values)) parts.push(values.length === 0 ? NEVER : union(values.map(literalType)));
  else {
    const types = typeList(schema);
    if (types === undefined) parts.push(shapeless(schema, scope, indent));
    else parts.push(union(types.map((type) => typed(type, schema, scope, indent))));
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = own(schema, key);
    if (Array.isArray(list) && list.length > 0) parts.push(plain(group(union(list.map((item) => plain(group(typeOf(item, scope, indent))))))));
  }
  const all = own(schema, 'allOf');
  if (Array.isArray(all)) for (const item of all) parts.push(plain(group(typeOf(item, scope, indent))));
  const kept = parts.filter((part) => part.text !== 'unknown');
  return kept.length === 0 ? UNKNOWN : kept.length === 1 ? kept[0]! : { text: kept.map(group).join(' & '), needsParens: true };
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
function shapeless(schema: Json, scope: Scope, indent: string): TypeText {
  if (['properties', 'required', 'additionalProperties', 'patternProperties'].some((key) => Object.hasOwn(schema, key))) return objectType(schema, scope, indent);
  if (Object.hasOwn(schema, 'items')) return arrayType(schema, scope, indent);
  return UNKNOWN;
}

function typed(type: string, schema: Json, scope: Scope, indent: string): TypeText {
  if (type === 'object') return objectType(schema, scope, indent);
  if (type === 'array') return arrayType(schema, scope, indent);
  return plain(SIMPLE[type] ?? 'unknown');
}

function objectType(schema: Json, scope: Scope, indent: string): TypeText {
  const properties = isObject(own(schema, 'properties')) ? (own(schema, 'properties') as Json) : {};
  const required = new Set(requiredKeys(schema));
  const inner = `${indent}  `;
  const lines: string[] = [];
  const memberTypes: TypeText[] = [];
  let optional = false;
  for (const [key, value] of Object.entries(properties)) {
    const type = typeOf(value, scope, inner);
    memberTypes.push(type);
    if (!required.has(key)) optional = true;
    const doc = propertyDoc(value, scope);
    if (doc.length > 0) lines.push(...jsDoc(doc, inner));
    lines.push(`${inner}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${type.text};`);
  }
  const extra = own(schema, 'additionalProperties');
  const patterns = own(schema, 'patternProperties');
  const hasPatterns = isObject(patterns) && Object.keys(patterns).length > 0;
  // What the validator applies to a property not named in `properties`: additionalProperties' schema
  // (patternProperties may apply instead: then anything).
  const extraType = isObject(extra) && !hasPatterns ? typeOf(extra, scope, inner) : UNKNOWN;
  // Required keys the schema gives no schema for: present, of what additionalProperties allows.
  for (const key of required) {
    if (Object.hasOwn(properties, key)) continue;
    memberTypes.push(extraType);
    lines.push(`${inner}${propertyKey(key)}: ${extraType.text};`);
  }
  const closed = extra === false && !hasPatterns;
  if (!closed) {
    // A named property's type must fit the index signature: the signature takes theirs as well.
    const all = extraType.text === 'unknown' ? UNKNOWN : union([extraType, ...memberTypes.map((t) => plain(group(t))), ...(optional ? [plain('undefined')] : [])]);
    lines.push(`${inner}[property: string]: ${all.text};`);
  }
  if (lines.length === 0) return plain('Record<string, never>');
  return plain(`{\n${lines.join('\n')}\n${indent}}`);
}

function arrayType(schema: Json, scope: Scope, indent: string): TypeText {
  const items = own(schema, 'items');
  if (Array.isArray(items)) {
    // Draft-07's tuple form: each position its own schema; more items only when additionalItems allows them.
    const positions = items.map((item) => typeOf(item, scope, indent));
    const more = own(schema, 'additionalItems');
    const min = typeof own(schema, 'minItems') === 'number' ? (own(schema, 'minItems') as number) : 0;
    const slots = positions.map((type, i) => (i < min ? type.text : `${group(type)}?`));
    if (more !== false) slots.push(`...${group(more === undefined || more === true ? UNKNOWN : typeOf(more, scope, indent))}[]`);
    return plain(`[${slots.join(', ')}]`);
  }
  if (items === undefined) return plain('unknown[]');
  return plain(`${group(typeOf(items, scope, indent))}[]`);
}

function refType(ref: string, scope: Scope, indent: string): TypeText {
  if (scope.following.includes(ref)) {
    scope.notes.push(`${scope.label}: ${JSON.stringify(ref)} refers back into itself; it is typed unknown there`);
    return UNKNOWN;
  }
  const target = ref.startsWith('#') ? pointerAt(scope.root, ref.slice(1)) : undefined;
  if (target === undefined) {
    scope.notes.push(`${scope.label}: ${JSON.stringify(ref)} cannot be followed (only references within the same schema are); it is typed unknown`);
    return UNKNOWN;
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

/** A literal as a type part: `readonly [...]` must be parenthesised before `[]` or `?`. */
function literalType(value: unknown): TypeText {
  const text = literal(value);
  return { text, needsParens: text.startsWith('readonly ') };
}

function union(types: TypeText[]): TypeText {
  const unique = [...new Map(types.map((type) => [type.text, type])).values()];
  if (unique.some((type) => type.text === 'unknown')) return UNKNOWN;
  const kept = unique.filter((type) => type.text !== 'never');
  return kept.length === 0 ? NEVER : kept.length === 1 ? kept[0]! : { text: kept.map((type) => type.text).join(' | '), needsParens: true };
}

/** Parenthesised when it holds a top-level union or intersection, for use inside a bigger type. */
function group(type: TypeText): string {
  return type.needsParens ? `(${type.text})` : type.text;
}
