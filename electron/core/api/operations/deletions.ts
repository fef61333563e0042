// The deletion operations (`deletions.*` of shared/channels/deletions.ts): a user's deletion request
// (deletions/deletion-requests.ts), its preview, and the list of them.
import { previewDeletion, requestDeletion, type TakesDeletions } from '../../deletions/deletion-requests.ts';
import { kindOf } from '../../delivery/kinds/index.ts';
import { viewWithAttempts } from '../views.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

/** Whether a deletion request notifies a destination: its kind says (delivery/kinds/). */
const takesDeletions: TakesDeletions = (destination) => kindOf(destination).takesDeletions;

export function deletionOperations(p: OperationContext): OperationsOf<'deletions.create' | 'deletions.preview' | 'deletions.list'> {
  const { deliveries, delivery } = p;
  return {
    /** Delete notifications to the user's sources' destinations, and with `purge` the user's messages gone. */
    'deletions.create': (request) => {
      const purged = delivery.purging(); // queued deliveries must not send purged messages
      const parts = { deletionRequests: p.deletionRequests, destinations: p.destinations, writer: p.writer, clock: p.clock, inbox: p.receiver, roundsEnded: () => delivery.roundsEnded(), bus: p.bus, takesDeletions };
      return requestDeletion(parts, request)
        .finally(purged)
        .then((result) => {
          p.pruner.purged(result.purgedMessages);
          return p.written(result.deliveryIds, result);
        });
    },
    'deletions.preview': (request) =>
      previewDeletion({ deletionRequests: p.deletionRequests, destinations: p.destinations, inboxRequests: (userId) => p.receiver.countUser(userId), takesDeletions }, request),
    'deletions.list': ({ limit }) => ({
      requests: p.deletionRequests.recent(limit).map((request) => ({
        ...request,
        deliveries: deliveries.forDeletionRequest(request.id).map((d) => viewWithAttempts(d, deliveries.attempts(d.id))),
      })),
    }),
  };
}
