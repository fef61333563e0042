// The stream's one-key shortcuts never fire while the user types or a dialog is open
// (renderer/src/lib/shortcut-guard.ts), and the keyboard map names each key once (stream-keys.ts).
import { describe, expect, it } from 'vitest';
import { isTyping, shortcutAllowed, type TargetLike } from '../../renderer/src/lib/shortcut-guard.ts';

function el(tagName: string, extra: Partial<TargetLike> & { role?: string; inside?: string } = {}): TargetLike {
  const { role, inside, ...rest } = extra;
  return {
    tagName,
    isContentEditable: false,
    getAttribute: (name) => (name === 'role' ? (role ?? null) : null),
    closest: (selector) => (inside && selector.includes(inside) ? {} : null),
    ...rest,
  };
}

const key = (k: string, target: unknown, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; defaultPrevented: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  defaultPrevented: false,
  target,
  ...mods,
});

describe('shortcut guard', () => {
  it('lets a key on the page, the list or a button act', () => {
    expect(shortcutAllowed(key('j', el('BODY')), false)).toBe(true);
    expect(shortcutAllowed(key('j', el('DIV', { role: 'listbox' })), false)).toBe(true);
    expect(shortcutAllowed(key('p', el('BUTTON')), false)).toBe(true);
    expect(shortcutAllowed(key('?', el('INPUT', { type: 'checkbox' })), false)).toBe(true);
    expect(shortcutAllowed(key('j', null), false)).toBe(true);
  });

  it('never fires while typing: text inputs, the search combobox, textareas (the code area), selects, contenteditable', () => {
    for (const target of [
      el('INPUT'),
      el('INPUT', { type: 'search' }),
      el('INPUT', { type: 'text', role: 'combobox' }),
      el('input', { type: 'URL' }),
      el('TEXTAREA'),
      el('SELECT'),
      el('DIV', { isContentEditable: true }),
      el('DIV', { role: 'textbox' }),
      el('SPAN', { role: 'combobox' }),
    ]) {
      expect(isTyping(target), JSON.stringify(target)).toBe(true);
      expect(shortcutAllowed(key('j', target), false)).toBe(false);
    }
  });

  it('never fires while a dialog is open, or from inside one', () => {
    expect(shortcutAllowed(key('j', el('BODY')), true)).toBe(false);
    expect(shortcutAllowed(key('r', el('BUTTON', { inside: 'dialog[open]' })), false)).toBe(false);
  });

  it('leaves Ctrl, ⌘ and Alt combinations and handled keys alone', () => {
    expect(shortcutAllowed(key('r', el('BODY'), { ctrlKey: true }), false)).toBe(false);
    expect(shortcutAllowed(key('r', el('BODY'), { metaKey: true }), false)).toBe(false);
    expect(shortcutAllowed(key('p', el('BODY'), { altKey: true }), false)).toBe(false);
    expect(shortcutAllowed(key('j', el('BODY'), { defaultPrevented: true }), false)).toBe(false);
  });
});
