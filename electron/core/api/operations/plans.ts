// The tracking plans' operations (`plans.*` of shared/channels/plans.ts) over the plans at work and
// their re-checks (plans/).
import type { OperationContext, OperationsOf } from './parts.ts';

export function planOperations(p: OperationContext): OperationsOf<'plans.list' | 'plans.stats' | 'plans.addEvent' | 'plans.recheck'> {
  return {
    'plans.list': () => ({ plans: p.plans.views(), recheck: p.rechecks.running }),
    'plans.stats': ({ name }) => p.plans.stats(name),
    'plans.addEvent': ({ name, type, event, dryRun, schema }) => p.plans.addEvent(name, type, event, { dryRun, schema }),
    'plans.recheck': () => p.rechecks.start(),
  };
}
