/**
 * Which stored messages a request picks: the stream's search and the filter that replays, clears and
 * downloads take (the same set the inspector shows). Depends on zod and shared/ only.
 */
import { z } from 'zod';
import { MAX_QUERY_LENGTH, parseQuery, QueryError } from './message-query.ts';
import { MESSAGE_STATUSES, MESSAGE_TYPES } from './message-rules.ts';

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
