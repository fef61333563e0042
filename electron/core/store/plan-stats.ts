import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { planStats } from '../../../shared/plan-coverage.ts';
import type { PlanEventStat, PlanStats, TrackingPlan } from '../../../shared/tracking-plan.ts';

/**
 * Messages a plan checks, and so the ones counted, re-checked and used as examples: what ingestion
 * accepted — not a duplicate (a copy), not a rejected one, not what Sluice generated itself (an
 * audience's identifies, a plan's Violation Generated events).
 */
export const CHECKED_MESSAGES = "status = 'accepted' AND origin = 'ingest'";

/** Examples are looked for among this many newest messages at most: a rare event does not make the core scan a store of millions. */
export const EXAMPLES_WINDOW = 500_000;

/**
 * The newest `limit` examples of a type (and track event) among the sources' checked messages: their
 * `properties` (track, page, screen) or `traits` (identify, group). Shared by the inspector's *Add to
 * plan* and `sluice plan infer`; works on any connection (a read-only one too).
 */
export function newestExamples(db: DatabaseSync, type: string, event: string | null, sourceIds: number[] | null, limit = 200): { value: unknown; messageId: string | null }[] {
  const [sourceClause, sourceParams] = sources(sourceIds);
  const rows = db
    .prepare(
      `SELECT raw, message_id FROM messages WHERE ${CHECKED_MESSAGES} AND type = ? ${event !== null ? 'AND event = ?' : ''} ${sourceClause}
         AND id > (SELECT coalesce(max(id), 0) FROM messages) - ?
       ORDER BY id DESC LIMIT ?`,
    )
    .all(type, ...(event !== null ? [event] : []), ...sourceParams, EXAMPLES_WINDOW, limit) as { raw: string; message_id: string | null }[];
  const field = type === 'identify' || type === 'group' ? 'traits' : 'properties';
  return rows.flatMap((row) => {
    try {
      return [{ value: (JSON.parse(row.raw) as Record<string, unknown>)[field] ?? {}, messageId: row.message_id }];
    } catch {
      return []; // a stored text that does not parse is no example
    }
  });
}

/**
 * What the tracking plan view reads: how often each event was seen and broke a plan, from the counts
 * kept as messages come and go (migration 10's event_counts; a read never scans the messages).
 */
export class PlanStatsRepo {
  readonly #db: DatabaseSync;
  #all: StatementSync | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Counts per track event name and per other type, among the sources' checked messages (null: all sources). */
  stats(planName: string, plan: TrackingPlan, sourceIds: number[] | null): PlanStats {
    this.#all ??= this.#db.prepare("SELECT source_id, type, event, plan, n, last_at FROM event_counts WHERE plan = '' OR plan = ?");
    const wanted = sourceIds && new Set(sourceIds);
    const byKey = new Map<string, PlanEventStat>();
    for (const row of this.#all.all(planName) as { source_id: number; type: string; event: string; plan: string; n: number; last_at: number }[]) {
      if (wanted && !wanted.has(row.source_id)) continue;
      const event = row.type === 'track' ? row.event : null;
      const key = `${row.type}\u0000${event ?? ''}`;
      let stat = byKey.get(key);
      if (!stat) byKey.set(key, (stat = { type: row.type, event, seen: 0, violated: 0, lastSeenAt: null }));
      if (row.plan === '') {
        stat.seen += row.n;
        stat.lastSeenAt = Math.max(stat.lastSeenAt ?? 0, row.last_at);
      } else {
        stat.violated += row.n;
      }
    }
    return planStats(plan, byKey.values());
  }

  /** The plans the store holds violations of (event_counts' names; a plan no message broke is not among them). */
  recordedPlans(): string[] {
    return (this.#db.prepare("SELECT DISTINCT plan FROM event_counts WHERE plan <> '' ORDER BY plan").all() as { plan: string }[]).map((r) => r.plan);
  }

  examples(type: string, event: string | null, sourceIds: number[] | null, limit = 200): { value: unknown; messageId: string | null }[] {
    return newestExamples(this.#db, type, event, sourceIds, limit);
  }

  /** The id range a re-check goes through: every message stored up to now (plans/recheck.ts). */
  idRange(): { min: number; max: number } {
    const row = this.#db.prepare('SELECT coalesce(min(id), 0) AS min, coalesce(max(id), 0) AS max FROM messages').get() as { min: number; max: number };
    return row;
  }
}

function sources(sourceIds: number[] | null): [string, number[]] {
  if (sourceIds === null) return ['', []];
  if (sourceIds.length === 0) return ['AND 0', []];
  return [`AND source_id IN (${sourceIds.map(() => '?').join(', ')})`, sourceIds];
}
