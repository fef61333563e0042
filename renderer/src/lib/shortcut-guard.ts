/**
 * When a one-key shortcut (j, k, p, r, /, ?) may fire: never while the user types — in an input, a
 * textarea (the code area and the replay's JSON editor are textareas), a select, anything
 * contenteditable or with a textbox/combobox role — never while a modal dialog is open (the dialog owns
 * the keyboard then; only Esc, which the dialog handles itself, closes it), and never with Ctrl, ⌘ or
 * Alt held (those are the browser's and the system's). Pure over the few fields it reads, so unit tests
 * give it plain objects.
 */

/** The part of a DOM element the guard reads. */
export interface TargetLike {
  tagName?: string;
  isContentEditable?: boolean;
  type?: string;
  getAttribute?(name: string): string | null;
  closest?(selector: string): unknown;
}

export interface KeyEventLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  defaultPrevented: boolean;
  target: unknown;
}

/** Inputs that take no typed text: a key on them is no typing. */
const NOT_TEXT_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file', 'image']);

/** True when keys pressed on `target` are typed text (or a choice in a select). */
export function isTyping(target: unknown): boolean {
  if (target === null || typeof target !== 'object') return false;
  const el = target as TargetLike;
  if (el.isContentEditable) return true;
  const tag = (el.tagName ?? '').toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') return !NOT_TEXT_INPUTS.has((el.type ?? 'text').toLowerCase());
  const role = el.getAttribute?.('role');
  return role === 'textbox' || role === 'combobox' || role === 'searchbox';
}

/** True when the key event comes from inside an open dialog. */
function inDialog(target: unknown): boolean {
  if (target === null || typeof target !== 'object') return false;
  const el = target as TargetLike;
  return Boolean(el.closest?.('dialog[open], [role="dialog"], [role="alertdialog"]'));
}

/**
 * Whether a one-key shortcut may act on this key event. `dialogOpen`: a modal dialog is open anywhere
 * on the page (focus may have been moved out of it by a click on nothing). Esc is not a one-key
 * shortcut here: the caller decides what it closes, and a dialog closes itself on it.
 */
export function shortcutAllowed(event: KeyEventLike, dialogOpen: boolean): boolean {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return false;
  if (dialogOpen || inDialog(event.target)) return false;
  return !isTyping(event.target);
}
