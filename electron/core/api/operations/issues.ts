// The operations of Issues (`issues.*` of shared/channels/issues.ts): groups of failed and retrying
// deliveries as the store keeps them (store/issues-repo.ts: their kept counts, a few hundred rows), and
// bulk retries of a group or of a filter's messages (delivery/bulk-retry.ts).
import { OperationError } from '../../operation-error.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

type IssueChannel = 'issues.list' | 'issues.get' | 'issues.retry' | 'issues.retryCancel' | 'issues.retries';

export function issueOperations(p: OperationContext): OperationsOf<IssueChannel> {
  const issue = (id: number) => {
    const found = p.issues.get(id);
    if (!found) throw new OperationError('not_found', `there is no issue ${id}; list them with issues.list (GET /api/v1/issues)`);
    return found;
  };
  return {
    'issues.list': ({ state, destinationId }) => p.issues.list(state, destinationId),
    'issues.get': ({ id }) => issue(id),
    'issues.retry': (request) => {
      if ('issueId' in request) return p.bulkRetries.start({ issueId: request.issueId, total: issue(request.issueId).open });
      if (request.destinationId !== undefined && !p.destinations.byId(request.destinationId)) {
        throw new OperationError('not_found', `there is no destination ${request.destinationId}; leave destinationId out to retry every destination's deliveries`);
      }
      return p.bulkRetries.start({ filter: request.filter, destinationId: request.destinationId });
    },
    'issues.retryCancel': ({ jobId }) => {
      const stop = p.bulkRetries.cancel(jobId);
      if (stop.running) return stop.ended;
      if (stop.ended) {
        const { state, done, total } = stop.ended;
        throw new OperationError('not_running', `retry job ${jobId} is not running: it already ended (${state}, ${done} of ${total} looked at), so there is nothing to stop`);
      }
      throw new OperationError('not_found', `there is no retry job ${jobId} under way; list the jobs with issues.retries (GET /api/v1/issues/retries)`);
    },
    'issues.retries': () => ({ jobs: p.bulkRetries.list() }),
  };
}
