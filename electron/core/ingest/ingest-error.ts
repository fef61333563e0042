import type { JsonErrorPlace } from '../../../shared/json-error-place.ts';
import { StoreFailure } from '../store/store-failure.ts';
import { JobRefused, WriterUnavailable } from '../writer/store-writer.ts';

/** An ingestion failure answered as `{"success":false,"error":{"code","message"}}`. */
export class IngestError extends Error {
  readonly status: number;
  readonly code: string;
  /** The source the refused request named, when it named one (its stored entry's: ingest/refused-requests.ts). */
  sourceId?: number;
  /** The start of the refused request's body, when it was read. */
  preview?: string;
  /** Where a body that is not JSON breaks (invalid_json), found on the whole body. */
  jsonError?: JsonErrorPlace;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'IngestError';
    this.status = status;
    this.code = code;
  }
}

/** A write key no source has: 401, as Segment answers. */
export function unknownWriteKey(): IngestError {
  return new IngestError(401, 'invalid_write_key', "unknown write key; copy it from Sluice's Sources view");
}

/** What ingestion answers a store failure with: a damaged store 503, a full disk 507, each with its sentence. */
const STORE_FAILURE_STATUS: Record<StoreFailure['kind'], number> = { damaged: 503, full: 507 };

/**
 * Ingestion's answer to what the writer failed a request with (StoreWriter.submit): a store failure
 * (503 store_damaged, 507 disk_full, saying what to do), the writer thread's refusal of the request
 * as its parser made it (prepare-request.ts), the writer closing (503 shutting_down) or restarting
 * (503 store_unavailable). Anything else stays as it is: answered 500 "Sluice could not store the
 * request: …" (ingest-server.ts).
 */
export function ingestErrorOf(error: unknown): unknown {
  if (error instanceof StoreFailure) return new IngestError(STORE_FAILURE_STATUS[error.kind], error.code, error.message);
  if (error instanceof JobRefused) {
    const { status, code, message, preview, jsonError } = error.refusal;
    return Object.assign(new IngestError(status, code, message), preview !== undefined ? { preview } : {}, jsonError ? { jsonError } : {});
  }
  if (error instanceof WriterUnavailable) {
    return error.reason === 'closing'
      ? new IngestError(503, 'shutting_down', error.message)
      : new IngestError(503, 'store_unavailable', error.message);
  }
  return error;
}
