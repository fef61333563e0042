/**
 * What deleting a destination does, said before (with the count of a dry run) and after. Its
 * pending and retrying deliveries are cancelled; its history stays readable.
 */
import { plural } from '../../lib/format.ts';

const deliveries = (n: number) => plural(n, 'pending or retrying delivery', 'pending or retrying deliveries');

const KEPT = 'Its delivered and failed deliveries and their attempts stay in the message history; new messages of its sources are no longer sent to it.';

/** The confirmation's sentence; `open` is the number of deliveries the deletion would cancel. */
export function deleteQuestion(name: string, open: number): string {
  const fate =
    open === 0
      ? 'Nothing is waiting to be sent to it.'
      : `Its ${deliveries(open)} will be cancelled: nothing more is sent for ${open === 1 ? 'it' : 'them'}.`;
  return `Delete “${name}”? ${fate} ${KEPT}`;
}

/** What the list says once it is done. */
export function deletedNote(name: string, cancelled: number): string {
  return cancelled === 0 ? `Deleted “${name}”.` : `Deleted “${name}”; ${deliveries(cancelled)} ${cancelled === 1 ? 'was' : 'were'} cancelled.`;
}
