import type { ClientErrorCode } from '../../shared/client-state.ts';

export type { ClientErrorCode };

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
