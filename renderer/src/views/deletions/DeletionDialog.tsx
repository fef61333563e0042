import { useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';
import type { DeletionQuestion } from './deletion-words.ts';
import './deletions.css';

/**
 * Asks before a deletion request is sent (a purge, or a userId no stored message has): a modal
 * <dialog> (focus moves in, the rest is inert), titled and described by its question, with Cancel
 * focused — Enter or Esc right away sends nothing. In <body>, so the view's form is not its ancestor.
 */
export function DeletionDialog({ question, busy, problem, onCancel, onConfirm }: {
  question: NonNullable<DeletionQuestion>;
  /** The request is being sent: the buttons wait, Esc does not close. */
  busy: boolean;
  /** Why the request was refused, shown in the dialog. */
  problem: string | null;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const textId = useId();

  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
    cancel.current?.focus();
    return () => el?.close();
  }, []);

  return createPortal(
    <dialog
      ref={dialog}
      className="deletion-dialog"
      data-kind={question.kind}
      aria-labelledby={titleId}
      aria-describedby={textId}
      onCancel={(e) => {
        e.preventDefault();
        if (!busy) onCancel();
      }}
    >
      <h2 id={titleId}>{question.title}</h2>
      <p id={textId} className="deletion-dialog-text">
        {question.text}
      </p>
      <p className="tool-field-error" role="alert">
        {problem ?? ''}
      </p>
      <div className="deletion-dialog-actions">
        <button ref={cancel} type="button" className="btn" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className={`btn ${question.kind === 'purge' ? 'deletion-danger' : 'btn-primary'}`} disabled={busy} onClick={onConfirm}>
          {busy ? 'Sending…' : question.confirm}
        </button>
      </div>
    </dialog>,
    document.body,
  );
}
