// The stream's facets and timeline (`messages.facets`, `messages.timeline` of shared/channels/facets.ts),
// counted in the core's counting thread (store/message-counter.ts, store/message-facets.ts).
import type { OperationContext, OperationsOf } from './parts.ts';

export function facetOperations(p: OperationContext): OperationsOf<'messages.facets' | 'messages.timeline'> {
  return {
    'messages.facets': (request) => p.counter.facets(request),
    'messages.timeline': (request) => p.counter.timeline(request),
  };
}
