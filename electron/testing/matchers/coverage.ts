/**
 * `toCoverPlan()` of sluice/matchers (issue 30): every event a tracking plan lists was seen during the
 * run — what Ampli's `status` checks in CI, asserted at the end of a suite:
 *
 *   afterAll(async () => { await expect(sluice).toCoverPlan(); });
 *
 * It reads the relay's coverage (`plans.coverage`: the counts the store keeps, never every message) of
 * the plans in use, or of the one named; `{ violations: false }` also fails when a planned event was
 * seen breaking its plan. No wait: coverage is of what was stored when it is asked.
 */
import { checkOptions } from '../../core/queries/filters.ts';
import { coverageName, type CoverageEvent, type CoverageReport } from '../../../shared/plan-coverage.ts';
import { relayOf } from './relay.ts';
import { atTestLine, testSite } from './test-line.ts';

export interface CoverPlanOptions {
  /** Only this plan (the config's trackingPlans[].name); default: every plan in use. */
  plan?: string;
  /** false: a planned event seen breaking its plan fails too (default true: only never-seen events fail). */
  violations?: boolean;
}

/** Events listed in a failure, at most; the rest are counted. */
const LISTED = 20;

export async function toCoverPlan(this: { isNot?: boolean }, received: unknown, options: CoverPlanOptions = {}): Promise<{ pass: boolean; message: () => string }> {
  const site = testSite(toCoverPlan);
  return atTestLine(site, async () => {
    const relay = relayOf(received, 'toCoverPlan');
    if (typeof options !== 'object' || options === null) throw new TypeError('toCoverPlan(): options are an object, e.g. { plan: "web" } or { violations: false }');
    checkOptions(options, ['plan', 'violations'], 'toCoverPlan()');
    if (options.violations !== undefined && typeof options.violations !== 'boolean') throw new TypeError('toCoverPlan(): violations is true or false');
    if (options.plan !== undefined && (typeof options.plan !== 'string' || options.plan === '')) throw new TypeError('toCoverPlan(): plan is the name of a tracking plan in use (the config\'s trackingPlans[].name)');
    const report: CoverageReport = await relay.coverage(options.plan);
    if (report.plans.length === 0) {
      return { pass: false, message: () => 'toCoverPlan(): the relay has no tracking plan: give its config one (trackingPlans: [{ "name": "web", "file": "plan.json" }]), see docs/tracking-plans.md' };
    }
    const rows = report.plans.flatMap((p) => p.events.map((e) => ({ plan: p.plan, e })));
    const missing = rows.filter(({ e }) => e.state === 'missing');
    const violated = options.violations === false ? rows.filter(({ e }) => e.state === 'violated') : [];
    const planned = rows.length;
    const which = report.plans.length === 1 ? `the plan ${JSON.stringify(report.plans[0]!.plan)}` : `the ${report.plans.length} plans`;
    const line = ({ plan, e }: { plan: string; e: CoverageEvent }) =>
      `  - ${report.plans.length > 1 ? `${JSON.stringify(plan)}: ` : ''}${coverageName(e)}${e.state === 'violated' ? `: ${e.violated} of ${e.seen} broke the plan` : ''}`;
    const list = (items: typeof rows) => [...items.slice(0, LISTED).map(line), ...(items.length > LISTED ? [`  …and ${items.length - LISTED} more`] : [])].join('\n');
    if (missing.length === 0 && violated.length === 0) {
      return { pass: true, message: () => `expected some event of ${which} never to be seen; all ${planned} planned events were${options.violations === false ? ', none breaking it' : ''}` };
    }
    const parts: string[] = [];
    if (missing.length > 0) parts.push(`${missing.length} of ${planned} planned events never seen:\n${list(missing)}`);
    if (violated.length > 0) parts.push(`${violated.length} seen breaking it:\n${list(violated)}`);
    return { pass: false, message: () => `expected every event of ${which} to be seen${options.violations === false ? ' without violations' : ''}; ${parts.join('\n')}` };
  });
}
