// The client library's state and results as its users and the inspector see them: what
// `client.state` and `onSuccess` give, and the codes of its errors. Plain types in shared/, because
// the inspector's contract carries the composer's client state (shared/contract.ts).
import type { RejectCode } from './message-rules.ts';

/**
 * Why a message was not queued or not delivered.
 *
 * Thrown synchronously by the message calls (the message is not queued):
 * - the validation codes of the ingestion API (`missing_user`, `missing_event`, `missing_group_id`,
 *   `missing_previous_id`, `invalid_field`, `invalid_timestamp`, `invalid_type`, `invalid_message`);
 * - `message_too_large`: the message is over 32 KB once serialized;
 * - `client_closed`: `close()` was called.
 *
 * Reported through `onError` (never thrown, never a rejected promise):
 * - `queue_full`: the queue was at its limit, so the message was dropped;
 * - `http_error`: the endpoint answered a status that is not retried (e.g. 400, 401), or kept
 *   answering a retryable one (5xx, 408, 429) until the retries ran out;
 * - `timeout`: no complete answer within `timeoutMs`, on the last attempt;
 * - `network_error`: connection refused, reset, DNS failure... on the last attempt;
 * - `rejected`: the endpoint accepted the batch but refused some of its messages (listed by id);
 * - `aborted`: `close({ timeoutMs })` gave up on messages that were still queued or being sent.
 *
 * Thrown by the constructor: `invalid_option`.
 */
export type ClientErrorCode =
  | RejectCode
  | 'client_closed'
  | 'queue_full'
  | 'http_error'
  | 'timeout'
  | 'network_error'
  | 'rejected'
  | 'aborted'
  | 'invalid_option';

/** A message of the batch the endpoint refused (Sluice's `rejected` list); `index` is its place in the batch. */
export interface RejectedMessage {
  index: number;
  code: string;
  message: string;
}

/** A batch the endpoint accepted (given to `onSuccess`). */
export interface BatchResult {
  /** Messages in the batch. */
  count: number;
  /** Ids of the batch's messages, in order. */
  messageIds: readonly string[];
  /** The endpoint's status (2xx). */
  status: number;
  /** Requests made: 1 unless retried. */
  attempts: number;
  /** From the first attempt to the answer, in ms (retry delays included). */
  durationMs: number;
  /** Size of the request body, in bytes. */
  bytes: number;
  /** Messages the endpoint refused within the batch (also reported to `onError` as `rejected`). */
  rejected: readonly (RejectedMessage & { messageId: string })[];
}

/** How the most recent batch ended. */
export interface LastResult {
  ok: boolean;
  /** When it ended (clock time, ms since the epoch). */
  at: number;
  messages: number;
  status: number | null;
  attempts: number;
  durationMs: number;
  error: { code: ClientErrorCode; message: string } | null;
}

/** A snapshot of the client's queue, for display (see `Client.subscribe`). */
export interface ClientState {
  /** Messages waiting to be sent. */
  queued: number;
  /** Their size, serialized, in bytes. */
  queuedBytes: number;
  /** When the timed flush (`flushAfter`) fires (clock time), or null when no timer is running. */
  nextFlushAt: number | null;
  /** Milliseconds until then, or null. */
  nextFlushInMs: number | null;
  /** Batch requests in progress, including those waiting to retry. */
  inFlightBatches: number;
  /** Messages in those batches. */
  inFlightMessages: number;
  /** Messages the endpoint accepted, since the client was created. */
  sent: number;
  /** Messages that finally failed or were rejected. */
  failed: number;
  /** Messages dropped because the queue was full. */
  dropped: number;
  lastResult: LastResult | null;
  /** True once `close()` was called. */
  closed: boolean;
}

export type StateListener = (state: ClientState) => void;
