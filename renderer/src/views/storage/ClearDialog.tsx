import { useEffect, useId, useState } from 'react';
import type { ClearScope } from '../../../../shared/storage.ts';
import type { StorageResponses } from '../../../../shared/channels/storage.ts';
import { useInspector } from '../../store/react.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { clearDone, clearQuestion, type ClearWhat } from './storage-words.ts';
import './storage.css';

type Cleared = StorageResponses['storage.clear'];
type Step =
  | { kind: 'counting' }
  | { kind: 'count-failed'; message: string }
  | { kind: 'asking'; count: number }
  | { kind: 'removing'; count: number }
  | { kind: 'failed'; count: number; message: string }
  | { kind: 'done'; result: Cleared };

/**
 * Clears messages, asking first: a dry run of `storage.clear` counts what the scope holds, the
 * question says how many and of what ("Remove 12,345 messages of web, with their deliveries and
 * attempts? …"), then the clear runs and the dialog says what went and what the file gave back.
 */
export function ClearDialog({ scope, what, onClose, onCleared }: {
  scope: ClearScope;
  what: ClearWhat;
  onClose: () => void;
  onCleared?: (result: Cleared) => void;
}) {
  const inspector = useInspector();
  const textId = useId();
  const [step, setStep] = useState<Step>({ kind: 'counting' });

  useEffect(() => {
    let live = true;
    void inspector.call('storage.clear', { scope, dryRun: true }).then((result) => {
      if (!live) return;
      setStep(result.ok ? { kind: 'asking', count: result.value.messages } : { kind: 'count-failed', message: result.error.message });
    });
    return () => {
      live = false;
    };
    // The scope is fixed for the dialog's life (the caller took it when it opened).
  }, [inspector]);

  const question = step.kind === 'asking' || step.kind === 'removing' || step.kind === 'failed' ? clearQuestion(what, step.count) : null;

  const remove = async () => {
    if (step.kind !== 'asking' && step.kind !== 'failed') return;
    const count = step.count;
    setStep({ kind: 'removing', count });
    const result = await inspector.call('storage.clear', { scope, dryRun: false });
    if (!result.ok) {
      setStep({ kind: 'failed', count, message: `Nothing more was removed: ${result.error.message}.` });
      return;
    }
    setStep({ kind: 'done', result: result.value });
    onCleared?.(result.value);
  };

  const text =
    step.kind === 'counting'
      ? 'Counting the messages…'
      : step.kind === 'count-failed'
        ? `Could not count the messages (${step.message}); close this and try again.`
        : step.kind === 'done'
          ? clearDone(step.result)
          : question!.text;

  return (
    <Dialog className="storage-dialog" title="Clear messages" describedBy={textId} busy={step.kind === 'removing'} onClose={onClose}>
      <p id={textId} className="storage-dialog-text" role={step.kind === 'done' ? 'status' : undefined}>
        {text}
      </p>
      <p className="error-text storage-dialog-problem" role="alert">
        {step.kind === 'failed' ? step.message : ''}
      </p>
      <div className="dialog-actions">
        {step.kind === 'done' ? (
          <button type="button" className="btn btn-primary" autoFocus onClick={onClose}>
            Done
          </button>
        ) : (
          <>
            <button type="button" className="btn" autoFocus disabled={step.kind === 'removing'} onClick={onClose}>
              Keep them
            </button>
            <button
              type="button"
              className="btn btn-danger"
              disabled={!question?.button || step.kind === 'removing'}
              onClick={() => void remove()}
            >
              {step.kind === 'removing' ? 'Removing…' : (question?.button ?? 'Remove messages')}
            </button>
          </>
        )}
      </div>
    </Dialog>
  );
}
