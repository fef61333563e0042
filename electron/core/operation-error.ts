/** A refused operation (replay, deletion, settings), with a stable code and a sentence with the fix. */
export class OperationError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'OperationError';
    this.code = code;
  }
}
