/** An ingestion failure answered as `{"success":false,"error":{"code","message"}}`. */
export class IngestError extends Error {
  readonly status: number;
  readonly code: string;

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
