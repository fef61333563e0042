import { useEffect, useId, useState } from 'react';
import { Dialog } from '../../components/Dialog.tsx';
import { useInspector } from '../../store/react.ts';
import { deleteQuestion } from './delete-wording.ts';

type Count = { kind: 'counting' } | { kind: 'counted'; open: number } | { kind: 'failed'; message: string };

/**
 * Confirms deleting a destination, saying first what happens to its deliveries: a dry run of
 * `destinations.delete` counts the pending and retrying ones it would cancel.
 */
export function DeleteDestinationDialog({ id, name, onClose, onDeleted }: {
  id: number;
  name: string;
  onClose: () => void;
  onDeleted: (cancelled: number) => void;
}) {
  const inspector = useInspector();
  const textId = useId();
  const [count, setCount] = useState<Count>({ kind: 'counting' });
  const [deleting, setDeleting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    void inspector.call('destinations.delete', { id, dryRun: true }).then((result) => {
      if (!live) return;
      setCount(result.ok ? { kind: 'counted', open: result.value.cancelledDeliveries } : { kind: 'failed', message: result.error.message });
    });
    return () => {
      live = false;
    };
  }, [inspector, id]);

  const confirm = async () => {
    setDeleting(true);
    setProblem(null);
    const result = await inspector.call('destinations.delete', { id });
    setDeleting(false);
    if (!result.ok) {
      setProblem(`It was not deleted: ${result.error.message}.`);
      return;
    }
    onDeleted(result.value.cancelledDeliveries);
  };

  return (
    <Dialog title="Delete destination" className="dst-dialog" describedBy={textId} onClose={onClose}>
      <p id={textId} className="dst-dialog-text">
        {count.kind === 'counting'
          ? 'Counting its pending and retrying deliveries…'
          : count.kind === 'failed'
            ? `Could not count its deliveries (${count.message}); close this and try again.`
            : deleteQuestion(name, count.open)}
      </p>
      <p className="dst-error dst-dialog-problem" role="alert">
        {problem ?? ''}
      </p>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Keep it
        </button>
        <button type="button" className="btn dst-danger" disabled={count.kind !== 'counted' || deleting} onClick={() => void confirm()}>
          {deleting ? 'Deleting…' : 'Delete destination'}
        </button>
      </div>
    </Dialog>
  );
}
