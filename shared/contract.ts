/**
 * The one contract between the core and the inspector, whatever carries it (Electron IPC through the
 * preload, a WebSocket to the headless host). Every request/response channel is named here with the
 * schema of its request and the type of its response, composed from one module per domain
 * (shared/channels/: messages, facets, deliveries, destinations, sources, audiences, plans, storage, receiver,
 * deletions, faults, transforms, overview, issues, searches); the core's operations are keyed by the same names (electron/core/api/operations/).
 * Failures come back as typed results, never as thrown strings. Events travel as batches on one stream.
 */
import type { z } from 'zod';
import { audienceRequestSchemas, type AudienceResponses } from './channels/audiences.ts';
import { deletionRequestSchemas, type DeletionResponses } from './channels/deletions.ts';
import { facetRequestSchemas, type FacetResponses } from './channels/facets.ts';
import { faultRequestSchemas, type FaultResponses } from './channels/faults.ts';
import { deliveryRequestSchemas, type DeliveryChange, type DeliveryResponses } from './channels/deliveries.ts';
import { destinationRequestSchemas, type DestinationResponses } from './channels/destinations.ts';
import { messageRequestSchemas, type MessageResponses } from './channels/messages.ts';
import { overviewRequestSchemas, type OverviewResponses } from './channels/overview.ts';
import { issueRequestSchemas, type IssueResponses, type IssueRetryProgress } from './channels/issues.ts';
import { searchRequestSchemas, type SearchResponses } from './channels/searches.ts';
import { receiverRequestSchemas, type ReceiverResponses } from './channels/receiver.ts';
import { sourceRequestSchemas, type ComposerState, type SourceResponses } from './channels/sources.ts';
import { planRequestSchemas, type PlanResponses } from './channels/plans.ts';
import { storageRequestSchemas, type StorageResponses } from './channels/storage.ts';
import { transformRequestSchemas, type TransformResponses } from './channels/transforms.ts';
import type { InboxEntry } from './receiver.ts';
import type { PruneReport, StoreHealth } from './storage.ts';
import type { RecheckProgress } from './tracking-plan.ts';

export type { DeliveryStatusName } from './message-filter.ts';
export type { MessageDetail, MessageNames, MessageSummary } from './channels/messages.ts';
export type { FacetsView, FacetValue, FacetView, TimelineView } from './channels/facets.ts';
export type {
  AttemptView,
  DeliveryChange,
  DeliveryErrorCode,
  DeliveryHoldState,
  DeliverySummary,
  DeliveryView,
  ReplayOutcome,
  TransformRunView,
} from './channels/deliveries.ts';
export type { DestinationView, TrackingApiView, WebhookHealth } from './channels/destinations.ts';
export type { SavedFilters, SavedSearch } from './channels/searches.ts';
export type { ComposerState, SourceView } from './channels/sources.ts';
export type { ReceiverDestination } from './channels/receiver.ts';
export type { DeletionPreview, DeletionRequestView } from './channels/deletions.ts';
export type { FaultedRequest, FaultsView, FaultView, IngestFault } from './channels/faults.ts';
export type { FilterDecision, TransformSource, TransformTry } from './channels/transforms.ts';
export type { DeliveryOverview, DestinationFunnel, OverviewWindow } from './channels/overview.ts';
export type { IssueErrorKind, IssueRetryProgress, IssueState, IssueView } from './channels/issues.ts';

/** Request schemas, one per channel. */
export const requestSchemas = {
  ...sourceRequestSchemas,
  ...messageRequestSchemas,
  ...facetRequestSchemas,
  ...deliveryRequestSchemas,
  ...destinationRequestSchemas,
  ...deletionRequestSchemas,
  ...receiverRequestSchemas,
  ...audienceRequestSchemas,
  ...planRequestSchemas,
  ...storageRequestSchemas,
  ...faultRequestSchemas,
  ...transformRequestSchemas,
  ...overviewRequestSchemas,
  ...issueRequestSchemas,
  ...searchRequestSchemas,
} as const;

export type Channel = keyof typeof requestSchemas;
export const CHANNELS = Object.keys(requestSchemas) as Channel[];

export type RequestOf<C extends Channel> = z.input<(typeof requestSchemas)[C]>;
export type ParsedRequestOf<C extends Channel> = z.output<(typeof requestSchemas)[C]>;

/** Response types, one per channel. */
export interface Responses
  extends SourceResponses,
    MessageResponses,
    FacetResponses,
    DeliveryResponses,
    DestinationResponses,
    DeletionResponses,
    ReceiverResponses,
    AudienceResponses,
    PlanResponses,
    StorageResponses,
    FaultResponses,
    TransformResponses,
    SearchResponses,
    OverviewResponses,
    IssueResponses {}

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
  | { type: 'messages.purged'; userId: string; messages: number }
  /** Messages were pinned or unpinned (`messages.pin`, from any window): their rows and detail say so. */
  | { type: 'messages.pinned'; ids: number[]; pinned: boolean }
  /** Faults injected into ingestion changed, or a request was faulted: read `faults.list` again. */
  | { type: 'faults.changed' }
  /** A bulk retry of Issues (`issues.retry`) moved on (at most a few times a second) or ended: the latest progress of each job. */
  | { type: 'issues.retryProgress'; progress: IssueRetryProgress };

/** Events are coalesced to at most one send per this many ms. */
export const EVENT_BATCH_MS = 30;

/**
 * Over Electron IPC each channel is `sluice:<channel>` (the main process's bridge registers them, the
 * preload exposes them), and the events come on `sluice:events`.
 */
export const IPC_PREFIX = 'sluice:';
export const IPC_EVENTS = `${IPC_PREFIX}events`;

/** The messages a WebSocket transport carries. */
export type ClientFrame = { kind: 'invoke'; id: number; channel: Channel; request: unknown };
export type ServerFrame =
  | { kind: 'result'; id: number; result: Result<unknown> }
  | { kind: 'events'; events: CoreEvent[] };
