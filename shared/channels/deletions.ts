/**
 * The contract's deletion channels (`deletions.*`): a user's deletion request (delete notifications to
 * the destinations, and optionally a purge of the user's messages), its preview, and the list of them.
 * Composed into shared/contract.ts.
 */
import { z } from 'zod';
import type { DeliveryView } from './deliveries.ts';

export const deletionRequestSchema = z.strictObject({
  userId: z.string().min(1, 'must not be empty').max(1024),
  /** Also delete the user's stored messages, after the notifications are queued. */
  purge: z.boolean().default(false),
});
export type DeletionRequest = z.infer<typeof deletionRequestSchema>;

export const deletionPreviewSchema = z.strictObject({ userId: deletionRequestSchema.shape.userId });

/**
 * What a deletion request for a user would do, counted before it is asked for (the inspector's
 * confirmation). Counted now: messages arriving meanwhile are purged too.
 */
export interface DeletionPreview {
  userId: string;
  /** Stored messages with this userId, of any status: what a purge deletes. 0: Sluice has never stored one (or no longer has). */
  messages: number;
  /**
   * The sources holding them, or a profile of the user (the traits and events audiences keep, which
   * outlive the messages they came from: a source whose messages of the user were pruned still has
   * one): their enabled webhook destinations are notified, and a purge removes the profile.
   */
  sourceIds: number[];
  /** Sources keeping a profile of the user (audiences' traits and events): a purge removes them. */
  profiles: number;
  /** Destinations a `delete` notification would go to (one each). */
  notifications: number;
  /** Deliveries of those messages: a purge removes the bodies they sent (the delivery rows stay, as the record of what was sent when). */
  deliveries: number;
  /** Attempts of those deliveries: a purge removes the receivers' answers they kept. */
  attempts: number;
  /** Audience and computed trait memberships the user leaves with a purge. */
  audienceMemberships: number;
  /** Requests in the built-in receiver's inbox whose body carries this userId: a purge removes them. */
  inboxRequests: number;
}

export const deletionRequestSchemas = {
  'deletions.create': deletionRequestSchema,
  /** What a deletion request for this user would do, counted now, for its confirmation; nothing changes. */
  'deletions.preview': deletionPreviewSchema,
  /** The most recent deletion requests with their delete notifications (deliveries). */
  'deletions.list': z.strictObject({ limit: z.number().int().min(1).max(500).default(100) }),
} as const;

export interface DeletionResponses {
  /** `inboxRequests`: requests a purge removed from the built-in receiver's inbox. */
  'deletions.create': { deletionRequestId: number; sourceIds: number[]; deliveryIds: number[]; purgedMessages: number; inboxRequests: number };
  'deletions.list': { requests: DeletionRequestView[] };
  'deletions.preview': DeletionPreview;
}

/** A deletion request and its delete notifications, one per affected destination. */
export interface DeletionRequestView {
  id: number;
  userId: string;
  requestedAt: number;
  purge: boolean;
  /** The sources that held messages of the user when it was requested. */
  sourceIds: number[];
  purgedMessages: number;
  deliveries: DeliveryView[];
}
