import { useId, useRef } from 'react';
import { Dialog } from '../../components/Dialog.tsx';
import type { DeletionQuestion } from './deletion-words.ts';
import './deletions.css';

/**
 * Asks before a deletion request is sent (a purge, or a userId no stored message has): a modal
 * titled and described by its question, with Cancel focused — Enter or Esc right away sends nothing.
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
  const cancel = useRef<HTMLButtonElement>(null);
  const textId = useId();

  return (
    <Dialog title={question.title} className="deletion-dialog" describedBy={textId} busy={busy} initialFocus={cancel} onClose={onCancel}>
      <p id={textId} className="deletion-dialog-text">
        {question.text}
      </p>
      <p className="tool-field-error" role="alert">
        {problem ?? ''}
      </p>
      <div className="dialog-actions">
        <button ref={cancel} type="button" className="btn" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className={`btn ${question.kind === 'purge' ? 'deletion-danger' : 'btn-primary'}`} disabled={busy} onClick={onConfirm}>
          {busy ? 'Sending…' : question.confirm}
        </button>
      </div>
    </Dialog>
  );
}
