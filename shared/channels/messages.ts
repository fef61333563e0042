/**
 * The contract's message channels (`messages.*`): the stream's pages, counts, live rows and a message's
 * detail. (A download and a dropped file, `messages.export` and `messages.import`, are the store's:
 * shared/channels/storage.ts.) Composed into shared/contract.ts.
 */
import { z } from 'zod';
import type { AudienceMessageTag } from '../audiences.ts';
import { DELIVERY_STATUSES, searchQuerySchema } from '../message-filter.ts';
import { MESSAGE_STATUSES, MESSAGE_TYPES } from '../message-rules.ts';
import type { Violation } from '../tracking-plan.ts';
import type { DeliverySummary, DeliveryView } from './deliveries.ts';
import { recordId as id } from './record-id.ts';

/** The stream's filters, as `messages.list` and `messages.count` take them. */
export const messageListFilters = z.strictObject({
  type: z.enum(MESSAGE_TYPES).optional(),
  status: z.enum(MESSAGE_STATUSES).optional(),
  sourceId: z.number().int().optional(),
  /** A query (shared/message-query.ts): words anywhere in the message, field:value clauses. */
  search: searchQuerySchema.optional(),
  /**
   * Only messages whose row shows this delivery state (the most telling over their destinations),
   * or `none` for messages without any delivery. Paging down, older messages are scanned in chunks: a
   * page may come back shorter than `limit` with a `next` cursor to continue from.
   */
  delivery: z.enum([...DELIVERY_STATUSES, 'none']).optional(),
  /** receivedAt bounds, ms since epoch, inclusive (the stream's time range). */
  from: z.number().int().nonnegative().optional(),
  to: z.number().int().nonnegative().optional(),
  /** true: only messages that break a tracking plan; false: only those that do not. */
  violations: z.boolean().optional(),
  /** Only this track event, page or screen name (exactly). */
  event: z.string().max(1024).optional(),
  /** Only messages that break this tracking plan (by name). */
  plan: z.string().max(100).optional(),
});

export const messageRequestSchemas = {
  'messages.list': messageListFilters
    .extend({
      /** A page older than this message (paging down, newest first). */
      beforeId: id.optional(),
      /** A page newer than this message (paging up from a jump; still newest first, `newer` continues it). */
      afterId: z.number().int().nonnegative().optional(),
      /** The page that starts at the match at this position, 0 the newest (the jump to the oldest, the scrollbar). */
      offset: z.number().int().nonnegative().optional(),
      /** The page that starts at the newest message received at or before this time (ms since epoch): the jump to a time. */
      at: z.number().int().nonnegative().optional(),
      limit: z.number().int().min(1).max(1000).default(200),
    })
    .refine((r) => r.from === undefined || r.to === undefined || r.from <= r.to, { message: 'from must not be after to', path: ['from'] })
    .refine((r) => [r.beforeId, r.afterId, r.offset, r.at].filter((v) => v !== undefined).length <= 1, {
      message: 'give at most one of beforeId, afterId, offset and at',
      path: ['beforeId'],
    }),
  /** How many messages are stored, and how many the filters match (counted in a thread of its own). */
  'messages.count': messageListFilters.refine((r) => r.from === undefined || r.to === undefined || r.from <= r.to, { message: 'from must not be after to', path: ['from'] }),
  /** Summaries of these messages (e.g. the ids of a `messages.stored` event), newest first; unknown ids are left out. */
  'messages.byIds': z.strictObject({
    ids: z.array(id).min(1).max(5000),
    /** Each summary then says whether the message matches this query (`matchesSearch`): the inspector's live rows under a search. */
    search: searchQuerySchema.optional(),
  }),
  'messages.get': z.strictObject({ id }),
  /** Pins (or, `pinned: false`, unpins) messages: retention and clears keep a pinned message; `pinned:true` finds them. */
  'messages.pin': z.strictObject({ ids: z.array(id).min(1).max(1000), pinned: z.boolean() }),
} as const;

export interface MessageResponses {
  /**
   * `next`: pass it as `beforeId` for the older page (null: nothing older matches); `newer`: for the newer page after an afterId,
   * offset or at page (null: it reaches the newest); `position`: an offset or at page's first row among
   * the matches, 0 the newest (null: nothing there).
   */
  'messages.list': { messages: MessageSummary[]; next: number | null; newer?: number | null; position?: number | null };
  /**
   * `newestId`: the newest message the counts include (0: none), so a live view adds only the
   * `messages.stored` ids above it — an arrival its event announces after the count already read it
   * is not counted twice.
   */
  'messages.count': MessageCounts;
  'messages.byIds': { messages: MessageSummary[] };
  'messages.get': MessageDetail;
  /** `changed`: how many of the ids are stored messages (the others are gone: no error). */
  'messages.pin': { changed: number };
}

/** How many messages there are and how many the filters match, as of one read (`newestId` the newest it holds). */
export interface MessageCounts {
  total: number;
  matching: number;
  newestId: number;
}

/** A list row: what happened to the message, without its payload. */
export interface MessageSummary {
  id: number;
  sourceId: number;
  messageId: string | null;
  type: string | null;
  status: (typeof MESSAGE_STATUSES)[number];
  rejectCode: string | null;
  rejectReason: string | null;
  origin: string;
  userId: string | null;
  anonymousId: string | null;
  event: string | null;
  receivedAt: number;
  timestamp: number | null;
  /**
   * The delivery the row shows (shared/shown-delivery.ts): per destination the latest delivery to its
   * webhooks (a replay supersedes the original; one to a typed URL does not), then the most telling
   * state (failed > retrying > pending > cancelled > delivered > skipped).
   */
  delivery: DeliverySummary | null;
  /** How many deliveries the message has (one per destination, plus replays). */
  deliveryCount: number;
  /** Set on an identify an audience sync sent (origin `audience`): which audience, and what it said. */
  audience?: AudienceMessageTag;
  /** How many ways the message breaks the tracking plans of its source (0: none, or no plan). */
  violations: number;
  /** Set when a plan blocks the message: it is stored and shown, its deliveries are skipped with this reason. */
  blocked?: string;
  /** Set when Segment's Tracking API would refuse the message (over 32 KB, or in a batch over 500 KB); Sluice accepted it. */
  warning?: string;
  /** Set when the user pinned the message (`messages.pin`): retention and clears keep it. */
  pinned?: true;
  /** identify, group and alias: what names them beyond the userId (see MessageNames); absent when none. */
  names?: MessageNames;
  /** Set by `messages.byIds` given a search: whether the message matches it (the inspector's live rows). */
  matchesSearch?: boolean;
}

/**
 * Read from the payload of an identify, group or alias for its row's title: the identify's email and
 * name traits, the group's groupId and name trait, the alias's previousId. Text (and integer ids)
 * only, each at most 200 characters.
 */
export interface MessageNames {
  email?: string;
  name?: string;
  groupId?: string;
  previousId?: string;
}

export interface MessageDetail extends MessageSummary {
  /** Exactly as the client sent it. */
  raw: string;
  /** As Sluice forwards it (null when rejected). */
  message: Record<string, unknown> | null;
  deliveries: DeliveryView[];
  /** Each way the message breaks a tracking plan, with the path of the field it is about. */
  violationList: Violation[];
}
