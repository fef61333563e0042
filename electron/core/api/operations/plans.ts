// The tracking plans' operations (`plans.*` of shared/channels/plans.ts) over the plans at work and
// their re-checks (plans/).
import { coverageReport, planCoverage } from '../../../../shared/plan-coverage.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

export function planOperations(p: OperationContext): OperationsOf<'plans.list' | 'plans.stats' | 'plans.coverage' | 'plans.addEvent' | 'plans.recheck' | 'plans.check'> {
  return {
    'plans.list': () => ({ plans: p.plans.views(), recheck: p.rechecks.running }),
    'plans.stats': ({ name }) => p.plans.stats(name),
    // Kept counts only (event_counts): as quick at a million stored messages as at ten.
    'plans.coverage': ({ name }) => {
      const names = name !== undefined ? [p.plans.view(name).name] : p.plans.views().map((v) => v.name);
      return coverageReport(names.map((plan) => planCoverage(plan, p.plans.stats(plan))));
    },
    'plans.addEvent': ({ name, type, event, dryRun, schema }) => p.plans.addEvent(name, type, event, { dryRun, schema }),
    'plans.recheck': () => p.rechecks.start(),
    'plans.check': ({ message, source }) => p.plans.check(message, source),
  };
}
