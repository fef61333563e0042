import { useEffect, useRef, useState } from 'react';
import type { DeletionPreview } from '../../../../shared/channels/deletions.ts';
import { Field } from '../../components/Field.tsx';
import { useInspector } from '../../store/react.ts';
import { DeletionDialog } from './DeletionDialog.tsx';
import { deletionOutcome, deletionQuestion, type DeletionQuestion } from './deletion-words.ts';

/** A request waiting for its confirmation: what was typed when it was asked, and the question. */
interface Asking {
  userId: string;
  purge: boolean;
  question: NonNullable<DeletionQuestion>;
}

/**
 * The form for a new deletion request. Before sending, the core counts what it would do
 * (`deletions.preview`): a purge asks first, saying what it removes; a userId no stored message has
 * asks whether to send anyway. Once a request is sent the form is empty again, the purge box unticked.
 */
export function DeletionForm({ onSent }: { onSent: () => void }) {
  const inspector = useInspector();
  const input = useRef<HTMLInputElement>(null);
  const [userId, setUserId] = useState('');
  const [purge, setPurge] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState<Asking | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // Set when a confirmed request was sent: once the dialog has closed (and given the focus back to
  // its opener), the next request starts at the field.
  const refocus = useRef(false);
  useEffect(() => {
    if (asking || !refocus.current) return;
    refocus.current = false;
    input.current?.focus();
  }, [asking]);

  const send = async (user: string, withPurge: boolean): Promise<boolean> => {
    setBusy(true);
    const result = await inspector.call('deletions.create', { userId: user, purge: withPurge });
    setBusy(false);
    if (!result.ok) {
      const message = `The deletion request was refused: ${result.error.message}`;
      if (asking) setProblem(message);
      else setFormError(message);
      return false;
    }
    setFormError(null);
    setUserId('');
    setPurge(false);
    setOutcome(deletionOutcome(result.value, user, withPurge));
    onSent();
    return true;
  };

  const submit = async () => {
    const user = userId.trim();
    if (user === '') {
      setFormError('Enter the userId whose data should be deleted, e.g. u_123.');
      return;
    }
    setBusy(true);
    const counted = await inspector.call('deletions.preview', { userId: user });
    setBusy(false);
    if (!counted.ok) {
      setFormError(`Could not count what the request would remove: ${counted.error.message}`);
      return;
    }
    const question = deletionQuestion(counted.value satisfies DeletionPreview, purge);
    if (question === null) {
      await send(user, purge);
      return;
    }
    setProblem(null);
    setAsking({ userId: user, purge, question });
  };

  const close = () => {
    setAsking(null);
    setProblem(null);
  };

  return (
    <>
      <form
        className="deletion-form"
        aria-label="New deletion request"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Field label="User ID">
          {(control) => (
            <input
              {...control}
              ref={input}
              // Its problem shows under the whole form (#deletion-error), which stays on one line.
              aria-invalid={formError ? true : undefined}
              aria-describedby="deletion-error"
              type="text"
              value={userId}
              placeholder="u_123"
              maxLength={1024}
              autoComplete="off"
              onChange={(e) => {
                setUserId(e.target.value);
                setFormError(null);
              }}
            />
          )}
        </Field>
        <label className="tool-check">
          <input type="checkbox" checked={purge} onChange={(e) => setPurge(e.target.checked)} />
          Also delete the user’s stored messages from Sluice
        </label>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          Request deletion
        </button>
      </form>
      <p id="deletion-error" className="tool-field-error" role="alert">
        {formError ?? ''}
      </p>
      {outcome ? (
        <p className="muted" role="status">
          {outcome}
        </p>
      ) : null}
      {asking ? (
        <DeletionDialog
          question={asking.question}
          busy={busy}
          problem={problem}
          onCancel={close}
          onConfirm={() => {
            void send(asking.userId, asking.purge).then((sent) => {
              if (!sent) return;
              refocus.current = true;
              close();
            });
          }}
        />
      ) : null}
    </>
  );
}
