import { deletionRequestSchema } from '../../../shared/operations.ts';
import { describeIssues } from '../../../shared/settings.ts';
import { deleteBody } from '../../../shared/webhook-body.ts';
import type { Clock } from '../clock.ts';
import type { NewDelivery } from '../store/delivery-types.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import { OperationError } from '../operation-error.ts';
import type { DestinationsRepo } from '../store/destinations-repo.ts';
import type { MessagesRepo } from '../store/messages-repo.ts';

export interface DeletionDeps {
  messages: MessagesRepo;
  destinations: DestinationsRepo;
  writer: StoreWriter;
  clock: Clock;
}

export interface DeletionResult {
  deletionRequestId: number;
  /** Sources holding messages of the user. */
  sourceIds: number[];
  /** One delete notification per enabled webhook destination of those sources. */
  deliveryIds: number[];
  purgedMessages: number;
}

/**
 * A deletion request (seed §1.7, §6.1): every affected source — one holding messages of the user —
 * with an enabled webhook destination (not a tracking-api one) gets a `delete` notification, delivered by the same engine
 * (signed, retried). With `purge`, the user's stored messages are deleted in the same transaction.
 */
export async function requestDeletion(deps: DeletionDeps, input: unknown): Promise<DeletionResult> {
  const parsed = deletionRequestSchema.safeParse(input);
  if (!parsed.success) throw new OperationError('invalid_deletion_request', describeIssues(parsed.error).join('; '));
  const { userId, purge } = parsed.data;
  const now = deps.clock.now();
  const sourceIds = deps.messages.sourcesOfUser(userId);
  const body = JSON.stringify(deleteBody(userId, now));
  const deliveries: NewDelivery[] = [];
  for (const destination of deps.destinations.list()) {
    if (!destination.enabled || !destination.sourceIds.some((id) => sourceIds.includes(id))) continue;
    // A Tracking API takes no `delete` message (Segment's deletions go through its own API): webhooks only.
    if (destination.kind === 'tracking-api') continue;
    deliveries.push({
      messageId: null,
      destinationId: destination.id,
      trigger: 'deletion',
      replayOf: null,
      targetUrl: null,
      bodyOverride: body,
      due: now,
    });
  }
  const outcome = await deps.writer.write({ op: 'deletionRequest', userId, purge, sourceIds, deliveries, now });
  return { deletionRequestId: outcome.deletionRequestId!, sourceIds, deliveryIds: outcome.ids, purgedMessages: outcome.changed };
}
