import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { useInspector } from '../../store/react.ts';
import { deleteQuestion } from './delete-wording.ts';

/**
 * Confirms deleting a destination, saying first what happens to its deliveries
 * (components/ConfirmDialog.tsx): a dry run of `destinations.delete` counts the pending and retrying
 * ones it would cancel. Once deleted, `onDeleted` closes it (the list says what went).
 */
export function DeleteDestinationDialog({ id, name, onClose, onDeleted }: {
  id: number;
  name: string;
  onClose: () => void;
  onDeleted: (cancelled: number) => void;
}) {
  const inspector = useInspector();
  return (
    <ConfirmDialog
      title="Delete destination"
      className="dst-dialog"
      counting="Counting its pending and retrying deliveries…"
      count={() => inspector.call('destinations.delete', { id, dryRun: true }).then((r) => (r.ok ? { ok: true, value: r.value.cancelledDeliveries } : r))}
      countFailed={(message) => `Could not count its deliveries (${message}); close this and try again.`}
      question={(open) => ({ text: deleteQuestion(name, open), button: 'Delete destination' })}
      act={() => inspector.call('destinations.delete', { id })}
      actFailed={(message) => `It was not deleted: ${message}.`}
      keep="Keep it"
      acting="Deleting…"
      button="Delete destination"
      onClose={onClose}
      onDone={(result) => onDeleted(result.cancelledDeliveries)}
    />
  );
}
