/**
 * The one contract between the core and the inspector, whatever carries it (Electron IPC through the
 * preload, or a WebSocket to the headless host). Every request/response channel is named here with
 * the schema of its request; responses are typed; failures come back as typed results, never as
 * thrown strings. Events travel as batches on one stream.
 */
import { z } from 'zod';
import type { ClientState } from './client-state.ts';
import { MESSAGE_STATUSES, MESSAGE_TYPES } from './message-rules.ts';
import { deletionPreviewSchema, deletionRequestSchema, DELIVERY_STATUSES, replayRequestSchema, searchQuerySchema, type DeletionPreview, type ReplayOutcome } from './operations.ts';
import { receiverBehaviourSchema, type InboxEntry, type ReceiverBehaviour } from './receiver.ts';
import {
  audienceInputSchema,
  audiencePreviewSchema,
  type AudienceMemberView,
  type AudienceMessageTag,
  type AudiencePreviewView,
  type AudienceSyncMessageView,
  type AudienceSyncView,
  type AudienceView,
} from './audiences.ts';
import {
  checkDestination,
  destinationFieldsSchema,
  type DestinationKind,
  type DestinationOptions,
  sourceFieldsSchema,
  type SigningScheme,
  type SourceKind,
  type TrackingApiConfig,
  type WebhookConfig,
} from './settings.ts';
import { planRequestSchemas, type PlanResponses, type RecheckProgress, type Violation } from './tracking-plan.ts';
import { storageRequestSchemas, type PruneReport, type StorageResponses, type StoreHealth } from './storage.ts';

const id = z.number().int().positive();

/** What a delivery can be (defined beside the message filter that uses it). */
export { DELIVERY_STATUSES, type DeliveryStatusName, type ReplayOutcome } from './operations.ts';

/** The stream's filters, as `messages.list` and `messages.count` take them. */
const messageListFilters = z.strictObject({
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

/** Request schemas, one per channel. */
export const requestSchemas = {
  'app.info': z.strictObject({}),
  /** Whether deliveries are held, and how many wait (pending or retrying). */
  'delivery.state': z.strictObject({}),
  /**
   * Holds deliveries (nothing new is sent; rounds under way finish) or lets them go. In memory only:
   * a restart resumes delivery. Every open window hears a `delivery.held` event.
   */
  'delivery.hold': z.strictObject({ held: z.boolean() }),
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
  'deliveries.replay': replayRequestSchema,
  'deliveries.retryNow': z.strictObject({ ids: z.array(id).min(1).max(10_000) }),
  'deliveries.cancel': z.strictObject({ ids: z.array(id).min(1).max(10_000) }),
  /** One delivery with its attempts (e.g. a test delivery, read again after a reconnect). */
  'deliveries.get': z.strictObject({ id }),
  /** A delivery's whole body as sent (a message's detail carries only the start of a big one: DeliveryView.bodyBytes). */
  'deliveries.body': z.strictObject({ id }),
  /** One header of an attempt's request as sent: a credential the attempt's view masks (AttemptView.maskedHeaders), on Reveal or for Copy as curl. */
  'deliveries.revealHeader': z.strictObject({ deliveryId: id, attemptId: id, name: z.string().min(1).max(200) }),
  /** These deliveries' states, as `deliveries.changed` carries them (read again after a reconnect); unknown ids are left out. */
  'deliveries.states': z.strictObject({ ids: z.array(id).min(1).max(10_000) }),
  'destinations.list': z.strictObject({}),
  /**
   * With `id`: edits that source (name, write key, kind; a new key refuses the old one at once).
   * Without: creates one. A source declared in the config file is refused (`declared_in_config`):
   * the file wins at every start. A taken name or write key is refused on its field.
   */
  'sources.save': sourceFieldsSchema.extend({ id: id.optional() }),
  /**
   * With `id`: edits that destination, whose name may change (its deliveries stay). Without: creates
   * one. A name another destination has is refused (`name_taken`, an issue on `name`).
   */
  'destinations.save': destinationFieldsSchema.extend({ id: id.optional() }).superRefine(checkDestination),
  /**
   * Deletes a destination: its pending and retrying deliveries are cancelled; delivered and failed ones
   * and their attempts stay readable. `dryRun` only counts the deliveries it would cancel.
   */
  'destinations.delete': z.strictObject({ id, dryRun: z.boolean().default(false) }),
  'destinations.revealSecret': z.strictObject({ id }),
  /** One signed test track message to this destination's webhooks, through the delivery engine; watch its `deliveries.changed`. */
  'destinations.sendTest': z.strictObject({ id }),
  /** Sends to a webhook URL that answered 410 Gone again. */
  'destinations.reenableUrl': z.strictObject({ id, url: z.string().min(1).max(4096) }),
  'deletions.create': deletionRequestSchema,
  /** What a deletion request for this user would do, counted now, for its confirmation; nothing changes. */
  'deletions.preview': deletionPreviewSchema,
  /** The most recent deletion requests with their delete notifications (deliveries). */
  'deletions.list': z.strictObject({ limit: z.number().int().min(1).max(500).default(100) }),
  /** What the built-in receiver got (the newest `limit`, oldest first) and how each hook answers. */
  'receiver.inbox': z.strictObject({ hook: z.string().max(200).optional(), limit: z.number().int().min(1).max(10_000).optional() }),
  'receiver.setBehaviour': z.strictObject({ hook: z.string().min(1).max(200), behaviour: receiverBehaviourSchema }),
  /**
   * When no enabled destination receives the source: the "Built-in receiver" destination (signed,
   * sluice://receiver/demo; made or reused, as samples.send does) connected to it. Its next messages
   * arrive signed in the receiver's inbox. `destination` null: the source already delivered somewhere.
   */
  'receiver.connect': z.strictObject({ sourceId: id }),
  /** Queue a message in the source's client (Sluice's client library), as an app would. */
  'composer.send': z.strictObject({
    sourceId: id,
    type: z.enum(MESSAGE_TYPES),
    fields: z.record(z.string(), z.unknown()),
  }),
  'composer.flush': z.strictObject({ sourceId: id }),
  'composer.state': z.strictObject({ sourceId: id }),
  /**
   * A handful of realistic messages through the source's composer client; when no enabled destination
   * receives the source, first a "Built-in receiver" destination (signed) — reused on repeats.
   */
  'samples.send': z.strictObject({ sourceId: id }),
  /** Audiences and computed traits (shared/audiences.ts), with their schedule and last sync. */
  'audiences.list': z.strictObject({}),
  /** Creates (no `id`) or edits an audience or computed trait; validated, errors name the field. */
  'audiences.save': audienceInputSchema,
  'audiences.delete': z.strictObject({ id }),
  /** Members count and a sample of a definition before it is saved (and, for an edit, who would join and leave). */
  'audiences.preview': audiencePreviewSchema,
  /** Syncs now, whatever the schedule; answers once its identify messages are stored (deliveries follow). */
  'audiences.syncNow': z.strictObject({ id }),
  /** Syncs of an audience, newest first. */
  'audiences.history': z.strictObject({ id, limit: z.number().int().min(1).max(200).default(20), beforeId: id.optional() }),
  /** The identify messages of one sync with their delivery status, in the order stored. */
  'audiences.syncMessages': z.strictObject({ syncId: id, afterId: z.number().int().nonnegative().default(0), limit: z.number().int().min(1).max(1000).default(100) }),
  /** Members as of the last sync, by userId. */
  'audiences.members': z.strictObject({
    id,
    search: z.string().max(200).optional(),
    after: z.string().max(1024).optional(),
    limit: z.number().int().min(1).max(1000).default(100),
  }),
  /** Tracking plans (shared/tracking-plan.ts). */
  ...planRequestSchemas,
  /** Retention, storage figures, clearing (shared/storage.ts). */
  ...storageRequestSchemas,
} as const;

export type Channel = keyof typeof requestSchemas;
export const CHANNELS = Object.keys(requestSchemas) as Channel[];

export type RequestOf<C extends Channel> = z.input<(typeof requestSchemas)[C]>;
export type ParsedRequestOf<C extends Channel> = z.output<(typeof requestSchemas)[C]>;

export interface SourceView {
  id: number;
  name: string;
  writeKey: string;
  kind: SourceKind;
  /** Browser origins that may send with the key (the config's allowedOrigins); absent or null: any. */
  allowedOrigins?: string[] | null;
  /**
   * Set when the config file declares the source: the file's path (or "--config" when Sluice was
   * given the config without one). Such a source is read-only in the inspector: the file wins at
   * every start. Absent or null: created in the inspector, or by Sluice ("default").
   */
  fromConfig?: string | null;
}

/** A destination as the UI sees it: the secret masked unless revealed on request. */
export interface DestinationView {
  id: number;
  name: string;
  enabled: boolean;
  sourceIds: number[];
  webhooks: WebhookConfig[];
  hasSecret: boolean;
  /** "••••••••" when there is one: no character of it (Reveal reads it). */
  maskedSecret: string | null;
  signing: SigningScheme;
  /** The Standard Webhooks secrets, masked the same way ("••••••••" each, in order); empty when there are none. */
  maskedSigningSecrets: string[];
  options: DestinationOptions;
  /** Webhooks (the seed's signed POSTs), or a Tracking API that messages are forwarded to unchanged. */
  kind: DestinationKind;
  /** A tracking-api destination's API, its write key masked; null for a webhooks destination. */
  trackingApi: TrackingApiView | null;
  /**
   * Each webhook's receiver as the engine sees it, in the order of `webhooks`; for a tracking-api
   * destination, its one URL (`trackingApi.batchUrl`).
   */
  health: WebhookHealth[];
}

/** Where a tracking-api destination forwards, as the UI sees it: the write key masked like the shared secret. */
export type TrackingApiView = Omit<TrackingApiConfig, 'writeKey'> & {
  /** Where its requests go: `<url>/v1/batch`, or `url` itself when it ends so. */
  batchUrl: string;
  /** "••••••••": no character of it (Reveal reads it). */
  maskedWriteKey: string;
};

/**
 * A webhook URL's state: its circuit breaker (closed: requests go; open: none until `probeAt`;
 * half-open: one probe under way) and whether it answered 410 Gone (nothing is sent there until it is
 * re-enabled or the destination is edited).
 */
export interface WebhookHealth {
  url: string;
  breaker: 'closed' | 'open' | 'half-open';
  /** Failures in a row (network errors, timeouts, 5xx, 408, 429). */
  failures: number;
  probeAt: number | null;
  lastError: string | null;
  gone: { at: number; reason: string } | null;
}

/** Whether the delivery engine is held, and how many deliveries wait to be sent (pending or retrying). */
export interface DeliveryHoldState {
  held: boolean;
  waiting: number;
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

/** Why an attempt failed (the attempts table's error_code); `http` comes with the status it answered. */
export type DeliveryErrorCode = 'timeout' | 'tls' | 'connect' | 'reset' | 'http';

export interface DeliverySummary {
  id: number;
  status: string;
  attemptCount: number;
  nextAttemptAt: number | null;
  lastError: string | null;
  /** The last attempt's error code while the delivery is retrying or failed (else null). */
  lastErrorCode: DeliveryErrorCode | null;
  /** The status the last attempt got when its error is `http` (else null). */
  lastHttpStatus: number | null;
  /** Why a `skipped` delivery was not sent (e.g. the message's integrations turn webhooks off). */
  skipReason: string | null;
  /**
   * Where it goes and what made it: which delivery a row shows depends on them (a replay supersedes
   * earlier deliveries to its destination, one to a typed `targetUrl` does not: shared/shown-delivery.ts),
   * and a row says when the delivery it shows is a replay.
   */
  destinationId: number;
  /** automatic, replay, audience, deletion or test. */
  trigger: string;
  /** A replay's own URL; null: the destination's webhooks. */
  targetUrl: string | null;
}

export interface AttemptView {
  id: number;
  url: string;
  startedAt: number;
  durationMs: number;
  /** As sent, but each credential's value masked (shared/credential-headers.ts): `deliveries.revealHeader` reads it. */
  requestHeaders: Record<string, string>;
  /** The names of the headers whose values `requestHeaders` masks (absent: none). */
  maskedHeaders?: string[];
  responseStatus: number | null;
  responseHeaders: Record<string, string | string[]> | null;
  responseBody: string | null;
  errorCode: DeliveryErrorCode | null;
  errorMessage: string | null;
  outcome: string;
  retryAt: number | null;
}

export interface DeliveryView extends DeliverySummary {
  replayOf: number | null;
  /** The body as sent (null before the first attempt); in a message's detail, only its start when `bodyBytes` is set. */
  body: string | null;
  /**
   * Set when `body` holds only the first BODY_PREVIEW_BYTES (shared/limits.ts) of a bigger body, cut at
   * a character boundary: the whole body's size in bytes (`deliveries.body` reads it all).
   */
  bodyBytes?: number;
  signature: string | null;
  firstAttemptAt: number | null;
  deadlineAt: number | null;
  createdAt: number;
  attempts: AttemptView[];
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

export interface MessageDetail extends MessageSummary {
  /** Exactly as the client sent it. */
  raw: string;
  /** As Sluice forwards it (null when rejected). */
  message: Record<string, unknown> | null;
  deliveries: DeliveryView[];
  /** Each way the message breaks a tracking plan, with the path of the field it is about. */
  violationList: Violation[];
}

/** Response types, one per channel. */
export interface Responses extends PlanResponses, StorageResponses {
  /** `dataDir`: where the store lives. */
  'app.info': { version: string; ingestUrl: string; receiverUrl: string; dataDir: string; sources: SourceView[] };
  'delivery.state': DeliveryHoldState;
  'delivery.hold': DeliveryHoldState;
  /**
   * `next`: pass it as `beforeId` for the older page (null: nothing older matches); `newer`: for the newer page after an afterId,
   * offset or at page (null: it reaches the newest); `position`: an offset or at page's first row among
   * the matches, 0 the newest (null: nothing there).
   */
  'messages.list': { messages: MessageSummary[]; next: number | null; newer?: number | null; position?: number | null };
  'messages.count': { total: number; matching: number };
  'messages.byIds': { messages: MessageSummary[] };
  'messages.get': MessageDetail;
  /** A dry run (`dryRun: true`) only counts: `deliveryIds` is empty. */
  'deliveries.replay': ReplayOutcome;
  'deliveries.retryNow': { changed: number };
  'deliveries.cancel': { changed: number };
  'deliveries.get': DeliveryView;
  /** null: nothing was sent yet (or a purge removed it). */
  'deliveries.body': { body: string | null };
  'deliveries.revealHeader': { value: string };
  'deliveries.states': { changes: DeliveryChange[] };
  'destinations.list': { destinations: DestinationView[] };
  'sources.save': SourceView;
  'destinations.save': DestinationView;
  /** The stored credentials: the shared secret, the Standard Webhooks secrets, a tracking-api destination's write key. */
  'destinations.revealSecret': { secret: string | null; signingSecrets: string[]; writeKey: string | null };
  /** `deleted` is false for a dry run; `cancelledDeliveries`: cancelled, or that a deletion would cancel. */
  'destinations.delete': { deleted: boolean; cancelledDeliveries: number };
  /** The test delivery's id and the body it sends. */
  'destinations.sendTest': { deliveryId: number; body: string };
  'destinations.reenableUrl': DestinationView;
  /** `inboxRequests`: requests a purge removed from the built-in receiver's inbox. */
  'deletions.create': { deletionRequestId: number; sourceIds: number[]; deliveryIds: number[]; purgedMessages: number; inboxRequests: number };
  'deletions.list': { requests: DeletionRequestView[] };
  'deletions.preview': DeletionPreview;
  'receiver.inbox': { entries: InboxEntry[]; behaviours: Record<string, ReceiverBehaviour> };
  'receiver.setBehaviour': { hook: string; behaviour: ReceiverBehaviour };
  'receiver.connect': { destination: { id: number; name: string; hookUrl: string; created: boolean } | null };
  'composer.send': { queued: boolean; state: ComposerState };
  'composer.flush': ComposerState;
  'composer.state': ComposerState;
  'samples.send': {
    sent: number;
    /** Set when the call created the built-in receiver destination or connected the source to it. */
    destination: { id: number; name: string; hookUrl: string; created: boolean } | null;
    state: ComposerState;
  };
  'audiences.list': { audiences: AudienceView[] };
  'audiences.save': AudienceView;
  'audiences.delete': { deleted: true };
  'audiences.preview': AudiencePreviewView;
  'audiences.syncNow': AudienceSyncView;
  /** `next`: pass it as `beforeId` for older syncs; null when there are none. */
  'audiences.history': { syncs: AudienceSyncView[]; next: number | null };
  /** `next`: pass it as `afterId` for the following messages; null at the end. */
  'audiences.syncMessages': { sync: AudienceSyncView; messages: AudienceSyncMessageView[]; next: number | null };
  /** `total` matches the search; `next`: pass it as `after`; null at the end. */
  'audiences.members': { members: AudienceMemberView[]; total: number; next: string | null };
}

export interface ContractError {
  /** Stable: `invalid_request`, `not_found`, an operation's own code, or `internal_error`. */
  code: string;
  message: string;
  /** Each problem on the field it is about (invalid requests, refused settings); `message` says them all. */
  issues?: ContractIssue[];
}

/** A problem with one field of a request: `path` as in the request, e.g. `['webhooks', 0, 'headers', 'X-Api.Key']`. */
export interface ContractIssue {
  path: (string | number)[];
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ContractError };

/**
 * A delivery's new state, as announced after it is stored: a DeliverySummary's fields (state, last
 * error, and where it goes — which delivery a row shows depends on them), less the skip reason, with
 * the delivery's and its message's ids.
 */
export type DeliveryChange = { deliveryId: number; messageId: number | null } & Omit<DeliverySummary, 'id' | 'skipReason'>;

/** Everything the core announces, batched (at most one batch per ~30 ms). */
export type CoreEvent =
  | { type: 'messages.stored'; ids: number[] }
  | { type: 'deliveries.changed'; changes: DeliveryChange[] }
  | { type: 'receiver.received'; entries: InboxEntry[] }
  /** The built-in receiver let go of these requests (a purge of their user): they leave its inbox. */
  | { type: 'receiver.removed'; ids: number[] }
  | { type: 'settings.changed' }
  /** Every message and delivery was forgotten (sluice/testing's reset): read everything again. */
  | { type: 'store.reset' }
  /** Deliveries were held or let go (delivery.hold), from any window. */
  | { type: 'delivery.held'; held: boolean }
  /** The latest queue state of a source's composer client (older states in a batch are dropped). */
  | { type: 'client.state'; sourceId: number; state: ComposerState }
  /** An audience was saved, deleted or synced, or its sync failed: read it again. */
  | { type: 'audiences.changed'; audienceId: number; reason: 'saved' | 'deleted' | 'synced' | 'failed' }
  /** A tracking plan was loaded again (its file changed, or an event was added) or could not be: read plans again. */
  | { type: 'plans.changed' }
  /** A re-check of stored messages moved on (at most a few times a second) or ended. */
  | { type: 'plans.recheck'; progress: RecheckProgress }
  /** Messages were pruned or cleared (read the stream and the storage figures again). */
  | { type: 'storage.pruned'; report: PruneReport }
  /** The store's soundness changed: damage was found (the inspector's banner), or the background check began or ended. */
  | { type: 'storage.health'; health: StoreHealth }
  /** A deletion request purged this user's stored messages (after the change is stored): their rows leave the stream. */
  | { type: 'messages.purged'; userId: string; messages: number };

/** The composer client's queue, for display: the client library's own state snapshot. */
export type ComposerState = ClientState;

/** Events are coalesced to at most one send per this many ms. */
export const EVENT_BATCH_MS = 30;

/** The messages a WebSocket transport carries. */
export type ClientFrame = { kind: 'invoke'; id: number; channel: Channel; request: unknown };
export type ServerFrame =
  | { kind: 'result'; id: number; result: Result<unknown> }
  | { kind: 'events'; events: CoreEvent[] };
