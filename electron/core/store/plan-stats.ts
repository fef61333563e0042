import type { DatabaseSync } from 'node:sqlite';
import type { PlanEventStat, PlanStats, TrackingPlan } from '../../../shared/tracking-plan.ts';

/** Types a plan can describe other than track events (shared/tracking-plan.ts), by their schema's key. */
const PLANNED_TYPES = ['identify', 'group', 'page', 'screen'] as const;

/**
 * What the tracking plan view and `plans.addEvent` read from the stored messages: how often each event
 * was seen and broke a plan, and recent examples to infer a schema from. Accepted messages only (a
 * duplicate is a copy; a rejected one never reached the plan); never the `Violation Generated` events.
 */
export class PlanStatsRepo {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /**
   * Counts per track event name and per other type, among the sources' messages (null: all). A
   * message counts as violated for this plan when one of its violations names the plan.
   */
  stats(planName: string, plan: TrackingPlan, sourceIds: number[] | null): PlanStats {
    const [sourceClause, sourceParams] = sources(sourceIds);
    // The plan's name as it appears inside the stored JSON array, LIKE's wildcards escaped.
    const named = `%"plan":${JSON.stringify(planName).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = this.#db
      .prepare(
        `SELECT type, CASE WHEN type = 'track' THEN event END AS event, count(*) AS seen,
           sum(violations IS NOT NULL AND violations LIKE ? ESCAPE '\\') AS violated, max(received_at) AS last
         FROM messages WHERE status = 'accepted' AND origin != 'plan' ${sourceClause}
         GROUP BY 1, 2`,
      )
      .all(named, ...sourceParams) as { type: string; event: string | null; seen: number; violated: number; last: number }[];
    const seen = new Map(rows.map((row) => [`${row.type}\u0000${row.event ?? ''}`, row]));
    const stat = (type: string, event: string | null): PlanEventStat => {
      const row = seen.get(`${type}\u0000${event ?? ''}`);
      return { type, event, seen: row?.seen ?? 0, violated: row?.violated ?? 0, lastSeenAt: row?.last ?? null };
    };
    const planned: PlanEventStat[] = [
      ...Object.keys(plan.events).map((event) => stat('track', event)),
      ...PLANNED_TYPES.filter((type) => plan[type] !== undefined).map((type) => stat(type, null)),
    ];
    const unplanned = rows
      .filter((row) => row.type === 'track' && row.event !== null && !Object.hasOwn(plan.events, row.event))
      .sort((a, b) => b.seen - a.seen)
      .map((row) => stat('track', row.event));
    return { planned, unplanned };
  }

  /** The newest `limit` accepted messages of this type (and track event) from the sources: their `properties` or `traits`. */
  examples(type: string, event: string | null, sourceIds: number[] | null, limit = 200): unknown[] {
    const [sourceClause, sourceParams] = sources(sourceIds);
    const rows = this.#db
      .prepare(
        `SELECT raw FROM messages WHERE status = 'accepted' AND origin != 'plan' AND type = ? ${event !== null ? 'AND event = ?' : ''} ${sourceClause}
         ORDER BY id DESC LIMIT ?`,
      )
      .all(type, ...(event !== null ? [event] : []), ...sourceParams, limit) as { raw: string }[];
    const field = type === 'identify' || type === 'group' ? 'traits' : 'properties';
    return rows.map((row) => (JSON.parse(row.raw) as Record<string, unknown>)[field] ?? {});
  }

  /** Messages a re-check reads (plans/recheck-writes.ts): not rejected, not generated. */
  checkable(): number {
    return (this.#db.prepare("SELECT count(*) AS n FROM messages WHERE status != 'rejected' AND origin != 'plan'").get() as { n: number }).n;
  }
}

function sources(sourceIds: number[] | null): [string, number[]] {
  if (sourceIds === null) return ['', []];
  if (sourceIds.length === 0) return ['AND 0', []];
  return [`AND source_id IN (${sourceIds.map(() => '?').join(', ')})`, sourceIds];
}
