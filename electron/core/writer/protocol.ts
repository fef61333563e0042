/**
 * Messages between the main thread's StoreWriter (store-writer.ts) and the store's writer thread
 * (writer-worker.ts): ingestion requests to parse and store, delivery results, write ops, webhook
 * bodies to build. The main thread never waits for SQLite's write lock.
 */
import type { MessageType } from '../../../shared/message-rules.ts';
import type { AudienceOp, AudienceOutcome } from './audience-ops.ts';
import type { BodyRecipe } from '../../../shared/webhook-body.ts';
import type { JsonErrorPlace } from '../../../shared/json-error-place.ts';
import type { DestinationFilter } from '../../../shared/destination-filters.ts';
import type { ResultColumns } from './result-columns.ts';
import type { NewDelivery, Route } from '../store/delivery-types.ts';
import type { CommittedRequest } from '../store/stored-request.ts';
import type { TrackingPlan, UnplannedMode, ViolationMode } from '../../../shared/tracking-plan.ts';

/**
 * One ingestion request, as the ingestion server hands it to the store's writer thread (which parses
 * and validates it with ingest/prepare-request.ts).
 */
export interface IngestJob {
  id: number;
  /** The (decompressed) body. */
  body: Uint8Array;
  /** The source named by the Authorization header, or null to look for `writeKey` in the body. */
  sourceId: number | null;
  /** The path segment after /v1/: batch, import, track, t, ... */
  endpoint: string;
  /** The type a single-message endpoint implies; null for batch and import. */
  singleType: MessageType | null;
  receivedAt: number;
  ip: string | null;
  /** The Sluices the request passed through (its Sluice-Loop header), when it came from one. */
  via?: string[];
  /** An import (its IMPORT_HEADER, store/normalize.ts): the messages keep their own time. */
  imported?: true;
  /** The Origin header of a browser's request whose write key is in the body: checked against the source's allowedOrigins. */
  origin?: string;
  /** Not a request to parse: one refused as a whole, to store as a rejected entry (ingest/refused-requests.ts). */
  refused?: RefusedRequest;
}

/** A request refused as a whole, as its stored entry describes it. */
export interface RefusedRequest {
  status: number;
  code: string;
  message: string;
  /** The path it was sent to. */
  path: string;
  /** Its Content-Length, when it declared one. */
  bytes: number | null;
  contentType: string | null;
  /** The start of its body, when it was read. */
  preview: string | null;
  /** Where its body stops being JSON, when that is why it was refused (read on the whole body, not the preview). */
  jsonError?: JsonErrorPlace | null;
  /** Refused requests not stored since the last one that was (over the rate). */
  dropped: number;
}

/** A tracking plan at work, as the main thread's registry (plans/plan-registry.ts) sends it to the writer (plans/plan-checks.ts). */
export interface PlanRule {
  name: string;
  /** A hash of the plan: a rule whose version did not change is not compiled again. */
  version: string;
  plan: TrackingPlan;
  /** The sources it checks; null: every source. */
  sourceIds: number[] | null;
  unplanned: UnplannedMode;
  violations: ViolationMode;
  /** The destination that receives each violation as a `Violation Generated` event; null: none. */
  forwardTo: number | null;
  /** Source names by id, for the forwarded events' `sourceName`. */
  sourceNames?: Record<number, string>;
}

/** What one slice of pruning or clearing removed (retention/prune-writes.ts). */
export interface Removed {
  messages: number;
  deliveries: number;
  attempts: number;
  /** The last message id the slice looked at (the next slice starts after it); 0 when none. */
  lastId: number;
  /** Messages it left because a delivery of theirs is pending, retrying or in flight (pruning only). */
  keptPending: number;
  /** Messages it left because they are pinned (pruning only; a pinned one with an open delivery counts here). */
  keptPinned?: number;
  /**
   * The highest message id left once the slice's delete ran, read in its transaction (0: none). Ids are
   * reused (no AUTOINCREMENT): the next message stored takes topId + 1, which may be at or below an id a
   * follower already passed (core/queries/message-follow.ts reads on from here).
   */
  topId: number;
}

/** A write key, its source, and the browser origins the source accepts (absent or null: any). */
export type SourceKey = [writeKey: string, sourceId: number, allowedOrigins?: string[] | null];

/** Writes the main thread asks the store's writer for, each in one transaction. */
export type WriteOp =
  | { op: 'createDeliveries'; deliveries: NewDelivery[]; now: number }
  /** `reopenFailed`: failed ones get one more round too (a bulk retry of Issues: store/delivery-writes.ts). */
  | { op: 'retryNow'; deliveryIds: number[]; now: number; reopenFailed?: boolean }
  | { op: 'cancel'; deliveryIds: number[]; now: number }
  | {
      op: 'deletionRequest';
      userId: string;
      purge: boolean;
      sourceIds: number[];
      deliveries: NewDelivery[];
      now: number;
    }
  /** Forget every message, delivery and profile; keep the configuration (store/reset-writes.ts). */
  | { op: 'reset'; now: number }
  /**
   * Checks up to `limit` stored messages after `afterId` (up to `untilId`) against the plans in use again, and records
   * their violations (plans/recheck-writes.ts); `ids` = [the last message read, how many were read], `changed` = rows updated.
   */
  | { op: 'recheck'; afterId: number; untilId: number; limit: number }
  /** Retention (retention/prune-writes.ts): a slice of the messages after `afterId` up to `upToId`, except those still being delivered. */
  | { op: 'prune'; afterId: number; upToId: number; limit: number }
  /** A clear: these messages, whatever their deliveries' states (the engine was told first). */
  | { op: 'removeMessages'; ids: number[] }
  /** Pins or unpins these messages (retention and clears keep a pinned one); `changed`: how many exist. */
  | { op: 'pin'; ids: number[]; pinned: boolean }
  /** Gives free pages back to the file system (auto_vacuum incremental). */
  | { op: 'vacuum'; pages: number }
  /** A slice of a merge of the search indexes (store/search-index.ts indexMerger); `more` says whether one is needed. */
  | { op: 'mergeIndexes'; pages: number }
  | AudienceOp;

export interface WriteOutcome {
  /**
   * Ids of created rows (deliveries). createDeliveries leaves out the deliveries of messages that no
   * longer exist (purged after the caller planned them), so it may return fewer ids than asked for.
   */
  ids: number[];
  /** createDeliveries: messages that were gone when the write ran (no delivery created for them). */
  goneMessageIds?: number[];
  /** Rows changed (retryNow, cancel) or messages purged. */
  changed: number;
  deletionRequestId?: number;
  /** A purge that removed messages: the highest message id left, read in its transaction (Removed.topId). */
  topId?: number;
  /** What an audience op did (audience-ops.ts). */
  audience?: AudienceOutcome;
  /** What a prune or removeMessages slice removed; for vacuum, `free` pages left. */
  removed?: Removed;
  free?: number;
  /** mergeIndexes: the merge is not done yet. */
  more?: boolean;
  /** mergeIndexes: how long to wait before the next slice (ingestion is under way: the merge takes at most a tenth of the writer's time). */
  restMs?: number;
}

/** What a writer thread opens: given as its workerData, or in an `open` message to a spare thread (store-writer.ts). */
export interface WriterSetup {
  file: string;
  searchIndex: boolean;
  durable: boolean;
  gate?: Int32Array;
  claim: Int32Array;
}

export type ToWriter =
  | { kind: 'open'; setup: WriterSetup }
  | { kind: 'job'; job: IngestJob }
  | { kind: 'sources'; writeKeys: SourceKey[] }
  | { kind: 'routes'; routes: Route[] }
  | { kind: 'plans'; plans: PlanRule[] }
  | { kind: 'results'; id: number; columns: ResultColumns }
  | { kind: 'write'; id: number; op: WriteOp }
  | ({ kind: 'bodies'; id: number } & BodiesRequest)
  | { kind: 'autocheckpoint' }
  | { kind: 'close' };

/**
 * Bodies (and signatures) for the messages of queued deliveries, built by the writer thread off the
 * delivery engine's thread (delivery/prepare-bodies.ts), with their destination's recipe.
 */
export interface BodiesRequest extends BodyRecipe {
  messageIds: number[];
  /** The destination's filters, run on each message first (delivery/shaping.ts); absent: none. */
  filters?: DestinationFilter[];
  /** With filters: the names of the sources, by id (what a filter's `source:` tests). */
  sourceNames?: [number, string][];
  /** The destination has a transform: the filtered messages are answered too (`messages`). */
  messagesOnly?: boolean;
}

/** By position in the request; null for a message that is gone (purged) or never forwarded. */
export interface PreparedBodies {
  bodies: (string | null)[];
  signatures: (string | null)[];
  /** The Sluices each message passed through before this one (the start of its Sluice-Loop header). */
  vias: (string | null)[];
  /** With filters: the sentence of the filter that dropped each message (null: kept). */
  dropped?: (string | null)[];
  /** With filters: what the field filters did to each kept message (null: nothing). */
  shapings?: (string | null)[];
  /** With messagesOnly: each kept message as filtered, for the transform (null: dropped or gone). */
  messages?: (Record<string, unknown> | null)[];
}

/** One unit of a group commit that failed, with the store's error (see writer-worker.ts). */
export type UnitFailure =
  | { kind: 'job'; id: number; message: string }
  | { kind: 'results'; id: number; message: string }
  | { kind: 'op'; id: number; op: WriteOp['op']; message: string };

/** A request the writer thread's parser refused: ingestion's answer (ingest/prepare-request.ts), carried as it made it, and the start of its body. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
  preview?: string;
  /** Where a body that is not JSON breaks (invalid_json). */
  jsonError?: JsonErrorPlace;
}

export type FromWriter =
  /** The thread has loaded: from now on it handles what it is sent (until then close() may cancel it). */
  | { kind: 'ready' }
  | { kind: 'committed'; results: (CommittedRequest & { jobId: number })[] }
  | ({ kind: 'refused'; jobId: number } & Refusal)
  /** Units of a group commit that were not stored (the rest of the group was). */
  | { kind: 'failed'; failures: UnitFailure[] }
  | { kind: 'results-committed'; ids: number[] }
  | { kind: 'written'; id: number; outcome: WriteOutcome }
  | ({ kind: 'bodies'; id: number } & PreparedBodies)
  | { kind: 'closed' };

