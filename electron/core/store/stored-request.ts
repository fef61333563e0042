// An ingestion request on its way into the store — its messages parsed and validated, ready to insert
// — and what the store answers once it is committed.

/** A message ready to insert; `status` may still become `duplicate` at commit. */
export interface PreparedMessage {
  messageId: string | null;
  type: string | null;
  status: 'accepted' | 'rejected';
  rejectCode: string | null;
  rejectReason: string | null;
  userId: string | null;
  anonymousId: string | null;
  event: string | null;
  timestamp: number | null;
  raw: string;
  /** Why webhook destinations skip this message (its integrations), or null. */
  skipReason: string | null;
  /** Why Segment would refuse it (shared/limits.ts segmentWarning), or null. */
  warning?: string | null;
  /** Its tracking plan violations as JSON (a Violation[]), or null when it conforms or no plan checked it. */
  violations?: string | null;
  /** The plans it breaks, by name (for the tracking plan view's counts). */
  violatedPlans?: string[];
  /** Why a plan blocks it: every delivery is created skipped with this reason. */
  blocked?: string | null;
  /**
   * `Violation Generated` events to store after it (origin `plan`), each delivered to its one
   * destination only — when the message is stored as accepted (not for a duplicate).
   */
  generated?: { destinationId: number; message: PreparedMessage }[];
}

export interface PreparedRequest {
  sourceId: number;
  endpoint: string;
  receivedAt: number;
  sentAt: number | null;
  ip: string | null;
  /** Batch-level fields as JSON, or null when there are none. */
  envelope: string | null;
  /**
   * The envelope of its messages' `generated` events: the Sluices the request came through (`via`),
   * so that what a plan makes of a message is forwarded with the loop chain that message came with
   * (shared/loop-guard.ts); null when it came from a client. Its other batch-level fields are not theirs.
   */
  generatedEnvelope?: string | null;
  messages: PreparedMessage[];
}

/** Why a message was rejected, by its index in the request. */
export interface RejectedEntry {
  index: number;
  code: string;
  message: string;
  messageId?: string;
}

/**
 * One committed request. Only ids and statuses travel back, as typed arrays (cheap to clone):
 * whoever needs more of a message reads it from the store.
 */
export interface CommittedRequest {
  requestId: number;
  sourceId: number;
  receivedAt: number;
  ids: Float64Array;
  /** Index into MESSAGE_STATUSES (shared/messages.ts): 0 accepted, 1 rejected, 2 duplicate. */
  statuses: Uint8Array;
  rejected: RejectedEntry[];
  /** Deliveries created for these messages (pending or skipped), and for the generated ones. */
  deliveries: number;
  /**
   * The pending ones among them, due at `receivedAt`: [delivery id, message id, destination id] triples, in
   * id order. The delivery engine queues them as they are (ReadyQueues.added) instead of reading them back.
   */
  due?: Float64Array;
  /** `Violation Generated` events stored with the request (origin `plan`; plans/violation-event.ts). */
  generatedIds?: number[];
}
