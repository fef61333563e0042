import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import './dialog.css';

/**
 * Every modal of the page: a <dialog> in <body> (not inside a view's form, the filter bar's search
 * landmark or a Settings card, whose styles stay out), opened with showModal (focus moves in, the rest
 * is inert, aria-modal), titled by its heading and described by the sentence `describedBy` names. Tab
 * and Shift+Tab go round its controls (not out to the browser's); Esc closes it and only it (the
 * stream's Esc would clear its filters), unless it is `busy`; the focus goes back to what opened it.
 *
 *   <Dialog title="Delete destination" className="dst-dialog" describedBy={textId} onClose={close}>
 *     <p id={textId}>…</p>
 *     <div className="dialog-actions">…</div>
 *   </Dialog>
 */
export function Dialog({ title, className, describedBy, busy = false, initialFocus, onClose, children }: {
  title: ReactNode;
  /** The dialog's own class, besides `dialog`: its width and what is particular to it. */
  className: string;
  /** The id of the sentence that says what the dialog is about. */
  describedBy?: string;
  /** While the core works (removing, importing, sending) Esc does not close it: the answer is worth seeing. */
  busy?: boolean;
  /** What takes the focus when it opens (the first control does otherwise). */
  initialFocus?: RefObject<HTMLElement | null>;
  onClose: () => void;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const el = dialog.current;
    // What had the focus (the button that opened it, the list for `?`) has it again when it closes.
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    if (el && !el.open) el.showModal();
    initialFocus?.current?.focus();
    return () => {
      el?.close();
      // Unless the dialog's action took the focus elsewhere (a view it opened) or removed the opener.
      const now = document.activeElement;
      if (opener?.isConnected && (now === null || now === document.body || el?.contains(now))) opener.focus();
    };
  }, []);

  return createPortal(
    <dialog
      ref={dialog}
      className={`dialog ${className}`}
      aria-labelledby={titleId}
      aria-describedby={describedBy}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onClose();
      }}
      aria-modal="true"
      onKeyDown={(e) => {
        if (e.key === 'Tab') return trapTab(e.currentTarget, e);
        if (e.key !== 'Escape') return;
        e.preventDefault();
        e.stopPropagation();
        if (!busy) onClose();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>,
    document.body,
  );
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/**
 * The dialog's tab stops in the browser's order: its visible controls in the document's order, a group
 * of radio buttons (one name) one stop — its checked button, or its first when none is checked (the
 * arrow keys move inside it). Positive tabindex values are not used in the page.
 */
function tabStops(dialog: HTMLElement): HTMLElement[] {
  const controls = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0 && !el.closest('[inert]'));
  const groups = new Map<string, HTMLInputElement[]>();
  for (const el of controls) {
    if (!isGroupedRadio(el)) continue;
    const members = groups.get(el.name) ?? [];
    members.push(el);
    groups.set(el.name, members);
  }
  return controls.filter((el) => {
    if (!isGroupedRadio(el)) return true;
    const members = groups.get(el.name)!;
    return el === (members.find((m) => m.checked) ?? members[0]);
  });
}

function isGroupedRadio(el: HTMLElement): el is HTMLInputElement {
  return el instanceof HTMLInputElement && el.type === 'radio' && el.name !== '';
}

/**
 * Tab and Shift+Tab go round the dialog: with no tab stop after the focused element (before it, for
 * Shift+Tab) — outside its radio group, if it is in one — the focus goes to the first stop (the last);
 * otherwise the browser moves it. So the focus on a second radio button, on text focused by the dialog
 * itself, or on the dialog, never leaves it.
 */
function trapTab(dialog: HTMLElement, e: KeyboardEvent): void {
  const stops = tabStops(dialog);
  const first = stops[0];
  const last = stops.at(-1);
  if (!first || !last) return e.preventDefault();
  const at = document.activeElement;
  if (!(at instanceof HTMLElement) || at === dialog || !dialog.contains(at)) {
    e.preventDefault();
    (e.shiftKey ? last : first).focus();
    return;
  }
  const own = (el: HTMLElement) => el === at || (isGroupedRadio(at) && isGroupedRadio(el) && el.name === at.name);
  const before = (el: HTMLElement) => Boolean(el.compareDocumentPosition(at) & Node.DOCUMENT_POSITION_FOLLOWING);
  const others = stops.filter((el) => !own(el));
  const next = e.shiftKey ? others.some(before) : others.some((el) => !before(el) && !el.contains(at));
  if (next) return; // the browser's own move stays inside
  e.preventDefault();
  (e.shiftKey ? last : first).focus();
}
