// The operations of Issues (`issues.*` of shared/channels/issues.ts): groups of failed and retrying
// deliveries, and bulk retries of a group or of a filter's messages.
import { OperationError } from '../../operation-error.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

type IssueChannel = 'issues.list' | 'issues.get' | 'issues.retry' | 'issues.cancelRetry' | 'issues.retries';

export function issueOperations(_p: OperationContext): OperationsOf<IssueChannel> {
  return {
    'issues.list': () => ({ issues: [], open: 0 }),
    'issues.get': ({ id }) => {
      throw new OperationError('not_found', `there is no issue ${id}; list them with issues.list`);
    },
    'issues.retry': (request) => {
      if ('issueId' in request) throw new OperationError('not_found', `there is no issue ${request.issueId}; list them with issues.list`);
      return { jobId: 1, issueId: null, done: 0, total: 0, retried: 0, skipped: 0, state: 'finished' };
    },
    'issues.cancelRetry': () => ({ cancelled: false }),
    'issues.retries': () => ({ jobs: [] }),
  };
}
