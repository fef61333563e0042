import type { StorageResponses } from '../../../../shared/channels/storage.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { useInspector } from '../../store/react.ts';
import { resetDone, resetQuestion } from './storage-words.ts';
import './storage.css';

/**
 * The core's reset, asked first as a clear is (components/ConfirmDialog.tsx): a dry run of clearing
 * everything counts the messages, the question says what is forgotten and what stays, the safe answer
 * has the focus, then `storage.reset` runs and the dialog says what went. Every window reloads on
 * `store.reset`.
 */
export function ResetDialog({ onClose, onReset }: { onClose: () => void; onReset?: (result: StorageResponses['storage.reset']) => void }) {
  const inspector = useInspector();
  return (
    <ConfirmDialog
      title="Reset Sluice"
      className="storage-dialog"
      counting="Counting the messages…"
      count={() => inspector.call('storage.clear', { scope: { all: true }, dryRun: true }).then((r) => (r.ok ? { ok: true, value: r.value.messages } : r))}
      countFailed={(message) => `Could not count the messages (${message}); close this and try again.`}
      question={resetQuestion}
      act={() => inspector.call('storage.reset', {})}
      actFailed={(message) => `Nothing was reset: ${message}.`}
      doneText={resetDone}
      keep="Keep everything"
      acting="Resetting…"
      button="Reset and forget"
      onClose={onClose}
      onDone={onReset}
    />
  );
}
