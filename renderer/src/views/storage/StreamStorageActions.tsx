import { useId, useRef, useState } from 'react';
import { useInspector } from '../../store/react.ts';
import { ClearDialog } from './ClearDialog.tsx';
import { ExportDialog } from './ExportDialog.tsx';
import { clearOf, filteredSet, type FilteredSet } from './filtered-set.ts';
import { IMPORT_ACCEPT } from './import-file.ts';
import { importController } from './import-store.ts';
import { ImportDialog } from './ImportDialog.tsx';

/**
 * The stream's storage actions, beside Replay…: Export… (the filtered set as NDJSON, or their webhook
 * attempts as HAR), Clear these… (counted, asked, cleared) and Import… (a file picker: the same as
 * dropping a file on the stream).
 */
export function StreamStorageActions() {
  const inspector = useInspector();
  const picker = useRef<HTMLInputElement>(null);
  const pickerId = useId();
  const [open, setOpen] = useState<{ kind: 'export' | 'clear'; set: FilteredSet } | null>(null);

  const snapshot = (): FilteredSet => {
    const { filters, info } = inspector.store.getState();
    const name = (id: number) => info?.sources.find((s) => s.id === id)?.name ?? `#${id}`;
    return filteredSet(filters, name, Date.now());
  };

  return (
    <div className="storage-actions">
      <button type="button" className="btn" aria-haspopup="dialog" title="Download the messages matching these filters (NDJSON), or the requests Sluice made for them (HAR)" onClick={() => setOpen({ kind: 'export', set: snapshot() })}>
        Export…
      </button>
      <button type="button" className="btn" aria-haspopup="dialog" title="Remove the messages matching these filters, with their deliveries and attempts (asks first)" onClick={() => setOpen({ kind: 'clear', set: snapshot() })}>
        Clear these…
      </button>
      <button type="button" className="btn" aria-haspopup="dialog" title="Send an NDJSON or HAR file's messages through ingestion (or drop the file on the stream)" onClick={() => picker.current?.click()}>
        Import…
      </button>
      <input
        ref={picker}
        id={pickerId}
        type="file"
        accept={IMPORT_ACCEPT}
        hidden
        aria-label="File to import"
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = ''; // the same file can be picked again
          void importController(inspector).take(files);
        }}
      />
      {open?.kind === 'export' ? <ExportDialog set={open.set} onClose={() => setOpen(null)} /> : null}
      {open?.kind === 'clear' ? <ClearDialog {...clearOf(open.set)} onClose={() => setOpen(null)} /> : null}
      <ImportDialog />
    </div>
  );
}
