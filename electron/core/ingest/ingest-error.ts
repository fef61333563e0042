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
