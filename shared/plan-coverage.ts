/**
 * Coverage of a tracking plan (issue 30): which planned events (and planned types: identify, group,
 * page, screen) were seen, seen with violations, or never seen, and which unplanned track events were
 * seen — what Ampli's `status` fails CI on. Made from counts (PlanEventStat), however they were
 * counted: the store's kept counts (a relay, a data folder) or a file read by `sluice plan coverage`.
 * Pure: the relay's `plans.coverage`, the HTTP API, sluice/testing, sluice/matchers and the CLI share it.
 */
import { UNPLANNED_SHOWN, type PlanEventStat, type PlanStats, type TrackingPlan } from './tracking-plan.ts';

/** Types a plan can describe other than track events, by their schema's key. */
const PLANNED_TYPES = ['identify', 'group', 'page', 'screen'] as const;

/** `seen`: every message conformed; `violated`: seen, and some broke the plan; `missing`: never seen. */
export type CoverageState = 'seen' | 'violated' | 'missing';

export interface CoverageEvent {
  type: string;
  /** The track event's name; null for identify, group, page, screen. */
  event: string | null;
  state: CoverageState;
  /** Messages seen, and how many of them broke the plan. */
  seen: number;
  violated: number;
}

export interface PlanCoverage {
  plan: string;
  /** Each planned event, in the plan's order, then each planned type. */
  events: CoverageEvent[];
  /** Track events seen that the plan does not list, the most seen first: at most UNPLANNED_SHOWN. */
  unplanned: { type: string; event: string | null; seen: number }[];
  totals: {
    planned: number;
    /** Planned events seen at all (with violations or not). */
    seen: number;
    violated: number;
    missing: number;
    /** Unplanned track event names seen, all of them. */
    unplanned: number;
  };
}

export interface CoverageReport {
  plans: PlanCoverage[];
  /** Planned events never seen, over every plan: what `--fail-on-missing` and toCoverPlan() fail on. */
  missing: number;
}

/**
 * Counts per event into what the tracking plan view and coverage read: each planned event (seen or
 * not) and the unplanned track events seen. `counts` holds one entry per type and track event (any order).
 */
export function planStats(plan: TrackingPlan, counts: Iterable<PlanEventStat>): PlanStats {
  const byKey = new Map<string, PlanEventStat>();
  for (const stat of counts) byKey.set(`${stat.type}\u0000${stat.event ?? ''}`, stat);
  const stat = (type: string, event: string | null): PlanEventStat =>
    byKey.get(`${type}\u0000${event ?? ''}`) ?? { type, event, seen: 0, violated: 0, lastSeenAt: null };
  const planned: PlanEventStat[] = [
    ...Object.keys(plan.events).map((event) => stat('track', event)),
    ...PLANNED_TYPES.filter((type) => plan[type] !== undefined).map((type) => stat(type, null)),
  ];
  const unplanned = [...byKey.values()]
    .filter((s) => s.type === 'track' && s.event !== null && s.seen > 0 && !Object.hasOwn(plan.events, s.event))
    .sort((a, b) => b.seen - a.seen || (b.lastSeenAt ?? 0) - (a.lastSeenAt ?? 0) || (a.event! < b.event! ? -1 : 1));
  return { planned, unplanned: unplanned.slice(0, UNPLANNED_SHOWN), unplannedTotal: unplanned.length };
}

export function planCoverage(plan: string, stats: PlanStats): PlanCoverage {
  const events = stats.planned.map(({ type, event, seen, violated }): CoverageEvent => ({
    type,
    event,
    state: seen === 0 ? 'missing' : violated > 0 ? 'violated' : 'seen',
    seen,
    violated,
  }));
  const count = (state: CoverageState) => events.filter((e) => e.state === state).length;
  return {
    plan,
    events,
    unplanned: stats.unplanned.map(({ type, event, seen }) => ({ type, event, seen })),
    totals: { planned: events.length, seen: events.length - count('missing'), violated: count('violated'), missing: count('missing'), unplanned: stats.unplannedTotal },
  };
}

export function coverageReport(plans: PlanCoverage[]): CoverageReport {
  return { plans, missing: plans.reduce((sum, p) => sum + p.totals.missing, 0) };
}

/** `track "Order Completed"`, `identify`. */
export function coverageName(e: { type: string; event: string | null }): string {
  return e.event !== null ? `${e.type} ${JSON.stringify(e.event)}` : e.type;
}

/**
 * The report for a person, one block per plan:
 *   plan "web": 2 of 4 planned events seen (1 with violations), 2 never seen; 1 unplanned event seen
 *     seen        track "Order Completed"  12
 *     violations  track "Product Viewed"   5, 2 with violations
 *     never seen  identify
 *     unplanned   track "Debug Ping"       3
 */
export function coverageText(report: CoverageReport): string {
  const n = (count: number) => count.toLocaleString('en-US');
  const blocks = report.plans.map((p) => {
    const t = p.totals;
    const head = `plan ${JSON.stringify(p.plan)}: ${n(t.seen)} of ${n(t.planned)} planned event${t.planned === 1 ? '' : 's'} seen${t.violated > 0 ? ` (${n(t.violated)} with violations)` : ''}, ${n(t.missing)} never seen; ${n(t.unplanned)} unplanned event${t.unplanned === 1 ? '' : 's'} seen`;
    const rows: [string, string, string][] = [
      ...p.events.map((e): [string, string, string] => [
        e.state === 'missing' ? 'never seen' : e.state === 'violated' ? 'violations' : 'seen',
        coverageName(e),
        e.state === 'missing' ? '' : e.state === 'violated' ? `${n(e.seen)}, ${n(e.violated)} with violations` : n(e.seen),
      ]),
      ...p.unplanned.map((e): [string, string, string] => ['unplanned', coverageName(e), n(e.seen)]),
    ];
    const widths = [0, 1].map((i) => Math.max(0, ...rows.map((r) => r[i]!.length)));
    const lines = rows.map((r) => `  ${r[0].padEnd(widths[0]!)}  ${r[2] === '' ? r[1] : `${r[1].padEnd(widths[1]!)}  ${r[2]}`}`);
    if (t.unplanned > p.unplanned.length) lines.push(`  … and ${n(t.unplanned - p.unplanned.length)} more unplanned events`);
    return [head, ...lines].join('\n');
  });
  return `${blocks.length > 0 ? blocks.join('\n\n') : 'no tracking plan'}\n`;
}
