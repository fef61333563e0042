import { useId, useState } from 'react';
import { useInspector } from '../../store/react.ts';
import { downloadText } from './download.ts';
import { EXPORT_MAX_MESSAGES } from './limits.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { exportDone } from './storage-words.ts';
import type { FilteredSet } from './filtered-set.ts';
import './storage.css';

type Format = 'ndjson' | 'har';
type Step = { kind: 'choosing'; problem: string | null } | { kind: 'exporting' } | { kind: 'done'; text: string };

/**
 * Export…: the stream's filtered set as it was when the dialog opened, as NDJSON (one stored message a
 * line, as `sluice export` writes them) or as HAR 1.2 (the requests Sluice made for them: webhook attempts, forwarded requests), downloaded as a file;
 * says when there were more than one download holds.
 */
export function ExportDialog({ set, onClose }: { set: FilteredSet; onClose: () => void }) {
  const inspector = useInspector();
  const textId = useId();
  const radioName = useId();
  const [format, setFormat] = useState<Format>('ndjson');
  const [step, setStep] = useState<Step>({ kind: 'choosing', problem: null });

  const run = async () => {
    setStep({ kind: 'exporting' });
    const result = await inspector.call('messages.export', { filter: set.filter, format });
    if (!result.ok) {
      setStep({ kind: 'choosing', problem: `Nothing was exported: ${result.error.message}.` });
      return;
    }
    const { fileName, mimeType, text } = result.value;
    downloadText(fileName, mimeType, text);
    setStep({ kind: 'done', text: exportDone(result.value, format, EXPORT_MAX_MESSAGES) });
  };

  return (
    <Dialog className="storage-dialog" title="Export messages" describedBy={textId} busy={step.kind === 'exporting'} onClose={onClose}>
      <p id={textId} className="dialog-text" role={step.kind === 'done' ? 'status' : undefined}>
        {step.kind === 'done' ? step.text : `The messages matching ${set.words}${step.kind === 'exporting' ? ': preparing the file…' : '.'}`}
      </p>
      {step.kind !== 'done' ? (
        <fieldset className="send-to" disabled={step.kind === 'exporting'}>
          <legend className="field-label">As</legend>
          <label className="radio">
            <input type="radio" name={radioName} checked={format === 'ndjson'} onChange={() => setFormat('ndjson')} />
            <span>
              NDJSON messages <span className="muted">— one stored message a line, as sluice export writes them (sluice import reads it back)</span>
            </span>
          </label>
          <label className="radio">
            <input type="radio" name={radioName} checked={format === 'har'} onChange={() => setFormat('har')} />
            <span>
              HAR requests <span className="muted">— webhook attempts and forwards as HAR 1.2, for HTTP Toolkit and browser dev tools</span>
            </span>
          </label>
        </fieldset>
      ) : null}
      <p className="error-text dialog-problem" role="alert">
        {step.kind === 'choosing' ? (step.problem ?? '') : ''}
      </p>
      <div className="dialog-actions">
        {step.kind === 'done' ? (
          <button type="button" className="btn btn-primary" autoFocus onClick={onClose}>
            Done
          </button>
        ) : (
          <>
            <button type="button" className="btn" disabled={step.kind === 'exporting'} onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="btn btn-primary" autoFocus disabled={step.kind === 'exporting'} onClick={() => void run()}>
              {step.kind === 'exporting' ? 'Exporting…' : 'Download'}
            </button>
          </>
        )}
      </div>
    </Dialog>
  );
}
