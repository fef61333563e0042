/**
 * JSON Pointers (RFC 6901) into a value shown by JsonTree, and where a note about a pointer goes in
 * the tree: on the node it names, or — when that node does not exist (a required field that is
 * missing) — on its deepest existing ancestor, as "missing: <the rest>". Pure, tested in Node.
 */

/** A note shown beside a node of the tree (e.g. a tracking plan violation). */
export interface Annotation {
  /** JSON Pointer into the tree's value: "/properties/price"; "" is the root. */
  pointer: string;
  /** The sentence shown beside the field. */
  text: string;
  /** A short tag shown before it and in its tooltip (e.g. the violation type). */
  tag?: string;
  /** Its tooltip. */
  title?: string;
  /** 'change': a field a transform added or changed (a diff's mark, not a warning). Absent: a problem (⚠). */
  tone?: 'change';
}

/** An annotation where it is shown: `missing` names the part of its pointer that is not in the value. */
export interface PlacedAnnotation {
  annotation: Annotation;
  /** Index in the list given to placeAnnotations. */
  index: number;
  /** null: the node exists; otherwise the missing path below the node it is shown on ("price", "address/city"). */
  missing: string | null;
}

export interface Placement {
  /** By the pointer of the node they are shown on. */
  at: Map<string, PlacedAnnotation[]>;
  /** Pointers of every node that holds an annotation or has one below it: these start open. */
  open: Set<string>;
  /** For each annotation (by index), the pointer of the node it is shown on. */
  nodeOf: string[];
}

/** How many notes are shown on nodes below the one at `pointer` (which a folded node hides). */
export function notesInside(placement: Pick<Placement, 'nodeOf'>, pointer: string): number {
  const prefix = `${pointer}/`;
  let count = 0;
  for (const node of placement.nodeOf) if (node.startsWith(prefix)) count++;
  return count;
}

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The pointer of a child of the node at `parent`. */
export function childPointer(parent: string, key: string | number): string {
  return `${parent}/${escapeToken(String(key))}`;
}

/** The tokens of a pointer; null when it is not one (it must be "" or start with "/"). */
export function parsePointer(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return null;
  return pointer.slice(1).split('/').map(unescapeToken);
}

function childOf(value: unknown, token: string): { found: true; value: unknown } | { found: false } {
  if (Array.isArray(value)) {
    if (!/^(0|[1-9]\d*)$/.test(token)) return { found: false };
    const index = Number(token);
    return index < value.length ? { found: true, value: value[index] } : { found: false };
  }
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, token)) {
    return { found: true, value: (value as Record<string, unknown>)[token] };
  }
  return { found: false };
}

/**
 * Where a pointer lands in `value`: the pointer of the deepest node that exists along it, and the
 * tokens below it that do not (empty when the whole pointer exists). A malformed pointer lands on the root.
 */
export function resolvePointer(value: unknown, pointer: string): { node: string; missing: string[] } {
  const tokens = parsePointer(pointer);
  if (tokens === null) return { node: '', missing: [] };
  let node = '';
  let current = value;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const child = childOf(current, token);
    if (!child.found) return { node, missing: tokens.slice(i) };
    node = childPointer(node, token);
    current = child.value;
  }
  return { node, missing: [] };
}

/** The pointers of a node and of each of its ancestors, root ("") first. */
export function ancestorsOf(pointer: string): string[] {
  const tokens = parsePointer(pointer) ?? [];
  const out = [''];
  let p = '';
  for (const token of tokens) {
    p = childPointer(p, token);
    out.push(p);
  }
  return out;
}

export function placeAnnotations(value: unknown, annotations: readonly Annotation[]): Placement {
  const at = new Map<string, PlacedAnnotation[]>();
  const open = new Set<string>();
  const nodeOf: string[] = [];
  annotations.forEach((annotation, index) => {
    const { node, missing } = resolvePointer(value, annotation.pointer);
    const placed: PlacedAnnotation = { annotation, index, missing: missing.length > 0 ? missing.join('/') : null };
    const list = at.get(node);
    if (list) list.push(placed);
    else at.set(node, [placed]);
    nodeOf.push(node);
    for (const p of ancestorsOf(node)) open.add(p);
  });
  return { at, open, nodeOf };
}
