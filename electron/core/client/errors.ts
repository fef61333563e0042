import type { RejectCode } from '../../../shared/message-rules.ts';

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

export interface ClientErrorDetails {
  /** The messages this error is about; empty for errors thrown before a message existed. */
  messageIds?: readonly string[];
  /** The endpoint's HTTP status, when it answered. */
  status?: number;
  /** Requests made for the batch, when the error is about a batch. */
  attempts?: number;
  cause?: unknown;
}

/** The one error type of the client library; `code` says what happened (see {@link ClientErrorCode}). */
export class ClientError extends Error {
  override readonly name = 'ClientError';
  readonly code: ClientErrorCode;
  readonly messageIds: readonly string[];
  readonly status: number | undefined;
  readonly attempts: number | undefined;

  constructor(code: ClientErrorCode, message: string, details: ClientErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.messageIds = details.messageIds ?? [];
    this.status = details.status;
    this.attempts = details.attempts;
  }
}
