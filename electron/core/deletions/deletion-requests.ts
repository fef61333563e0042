import { deletionPreviewSchema, deletionRequestSchema, type DeletionPreview } from '../../../shared/channels/deletions.ts';
import { describeIssues } from '../../../shared/settings.ts';
import { deleteBody } from '../../../shared/webhook-body.ts';
import type { EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import type { NewDelivery } from '../store/delivery-types.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import { OperationError } from '../operation-error.ts';
import type { Destination, DestinationsRepo } from '../store/destinations-repo.ts';
import type { DeletionRequestsRepo } from '../store/deletion-requests-repo.ts';

export interface DeletionDeps {
  /** Where the user's data is (their sources, the destinations audiences sent them to). */
  deletionRequests: DeletionRequestsRepo;
  destinations: DestinationsRepo;
  writer: StoreWriter;
  clock: Clock;
  /** The built-in receiver's inbox: a purge removes the user's requests from it. */
  inbox: { forgetUser(userId: string): number[] };
  /** Resolves when the delivery rounds in flight now have ended. */
  roundsEnded: () => Promise<void>;
  bus: EventBus;
  /** Whether a destination's kind takes `delete` notifications (delivery's Kind.takesDeletions). */
  takesDeletions: TakesDeletions;
}

/** Whether a destination's kind takes `delete` notifications: a Tracking API takes none (Segment's deletions go through its own API). */
export type TakesDeletions = (destination: Destination) => boolean;

export interface DeletionResult {
  deletionRequestId: number;
  /** Sources holding messages of the user. */
  sourceIds: number[];
  /** One delete notification per enabled webhook destination of those sources. */
  deliveryIds: number[];
  purgedMessages: number;
  /** Requests a purge removed from the built-in receiver's inbox (those whose body carries the userId). */
  inboxRequests: number;
}

/**
 * A deletion request (seed §1.7, §6.1): every affected source — one holding messages of the user —
 * with an enabled destination whose kind takes deletions (webhooks do) gets a `delete` notification, delivered by the same engine
 * (signed, retried). With `purge`, the user's stored messages are deleted in the same transaction,
 * and the requests carrying the user's id leave the built-in receiver's inbox.
 */
export async function requestDeletion(deps: DeletionDeps, input: unknown): Promise<DeletionResult> {
  const parsed = deletionRequestSchema.safeParse(input);
  if (!parsed.success) throw new OperationError('invalid_deletion_request', describeIssues(parsed.error).join('; '));
  const { userId, purge } = parsed.data;
  const now = deps.clock.now();
  const sourceIds = deps.deletionRequests.sourcesOfUser(userId);
  const body = JSON.stringify(deleteBody(userId, now));
  const deliveries: NewDelivery[] = [];
  for (const destination of notified(deps.destinations.list(), sourceIds, deps.deletionRequests.audienceDestinationsOfUser(userId), deps.takesDeletions)) {
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
  if (outcome.topId !== undefined) deps.bus.emit('messages.removed', { topId: outcome.topId }); // ids above it are given again
  let inboxRequests = 0;
  if (purge) {
    if (outcome.changed > 0) deps.bus.emit('messages.purged', { userId, messages: outcome.changed });
    inboxRequests = deps.inbox.forgetUser(userId).length;
    // A round that was sending one of the user's messages as the purge committed may land afterwards:
    // once the rounds in flight now have ended, the inbox is looked at again.
    void deps.roundsEnded().then(() => deps.inbox.forgetUser(userId));
  }
  return { deletionRequestId: outcome.deletionRequestId!, sourceIds, deliveryIds: outcome.ids, purgedMessages: outcome.changed, inboxRequests };
}

/**
 * The destinations a deletion request notifies: the enabled ones whose kind takes deletions, of the
 * sources holding the user's messages or profile, and those an audience sent the user's membership to
 * (an audience may choose destinations not connected to its source: before 2026-11-30 they were missed).
 */
function notified(destinations: Destination[], sourceIds: number[], audienceDestinationIds: number[], takesDeletions: TakesDeletions): Destination[] {
  return destinations.filter((d) => d.enabled && takesDeletions(d) && (d.sourceIds.some((id) => sourceIds.includes(id)) || audienceDestinationIds.includes(d.id)));
}

export interface DeletionPreviewDeps {
  deletionRequests: DeletionRequestsRepo;
  destinations: DestinationsRepo;
  /** Requests in the built-in receiver's inbox that carry the user's id. */
  inboxRequests: (userId: string) => number;
  takesDeletions: TakesDeletions;
}

/**
 * What a deletion request for this user would do, counted now and changing nothing: the messages a
 * purge deletes (0: Sluice holds none of this user), what their deliveries kept of them, the
 * audience memberships the user leaves, the receiver's requests that go, the notifications sent.
 */
export function previewDeletion(deps: DeletionPreviewDeps, input: unknown): DeletionPreview {
  const parsed = deletionPreviewSchema.safeParse(input);
  if (!parsed.success) throw new OperationError('invalid_deletion_request', describeIssues(parsed.error).join('; '));
  const { userId } = parsed.data;
  const counts = deps.deletionRequests.purgeCounts(userId);
  return {
    userId,
    ...counts,
    notifications: notified(deps.destinations.list(), counts.sourceIds, deps.deletionRequests.audienceDestinationsOfUser(userId), deps.takesDeletions).length,
    inboxRequests: deps.inboxRequests(userId),
  };
}
