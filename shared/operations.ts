import { z } from 'zod';
import { MAX_QUERY_LENGTH, parseQuery, QueryError } from './message-query.ts';
import { MESSAGE_STATUSES, MESSAGE_TYPES } from './message-rules.ts';
import { webhookUrlSchema } from './settings.ts';

/** What a delivery can be; `none` in a filter means "no delivery at all" (no destination, rejected, duplicate). */
export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'failed', 'skipped', 'cancelled'] as const;
export type DeliveryStatusName = (typeof DELIVERY_STATUSES)[number];

/** The stream's search: a query (shared/message-query.ts), checked before it is used. */
export const searchQuerySchema = z
  .string()
  .max(MAX_QUERY_LENGTH)
  .superRefine((query, ctx) => {
    try {
      parseQuery(query);
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message });
    }
  });

/** Which stored messages an operation applies to. */
export const messageFilterSchema = z.strictObject({
  type: z.enum(MESSAGE_TYPES).optional(),
  event: z.string().optional(),
  /** Matches userId or anonymousId. */
  userId: z.string().optional(),
  status: z.enum(MESSAGE_STATUSES).optional(),
  sourceId: z.number().int().optional(),
  /** receivedAt range, ms since epoch, inclusive. */
  from: z.number().optional(),
  to: z.number().optional(),
  /** The stream's search: words anywhere in the message, field:value clauses (shared/message-query.ts). */
  search: searchQuerySchema.optional(),
  /** The delivery state the message's row shows (its most telling delivery), or `none` for no delivery. */
  delivery: z.enum([...DELIVERY_STATUSES, 'none']).optional(),
  /** true: only messages that break a tracking plan; false: only those that do not. */
  violations: z.boolean().optional(),
  /** Only messages that break this tracking plan (by name). */
  plan: z.string().max(100).optional(),
});
export type MessageFilter = z.infer<typeof messageFilterSchema>;

export const replayRequestSchema = z
  .strictObject({
    messageIds: z.array(z.number().int().positive()).min(1).max(10_000).optional(),
    filter: messageFilterSchema.optional(),
    /** Every failed delivery, again. */
    allFailed: z.literal(true).optional(),
    /** Through this destination (its secret, headers, body shape); default: every enabled destination of the message's source. */
    destinationId: z.number().int().optional(),
    /** Post to this URL instead of the destination's webhooks, e.g. http://localhost:3000/hook. */
    targetUrl: webhookUrlSchema.optional(),
    /** An edited body to send instead (one message only); it is re-signed. */
    body: z.record(z.string(), z.unknown()).optional(),
    /** Only count what would be replayed (for a confirmation); nothing is created. */
    dryRun: z.boolean().optional(),
  })
  .superRefine((request, ctx) => {
    const ways = [request.messageIds, request.filter, request.allFailed].filter((w) => w !== undefined).length;
    if (ways !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of messageIds, filter or allFailed' });
    if (request.body && request.messageIds?.length !== 1) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'an edited body replays exactly one message' });
    }
  });
export type ReplayRequest = z.infer<typeof replayRequestSchema>;

/** What a replay created (or, for a dry run, would create). */
export interface ReplayOutcome {
  /** The new deliveries; empty for a dry run. */
  deliveryIds: number[];
  /** Messages replayed (a notification without a message, e.g. a deletion's, counts as none). */
  messages: number;
  /** Deliveries replayed: one per message and destination. */
  deliveries: number;
  /** Messages a filter matched that cannot be replayed: rejected ones, and ones whose source has no enabled destination. */
  leftOut: { rejected: number; noDestination: number };
  /** "All failed" found more failed deliveries than it replays at once (the oldest 10,000); run it again for the rest. */
  truncated?: true;
}

/** A filter replay covers at most this many messages; more is refused with a hint to narrow it. */
export const REPLAY_FILTER_MAX = 10_000;

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
  /** The sources holding them: their enabled webhook destinations are notified. */
  sourceIds: number[];
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
