import { plural } from '../lib/format.ts';

/**
 * How a JSON tree (JsonTree.tsx) folds: which objects and arrays start open, what a folded one says
 * of itself, and how many children an open one shows at first. Pure, tested in Node.
 *
 * A node starts open when it is near the top and small: the root always (its keys are what a reader
 * looks for first); below it, down to FOLD_DEPTH, a node with at most FOLD_ENTRIES entries that takes
 * at most FOLD_LINES lines as it would start (its own big children folded, one line each). So a
 * message or a webhook body (a few dozen fields, two or three levels) opens, while a 40-item array or
 * a nested blob inside it shows as one line, `[…] 40 items`, until asked. An open node shows CHILD_PAGE children, then a button for the rest:
 * a 10,000-item array costs nothing until asked, and then no more than a page at a time.
 */

/** Nodes this deep or deeper (the root is 0) start folded. */
export const FOLD_DEPTH = 3;
/** A node with more entries than this starts folded (the root excepted). */
export const FOLD_ENTRIES = 30;
/** A node that would take more lines than this fully open starts folded (the root excepted). */
export const FOLD_LINES = 120;
/** An open node shows this many children at first; a button shows the next as many. */
export const CHILD_PAGE = 200;

export type Container = Record<string, unknown> | unknown[];

export function isContainer(value: unknown): value is Container {
  return typeof value === 'object' && value !== null;
}

/** The lines a value takes as it starts in the tree: 1 for a scalar, an empty or a folded container. */
export function shownLines(value: unknown, depth: number): number {
  if (!isContainer(value)) return 1;
  const lines = openLines(value, depth);
  return lines === null ? 1 : lines;
}

/**
 * The lines a container takes open, its children as they start (a folded child: one line), or null
 * when it starts folded: deeper than FOLD_DEPTH, more than FOLD_ENTRIES entries, or more than
 * FOLD_LINES lines (counting stops there). The root always opens. The work is bounded: at most
 * FOLD_ENTRIES children a level, FOLD_DEPTH levels.
 */
function openLines(value: Container, depth: number): number | null {
  const children = Array.isArray(value) ? value : Object.values(value);
  if (children.length === 0) return 1;
  if (depth > 0 && (depth >= FOLD_DEPTH || children.length > FOLD_ENTRIES)) return null;
  if (depth === 0) return 2 + children.length; // not counted further: only whether it opens is asked of the root
  let lines = 2;
  for (const child of children) {
    lines += shownLines(child, depth + 1);
    if (lines > FOLD_LINES) return null;
  }
  return lines;
}

/** Whether a container at `depth` starts open (see the module's comment). */
export function startsOpen(value: Container, depth: number): boolean {
  return depth === 0 || openLines(value, depth) !== null;
}

/** What a folded node shows in place of its content: `{…} 12 keys`, `[…] 1 item`. */
export function foldedSummary(value: Container): { braces: string; count: string } {
  if (Array.isArray(value)) return { braces: '[…]', count: plural(value.length, 'item') };
  const keys = Object.keys(value).length;
  return { braces: '{…}', count: plural(keys, 'key') };
}

/**
 * How many of a node's children to show: `shown` (pages asked for so far), or more when a child
 * further down must be seen (`needed`: the index of the last child that holds a note, or -1).
 */
export function childrenShown(total: number, shown: number, needed: number): number {
  return Math.min(total, Math.max(shown, needed + 1));
}
