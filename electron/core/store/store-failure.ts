/**
 * A store read or write that failed because of the store itself: a damaged store, or a full disk. It
 * carries what it is (`kind`, and the `code` every host names it by) and the sentence that says what
 * to do, and no answer: each host answers it its own way, in one place — ingestion 503/507 as JSON
 * (ingest/ingest-error.ts), the HTTP API likewise, the contract's handlers as a refused call, the
 * commands as a sentence on stderr.
 */
import path from 'node:path';
import { markDamaged } from './damage-marker.ts';
import { damagedSentence, diskFullSentence, storeFailureKind } from './integrity.ts';

const CODES = { damaged: 'store_damaged', full: 'disk_full' } as const;

export type StoreFailureKind = keyof typeof CODES;

export class StoreFailure extends Error {
  readonly kind: StoreFailureKind;
  readonly code: (typeof CODES)[StoreFailureKind];

  constructor(kind: StoreFailureKind, sentence: string) {
    super(sentence);
    this.name = 'StoreFailure';
    this.kind = kind;
    this.code = CODES[kind];
  }
}

/**
 * What the store's SQLite message `message` means: a damaged store or a full disk, each with the
 * sentence saying what to do; anything else a plain Error with that message. `file` is the store's
 * database file. Damage is noted beside the store (damage-marker.ts), for the next start to check the
 * whole file.
 */
export function storeFailure(message: string, file: string): Error {
  switch (storeFailureKind(message)) {
    case 'damaged': {
      const sentence = damagedSentence(file, message);
      markDamaged(file, sentence);
      return new StoreFailure('damaged', sentence);
    }
    case 'full':
      return new StoreFailure('full', diskFullSentence(path.dirname(file)));
    default:
      return new Error(message);
  }
}

/**
 * The store failure a read or write ended in, when it is a damaged store or a full disk (as
 * storeFailure says); null for anything else. One the writer made already is that failure: its
 * sentence is not wrapped again.
 */
export function storeFailureOf(error: unknown, file: string): StoreFailure | null {
  if (error instanceof StoreFailure) return error;
  if (!(error instanceof Error)) return null;
  const failure = storeFailure(error.message, file);
  return failure instanceof StoreFailure ? failure : null;
}
