import path from 'node:path';
import { markDamaged } from './store/damage-marker.ts';
import { damagedSentence, diskFullSentence, storeFailureKind } from './store/integrity.ts';

/** An ingestion failure answered as `{"success":false,"error":{"code","message"}}`. */
export class IngestError extends Error {
  readonly status: number;
  readonly code: string;
  /** The source the refused request named, when it named one (its stored entry's: ingest/refused-requests.ts). */
  sourceId?: number;
  /** The start of the refused request's body, when it was read. */
  preview?: string;

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

/**
 * What to answer when the store could not take a request (the writer's SQLite message): a damaged
 * store is 503 store_damaged and a full disk 507 disk_full, each saying what to do; anything else is
 * a plain Error, answered 500 internal_error. `file` is the store's database file. Damage is noted
 * beside the store (store/damage-marker.ts), for the next start to check the whole file.
 */
export function storeFailure(message: string, file: string): Error {
  switch (storeFailureKind(message)) {
    case 'damaged': {
      const sentence = damagedSentence(file, message);
      markDamaged(file, sentence);
      return new IngestError(503, 'store_damaged', sentence);
    }
    case 'full':
      return new IngestError(507, 'disk_full', diskFullSentence(path.dirname(file)));
    default:
      return new Error(message);
  }
}

/**
 * The answer for a failure a store read or write ended in, when it is a damaged store or a full disk
 * (as storeFailure says); null for anything else. An IngestError the writer made already is that
 * answer: its sentence is not wrapped again.
 */
export function storeFailureOf(error: unknown, file: string): IngestError | null {
  if (error instanceof IngestError) return error.code === 'store_damaged' || error.code === 'disk_full' ? error : null;
  if (!(error instanceof Error)) return null;
  const failure = storeFailure(error.message, file);
  return failure instanceof IngestError ? failure : null;
}

