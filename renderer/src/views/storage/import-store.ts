/**
 * Importing a file into the stream, one per inspector: the file dropped or picked is read (within the
 * channel's limit), the user picks the source, `messages.import` sends it through ingestion, and the
 * outcome stays until the dialog is closed (an import outlives its dialog being hidden by another
 * view). No React here: tested in Node.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ImportOutcome } from '../../../../shared/storage.ts';
import type { Inspector } from '../../store/inspector.ts';
import { readImportFile, type FileLike } from './import-file.ts';

export type ImportStep =
  | { kind: 'reading'; name: string }
  /** Not sent: too big, empty or unreadable (the message says what to do). */
  | { kind: 'refused'; name: string; message: string }
  | { kind: 'ready'; name: string; bytes: number; text: string; problem: string | null }
  | { kind: 'sending'; name: string; bytes: number; text: string; sourceId: number }
  | { kind: 'done'; name: string; sourceId: number; outcome: ImportOutcome };

export interface ImportState {
  step: ImportStep | null;
  /** Files dropped at once beyond the first (one is imported at a time). */
  skipped: number;
}

export interface ImportController {
  store: StoreApi<ImportState>;
  /** Reads a dropped or picked file; a file dropped while another is sending is refused. */
  take(files: readonly FileLike[]): Promise<void>;
  send(sourceId: number): Promise<void>;
  close(): void;
}

const controllers = new WeakMap<Inspector, ImportController>();

export function importController(inspector: Inspector): ImportController {
  let controller = controllers.get(inspector);
  if (!controller) controllers.set(inspector, (controller = createImportController(inspector)));
  return controller;
}

export function createImportController(inspector: Pick<Inspector, 'call'>): ImportController {
  const store = createStore<ImportState>()(() => ({ step: null, skipped: 0 }));
  let taking = 0;

  return {
    store,
    async take(files) {
      const file = files[0];
      if (!file || store.getState().step?.kind === 'sending') return;
      const ticket = ++taking;
      store.setState({ step: { kind: 'reading', name: file.name }, skipped: files.length - 1 });
      const read = await readImportFile(file);
      if (ticket !== taking || store.getState().step?.kind !== 'reading') return; // closed, or another file came
      store.setState({ step: read.ok ? { kind: 'ready', name: read.name, bytes: file.size, text: read.text, problem: null } : { kind: 'refused', name: read.name, message: read.message } });
    },
    async send(sourceId) {
      const step = store.getState().step;
      if (step?.kind !== 'ready') return;
      store.setState({ step: { kind: 'sending', name: step.name, bytes: step.bytes, text: step.text, sourceId } });
      const result = await inspector.call('messages.import', { sourceId, fileName: step.name.slice(0, 500), text: step.text });
      if (store.getState().step?.kind !== 'sending') return;
      store.setState({
        step: result.ok
          ? { kind: 'done', name: step.name, sourceId, outcome: result.value }
          : { ...step, problem: `Nothing was imported: ${result.error.message}.` },
      });
    },
    close() {
      if (store.getState().step?.kind === 'sending') return;
      taking++;
      store.setState({ step: null, skipped: 0 });
    },
  };
}
