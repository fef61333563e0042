import { useEffect, useId, useRef, useState } from 'react';
import { Dialog } from './Dialog.tsx';

/** A call's answer as `inspector.call` gives it. */
type Answer<T> = { ok: true; value: T } | { ok: false; error: { message: string } };

type Step<T> =
  | { kind: 'counting' }
  | { kind: 'count-failed'; message: string }
  | { kind: 'asking'; count: number }
  | { kind: 'acting'; count: number }
  | { kind: 'failed'; count: number; message: string }
  | { kind: 'done'; result: T };

/**
 * A destructive action asked first, in three steps — count, ask, act: a dry run counts what it would
 * touch, the question says how many (the safe answer has the focus), then the action runs and the
 * dialog says what it did (or, with no `doneText`, `onDone` closes it). Clear, Reset and Delete
 * destination are this dialog with their own words. While the action runs its buttons are disabled, so
 * the focus goes to the question (not out of the dialog to the page); after a failure, to the problem.
 *
 *   <ConfirmDialog title="Clear messages" className="storage-dialog" counting="Counting the messages…"
 *     count={() => call('storage.clear', { scope, dryRun: true }).then(...)} question={(n) => ...}
 *     act={() => call('storage.clear', { scope })} ... />
 */
export function ConfirmDialog<T>(props: {
  title: string;
  /** The dialog's own class (its width). */
  className: string;
  /** The dry run: how many it would touch. */
  count: () => Promise<Answer<number>>;
  /** While counting: "Counting the messages…". */
  counting: string;
  /** The count failed: what, and what to do. */
  countFailed: (message: string) => string;
  /** The question for the count, and the confirming button's label (null: nothing to do, no button). */
  question: (count: number) => { text: string; button: string | null };
  act: () => Promise<Answer<T>>;
  /** The action failed: "Nothing more was removed: <message>." */
  actFailed: (message: string) => string;
  /** What it did, shown with a Done button; absent: `onDone` is called and the caller closes the dialog. */
  doneText?: (result: T) => string;
  /** The safe answer ("Keep them"), and the confirming button's label while the action runs ("Removing…"). */
  keep: string;
  acting: string;
  /** The confirming button's label before the count is known. */
  button: string;
  onClose: () => void;
  onDone?: (result: T) => void;
}) {
  const { title, className, count, counting, countFailed, question, act, actFailed, doneText, keep, acting, button, onClose, onDone } = props;
  const textId = useId();
  const [step, setStep] = useState<Step<T>>({ kind: 'counting' });
  const textRef = useRef<HTMLParagraphElement>(null);
  const problemRef = useRef<HTMLParagraphElement>(null);
  /** The safe answer has the focus when it opens (the question before it is focusable too, by script). */
  const keepRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    let live = true;
    void count().then((answer) => {
      if (live) setStep(answer.ok ? { kind: 'asking', count: answer.value } : { kind: 'count-failed', message: answer.error.message });
    });
    return () => {
      live = false;
    };
    // What it counts is fixed for the dialog's life (the caller took it when it opened).
  }, []);

  useEffect(() => {
    if (step.kind === 'failed') problemRef.current?.focus();
  }, [step]);

  const asked = step.kind === 'asking' || step.kind === 'acting' || step.kind === 'failed' ? question(step.count) : null;

  const confirm = async () => {
    if (step.kind !== 'asking' && step.kind !== 'failed') return;
    const n = step.count;
    textRef.current?.focus(); // before its button is disabled under it
    setStep({ kind: 'acting', count: n });
    const answer = await act();
    if (!answer.ok) return setStep({ kind: 'failed', count: n, message: actFailed(answer.error.message) });
    if (doneText) setStep({ kind: 'done', result: answer.value });
    onDone?.(answer.value);
  };

  const text =
    step.kind === 'counting'
      ? counting
      : step.kind === 'count-failed'
        ? countFailed(step.message)
        : step.kind === 'done'
          ? doneText!(step.result)
          : asked!.text;

  return (
    <Dialog className={className} title={title} describedBy={textId} busy={step.kind === 'acting'} initialFocus={keepRef} onClose={onClose}>
      <p ref={textRef} id={textId} className="dialog-text" tabIndex={-1} role={step.kind === 'done' ? 'status' : undefined}>
        {text}
      </p>
      <p ref={problemRef} className="error-text dialog-problem" tabIndex={-1} role="alert">
        {step.kind === 'failed' ? step.message : ''}
      </p>
      <div className="dialog-actions">
        {step.kind === 'done' ? (
          <button type="button" className="btn btn-primary" autoFocus onClick={onClose}>
            Done
          </button>
        ) : (
          <>
            <button ref={keepRef} type="button" className="btn" autoFocus disabled={step.kind === 'acting'} onClick={onClose}>
              {keep}
            </button>
            <button type="button" className="btn btn-danger" disabled={!asked?.button || step.kind === 'acting'} onClick={() => void confirm()}>
              {step.kind === 'acting' ? acting : (asked?.button ?? button)}
            </button>
          </>
        )}
      </div>
    </Dialog>
  );
}
