import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import './storage.css';

/**
 * The modal of the clear, export and import dialogs: in <body> (not inside the filter bar's search
 * landmark or a Settings card), opened with showModal (focus moves in, the rest is inert), titled,
 * described by its main sentence; Esc closes it and only it (the stream's Esc clears its filters).
 */
export function StorageDialog({ title, describedBy, busy = false, onClose, children }: {
  title: string;
  /** The id of the sentence that says what the dialog is about. */
  describedBy?: string;
  /** While the core works (removing, importing) Esc does not close it: the answer is worth seeing. */
  busy?: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    return () => el?.close();
  }, []);

  return createPortal(
    <dialog
      ref={dialog}
      className="storage-dialog"
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
