import type { ZodError } from 'zod';
import type { ContractIssue } from '../../shared/contract.ts';

/**
 * A refused operation (replay, deletion, settings), with a stable code and a sentence with the fix.
 * `issues` place the problems on the request's fields (a form shows each next to its input); the
 * message says the same in one string for views that show only that.
 */
export class OperationError extends Error {
  readonly code: string;
  readonly issues: ContractIssue[] | undefined;

  constructor(code: string, message: string, issues?: ContractIssue[]) {
    super(message);
    this.name = 'OperationError';
    this.code = code;
    this.issues = issues;
  }
}

/** A schema's problems as contract issues (paths as arrays: a header name may contain dots). */
export function issuesOf(error: ZodError): ContractIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
    message: issue.message,
  }));
}
