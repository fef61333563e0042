import { useEffect, useId, useRef, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import './dialog.css';

/**
 * Every modal of the page: a <dialog> in <body> (not inside a view's form, the filter bar's search
 * landmark or a Settings card, whose styles stay out), opened with showModal (focus moves in, the rest
 * is inert), titled by its heading and described by the sentence `describedBy` names. Esc closes it and
 * only it (the stream's Esc would clear its filters), unless it is `busy`.
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
    if (el && !el.open) el.showModal();
    initialFocus?.current?.focus();
    return () => el?.close();
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
      onKeyDown={(e) => {
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
