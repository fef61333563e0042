import { z } from 'zod';
import { MESSAGE_STATUSES, MESSAGE_TYPES } from './messages.ts';
import { webhookUrlSchema } from './settings.ts';

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
  })
  .superRefine((request, ctx) => {
    const ways = [request.messageIds, request.filter, request.allFailed].filter((w) => w !== undefined).length;
    if (ways !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of messageIds, filter or allFailed' });
    if (request.body && request.messageIds?.length !== 1) {
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'an edited body replays exactly one message' });
    }
  });
export type ReplayRequest = z.infer<typeof replayRequestSchema>;

export const deletionRequestSchema = z.strictObject({
  userId: z.string().min(1, 'must not be empty').max(1024),
  /** Also delete the user's stored messages, after the notifications are queued. */
  purge: z.boolean().default(false),
});
export type DeletionRequest = z.infer<typeof deletionRequestSchema>;
