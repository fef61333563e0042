import type { ClearScope } from '../../../../shared/storage.ts';
import type { StorageResponses } from '../../../../shared/channels/storage.ts';
import { useInspector } from '../../store/react.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { clearDone, clearQuestion, type ClearWhat } from './storage-words.ts';
import './storage.css';

type Cleared = StorageResponses['storage.clear'];

/**
 * Clears messages, asking first (components/ConfirmDialog.tsx): a dry run of `storage.clear` counts
 * what the scope holds, the question says how many and of what ("Remove 12,345 messages of web, with
 * their deliveries and attempts? …"), then the clear runs and the dialog says what went and what the
 * file gave back.
 */
export function ClearDialog({ scope, what, onClose, onCleared }: {
  scope: ClearScope;
  what: ClearWhat;
  onClose: () => void;
  onCleared?: (result: Cleared) => void;
}) {
  const inspector = useInspector();
  return (
    <ConfirmDialog
      title="Clear messages"
      className="storage-dialog"
      counting="Counting the messages…"
      count={() => inspector.call('storage.clear', { scope, dryRun: true }).then((r) => (r.ok ? { ok: true, value: r.value.messages } : r))}
      countFailed={(message) => `Could not count the messages (${message}); close this and try again.`}
      question={(count) => clearQuestion(what, count)}
      act={() => inspector.call('storage.clear', { scope, dryRun: false })}
      actFailed={(message) => `Nothing more was removed: ${message}.`}
      doneText={clearDone}
      keep="Keep them"
      acting="Removing…"
      button="Remove messages"
      onClose={onClose}
      onDone={onCleared}
    />
  );
}
