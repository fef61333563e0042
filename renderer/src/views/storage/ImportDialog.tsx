import { useEffect, useId, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { Field } from '../../components/Field.tsx';
import { SourcePicker } from '../../components/SourcePicker.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { formatCount } from '../../lib/format.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { importCommand } from './import-file.ts';
import { importController, type ImportStep } from './import-store.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { formatBytes, importWords } from './storage-words.ts';
import './storage.css';

const NO_SOURCES: never[] = [];

/**
 * The import of a dropped or picked file: which source sends it (the filtered one, else the first),
 * sending…, then what ingestion accepted and refused (the first reasons) and the lines that were not
 * messages (their numbers). A file too big for the page says to use `sluice import`.
 */
export function ImportDialog() {
  const inspector = useInspector();
  const controller = importController(inspector);
  const { step, skipped } = useStore(controller.store);
  if (!step) return null;
  return <ImportDialogOpen step={step} skipped={skipped} onClose={controller.close} onSend={(sourceId) => void controller.send(sourceId)} />;
}

function ImportDialogOpen({ step, skipped, onClose, onSend }: { step: ImportStep; skipped: number; onClose: () => void; onSend: (sourceId: number) => void }) {
  const sources = useInspectorState((s) => s.info?.sources) ?? NO_SOURCES;
  const filtered = useInspectorState((s) => s.filters.sourceId);
  const textId = useId();
  const [sourceId, setSourceId] = useState<number | null>(() => filtered ?? sources[0]?.id ?? null);
  useEffect(() => {
    if (sourceId === null && sources[0]) setSourceId(filtered ?? sources[0].id);
  }, [sources, filtered, sourceId]);
  const sourceName = (id: number) => sources.find((s) => s.id === id)?.name ?? `#${id}`;
  const busy = step.kind === 'sending';

  let body: ReactNode;
  if (step.kind === 'reading') body = <p id={textId} className="dialog-text">Reading {step.name}…</p>;
  else if (step.kind === 'refused') {
    const command = importCommand(step.name, sourceId !== null ? sourceName(sourceId) : undefined);
    body = (
      <>
        <p id={textId} className="dialog-text error-text" role="alert">
          {step.message}
        </p>
        {step.message.includes('sluice import') ? (
          <p className="storage-command">
            <code>{command}</code>
            <CopyButton text={command} label="Copy the import command" />
          </p>
        ) : null}
      </>
    );
  } else if (step.kind === 'done') body = <ImportOutcomeText id={textId} step={step} sourceName={sourceName(step.sourceId)} />;
  else {
    body = (
      <>
        <p id={textId} className="dialog-text">
          {step.kind === 'sending'
            ? `Sending ${step.name} through ingestion as ${sourceName(step.sourceId)}…`
            : `Send the messages of ${step.name} (${formatBytes(step.bytes)}) through ingestion, as if the source had sent them: NDJSON (sluice export lines, messages, batches) or a HAR file of Tracking API calls.`}
          {skipped > 0 ? ` One file at a time: the other ${formatCount(skipped)} dropped ${skipped === 1 ? 'is' : 'are'} left out.` : ''}
        </p>
        <Field label="Source" hint="Its write key sends them; its destinations get them as new messages.">
          {(control) => (
            <SourcePicker {...control} sources={sources} value={sourceId} disabled={busy || sources.length === 0} onChange={setSourceId} />
          )}
        </Field>
        {busy ? <progress className="storage-progress" aria-label={`Sending ${step.name}`} /> : null}
        <p className="error-text dialog-problem" role="alert">
          {step.kind === 'ready' ? (step.problem ?? '') : ''}
        </p>
      </>
    );
  }

  const ready = step.kind === 'ready' && sourceId !== null;
  return (
    <Dialog className="storage-dialog" title={`Import ${step.name}`} describedBy={textId} busy={busy} onClose={onClose}>
      {body}
      <div className="dialog-actions">
        {step.kind === 'ready' || step.kind === 'sending' ? (
          <>
            <button type="button" className="btn" disabled={busy} onClick={onClose}>
              Cancel
            </button>
            <button type="button" className="btn btn-primary" autoFocus disabled={!ready} onClick={() => sourceId !== null && onSend(sourceId)}>
              {busy ? 'Sending…' : 'Import'}
            </button>
          </>
        ) : (
          <button type="button" className="btn btn-primary" autoFocus onClick={onClose}>
            {step.kind === 'done' ? 'Done' : 'Close'}
          </button>
        )}
      </div>
    </Dialog>
  );
}

function ImportOutcomeText({ id, step, sourceName }: { id: string; step: Extract<ImportStep, { kind: 'done' }>; sourceName: string }) {
  const words = importWords(step.outcome);
  return (
    <div role="status">
      <p id={id} className="dialog-text">
        {step.name} into {sourceName} — {words.summary}
        {step.outcome.accepted > 0 ? ' They are in the stream now.' : ''}
      </p>
      {words.notes.map((note, i) => (
        <p key={i} className="dialog-text">
          {note}
        </p>
      ))}
      {words.refused.length > 0 ? (
        <>
          <h3 className="storage-subhead">Refused by ingestion</h3>
          <ul className="storage-list">
            {words.refused.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        </>
      ) : null}
      {words.unreadable.length > 0 ? (
        <>
          <h3 className="storage-subhead">Lines that are not messages</h3>
          <ul className="storage-list">
            {words.unreadable.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        </>
      ) : null}
      {words.more ? <p className="hint">{words.more}.</p> : null}
    </div>
  );
}
