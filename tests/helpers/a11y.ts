// Accessibility checks on a page of the inspector: axe-core (WCAG 2.0/2.1 A and AA, colour contrast
// included) in both themes, and what the keyboard reaches. Each check returns the problems as
// sentences (empty: none), so a test can assert `toEqual([])` and a failure says what and where.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from 'vitest';

const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const THEMES = ['light', 'dark'] as const;

/**
 * Serious and critical axe-core violations of the page as it is, in the light and the dark theme
 * (the system's colour scheme, which the inspector follows unless Settings chose one), each with its
 * rule, help and the nodes it found (only inside `include`, a selector, when given; every axe rule
 * when `tags` is null). The page is left in the light theme.
 */
export async function axeProblems(page: Page, label: string, include?: string, tags: readonly string[] | null = WCAG_TAGS): Promise<string[]> {
  const problems: string[] = [];
  for (const scheme of THEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    const builder = tags ? new AxeBuilder({ page }).withTags([...tags]) : new AxeBuilder({ page });
    const result = await (include ? builder.include(include) : builder).analyze();
    for (const v of result.violations) {
      if (v.impact !== 'serious' && v.impact !== 'critical') continue;
      const nodes = v.nodes.map((n) => `      ${n.target.join(' ')} — ${(n.failureSummary ?? '').replace(/\s+/g, ' ')}`);
      problems.push(`${label} · ${scheme}: ${v.id} (${v.impact}) ${v.help}\n${nodes.join('\n')}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return problems;
}

/** No serious or critical axe-core violation inside `include`, in either theme (every rule when `tags` is null). */
export async function expectAccessible(page: Page, include: string, tags: readonly string[] | null = WCAG_TAGS): Promise<void> {
  expect(await axeProblems(page, include, include, tags)).toEqual([]);
}

/**
 * Marks every visible interactive control of the page (or of the open modal dialog, the only part
 * the keyboard can reach then) with `data-a11y-key`: a key of its own, or its group's for the
 * members of a composite widget that moves the focus among them itself (a tablist's roving
 * tabindex, a group of radio buttons: reaching one member reaches the group). Options of a listbox
 * that takes the focus itself (moving among them with aria-activedescendant) or that a combobox
 * drives are left out: the list's own keys reach them (a test checks those keys). Returns a
 * description of each key.
 */
function markControls(): Record<string, string> {
  const SELECTOR = [
    'button', 'a[href]', 'input:not([type="hidden"])', 'select', 'textarea', 'summary', '[tabindex="0"]',
    '[role="button"]', '[role="tab"]', '[role="checkbox"]', '[role="switch"]', '[role="option"]', '[role="radio"]', '[role="link"]', '[role="menuitem"]',
  ].join(', ');
  const scope: Element = document.querySelector('dialog:modal') ?? document.body;
  const describe = (el: Element) => {
    const name = (el.getAttribute('aria-label') ?? el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 60);
    const role = el.getAttribute('role');
    const cls = el.getAttribute('class');
    return `<${el.tagName.toLowerCase()}${role ? ` role=${role}` : ''}${cls ? ` class="${cls}"` : ''}> “${name}”`;
  };
  const described: Record<string, string> = {};
  let n = 0;
  for (const old of document.querySelectorAll('[data-a11y-key]')) old.removeAttribute('data-a11y-key');
  const groupKey = new Map<Element | string, string>();
  const keyOf = (group: Element | string, label: string) => {
    let key = groupKey.get(group);
    if (!key) {
      key = `g${n++}`;
      groupKey.set(group, key);
      described[key] = label;
    }
    return key;
  };
  for (const el of scope.querySelectorAll(SELECTOR)) {
    if (el.closest('[inert], [hidden], [aria-hidden="true"]')) continue;
    if ((el as HTMLButtonElement).disabled || el.closest('fieldset:disabled')) continue;
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 && rect.height === 0) continue;
    const role = el.getAttribute('role');
    if (role === 'option') {
      // Options of a listbox that takes the focus itself, or that a combobox drives: their list's keys reach them.
      const listbox = el.closest('[role="listbox"]') as HTMLElement | null;
      if (listbox && (listbox.tabIndex >= 0 || (listbox.id && document.querySelector(`[role="combobox"][aria-controls="${listbox.id}"]`)))) continue;
    }
    let key: string;
    if (el instanceof HTMLInputElement && el.type === 'radio' && el.name) {
      key = keyOf(`radio:${el.form?.id ?? ''}:${el.name}`, `radio group “${el.name}”`);
    } else if ((role === 'tab' || role === 'radio' || role === 'option' || role === 'menuitem') && el.closest('[role="tablist"], [role="radiogroup"], [role="listbox"], [role="menu"], [role="toolbar"]')) {
      const composite = el.closest('[role="tablist"], [role="radiogroup"], [role="listbox"], [role="menu"], [role="toolbar"]')!;
      key = keyOf(composite, `${composite.getAttribute('role')} “${composite.getAttribute('aria-label') ?? ''}”`);
    } else {
      key = `c${n++}`;
      described[key] = describe(el);
    }
    el.setAttribute('data-a11y-key', key);
  }
  return described;
}

/** Records the key of each element that gets the focus (see markControls) in `window.__a11yFocused`. */
function recordFocus(): void {
  const w = window as unknown as { __a11yFocused: string[]; __a11yListening?: boolean };
  w.__a11yFocused = [];
  if (w.__a11yListening) return;
  w.__a11yListening = true;
  document.addEventListener('focusin', (event) => {
    const el = event.target as Element;
    const key = el.getAttribute('data-a11y-key');
    w.__a11yFocused.push(key ?? `other <${el.tagName.toLowerCase()}${el.getAttribute('role') ? ` role=${el.getAttribute('role')}` : ''} class="${el.getAttribute('class') ?? ''}">`);
  });
}

export interface TabWalk {
  /** Controls (described) that no Tab press reached. */
  missed: string[];
  /** The keys reached in order (controls, or other elements that took the focus). */
  order: string[];
  /** How many controls (or groups) were on the page. */
  controls: number;
}

/**
 * Presses Tab from the top of the page (or from the focused control of an open modal dialog, which
 * keeps the focus inside) until the focus comes back to where it started, and says which visible
 * controls it never reached.
 */
export async function tabWalk(page: Page): Promise<TabWalk> {
  const described = await page.evaluate(markControls);
  const keys = Object.keys(described);
  const modal = await page.evaluate(() => document.querySelector('dialog:modal') !== null);
  if (!modal) {
    // A focusable-by-script anchor before everything: the first Tab goes to the page's first control.
    await page.evaluate(() => {
      const start = document.createElement('span');
      start.tabIndex = -1;
      start.id = 'a11y-start';
      document.body.prepend(start);
      start.focus();
    });
  }
  await page.evaluate(recordFocus);
  const bound = Math.min(400, keys.length * 2 + 20);
  let order: string[] = [];
  let first = true;
  for (let pressed = 0; pressed < bound; pressed += 8) {
    for (let i = 0; i < 8; i++) await page.keyboard.press('Tab');
    if (first && !modal) await page.evaluate(() => document.getElementById('a11y-start')?.remove());
    first = false;
    order = await page.evaluate(() => (window as unknown as { __a11yFocused: string[] }).__a11yFocused);
    // Back at the first control reached: every control on the way has been.
    if (order.length > 1 && order.indexOf(order[0]!, 1) > 0) break;
  }
  const seen = new Set(order);
  return { missed: keys.filter((k) => !seen.has(k)).map((k) => described[k]!), order, controls: keys.length };
}

/**
 * Elements that look clickable (a pointer cursor set on them) but that neither the keyboard can focus
 * nor sit in a control that can be (a button's inner span, a label of a control). `allowed` maps a
 * selector to the printed reason it is not a problem (e.g. the same action is a button beside it).
 */
export async function pointerOnly(page: Page, allowed: Record<string, string> = {}): Promise<string[]> {
  return page.evaluate((allowedSelectors) => {
    const found: string[] = [];
    const scope: Element = document.querySelector('dialog:modal') ?? document.body;
    for (const el of scope.querySelectorAll('*')) {
      if (getComputedStyle(el).cursor !== 'pointer') continue;
      if (el.parentElement && getComputedStyle(el.parentElement).cursor === 'pointer') continue; // inherited
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      const focusable = el.closest('button, a[href], input, select, textarea, summary, [tabindex]:not([tabindex="-1"]), label');
      if (focusable && !(focusable instanceof HTMLLabelElement && !focusable.control)) continue;
      const listbox = el.closest('[role="listbox"]');
      if (listbox?.id && document.querySelector(`[aria-controls="${listbox.id}"][aria-activedescendant]`)) continue; // a combobox's options
      if (allowedSelectors.some((s) => el.matches(s))) continue;
      found.push(`<${el.tagName.toLowerCase()} class="${el.getAttribute('class') ?? ''}"> “${(el.textContent ?? '').trim().slice(0, 50)}”`);
    }
    return found;
  }, Object.keys(allowed));
}
