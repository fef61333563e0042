import { useEffect, useId, useState } from 'react';
import type { StorageResponses } from '../../../../shared/channels/storage.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { useInspector } from '../../store/react.ts';
import { resetDone, resetQuestion } from './storage-words.ts';
import './storage.css';

type Step =
  | { kind: 'counting' }
  | { kind: 'count-failed'; message: string }
  | { kind: 'asking'; count: number }
  | { kind: 'resetting'; count: number }
  | { kind: 'failed'; count: number; message: string }
  | { kind: 'done'; result: StorageResponses['storage.reset'] };

/**
 * The core's reset, asked first as a clear is (ClearDialog): a dry run of clearing everything counts
 * the messages, the question says what is forgotten and what stays, the safe answer has the focus,
 * then `storage.reset` runs and the dialog says what went. Every window reloads on `store.reset`.
 */
export function ResetDialog({ onClose, onReset }: { onClose: () => void; onReset?: (result: StorageResponses['storage.reset']) => void }) {
  const inspector = useInspector();
  const textId = useId();
  const [step, setStep] = useState<Step>({ kind: 'counting' });

  useEffect(() => {
    let live = true;
    void inspector.call('storage.clear', { scope: { all: true }, dryRun: true }).then((result) => {
      if (!live) return;
      setStep(result.ok ? { kind: 'asking', count: result.value.messages } : { kind: 'count-failed', message: result.error.message });
    });
    return () => {
      live = false;
    };
  }, [inspector]);

  const question = step.kind === 'asking' || step.kind === 'resetting' || step.kind === 'failed' ? resetQuestion(step.count) : null;

  const reset = async () => {
    if (step.kind !== 'asking' && step.kind !== 'failed') return;
    const count = step.count;
    setStep({ kind: 'resetting', count });
    const result = await inspector.call('storage.reset', {});
    if (!result.ok) {
      setStep({ kind: 'failed', count, message: `Nothing was reset: ${result.error.message}.` });
      return;
    }
    setStep({ kind: 'done', result: result.value });
    onReset?.(result.value);
  };

  const text =
    step.kind === 'counting'
      ? 'Counting the messages…'
      : step.kind === 'count-failed'
        ? `Could not count the messages (${step.message}); close this and try again.`
        : step.kind === 'done'
          ? resetDone(step.result)
          : question!.text;

  return (
    <Dialog className="storage-dialog" title="Reset Sluice" describedBy={textId} busy={step.kind === 'resetting'} onClose={onClose}>
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
            <button type="button" className="btn" autoFocus disabled={step.kind === 'resetting'} onClick={onClose}>
              Keep everything
            </button>
            <button type="button" className="btn btn-danger" disabled={!question || step.kind === 'resetting'} onClick={() => void reset()}>
              {step.kind === 'resetting' ? 'Resetting…' : (question?.button ?? 'Reset and forget')}
            </button>
          </>
        )}
      </div>
    </Dialog>
  );
}
