// What a run left in a store, for `sluice summary` (a CI job's summary), in a few bounded reads: the
// counts of store-stats.ts, the track events by name and the plans' violations by event from the kept
// counts (event_counts: one row per source, type, event and plan), the newest messages that broke a
// plan (the partial index messages_violations, newest first), and the newest deliveries that failed
// (deliveries_failed) or are being retried (per destination, a bounded walk of its open deliveries).
// No read goes through every message: each is an index walk that stops at its limit, or a kept count.
import type { DatabaseSync } from 'node:sqlite';
import type { Violation } from '../../../shared/tracking-plan.ts';
import { readSnapshot } from './connection.ts';
import { storeStats, type StoreStats } from './store-stats.ts';

/** Rows a table of the summary lists at most (the rest are counted). */
export const SUMMARY_ROWS_MAX = 100;
/** Open deliveries of one destination looked through for retrying ones, newest due first. */
const OPEN_LOOKED_AT = 1000;

export interface SummaryCount {
  /** The plan broken (violations only). */
  plan?: string;
  type: string;
  /** The track event's name; null for other types. */
  event: string | null;
  messages: number;
}

export interface SummaryViolation {
  messageId: string | null;
  source: string;
  type: string | null;
  event: string | null;
  receivedAt: number;
  violations: Violation[];
}

export interface SummaryDelivery {
  destination: string;
  status: 'failed' | 'retrying';
  messageId: string | null;
  type: string | null;
  event: string | null;
  attempts: number;
  lastError: string | null;
  updatedAt: number;
}

/** A list cut at the summary's limit, with how many rows there were in all. */
export interface Listed<T> {
  rows: T[];
  total: number;
}

export interface RunSummary {
  stats: StoreStats;
  /** Accepted track events of clients by name, most received first. */
  events: Listed<SummaryCount>;
  /** Messages that broke each plan, by plan, type and event, most first. */
  violationsByEvent: Listed<SummaryCount>;
  /** The newest messages that broke a plan; total: every message that did. */
  violations: Listed<SummaryViolation>;
  /** The newest failed deliveries, then the newest retrying ones; total: both, from the stats. */
  deliveries: Listed<SummaryDelivery>;
}

type Row = Record<string, unknown>;

export function runSummary(db: DatabaseSync, limit: number): RunSummary {
  if (!Number.isInteger(limit) || limit < 1 || limit > SUMMARY_ROWS_MAX) throw new RangeError(`limit must be 1 to ${SUMMARY_ROWS_MAX}`);
  const all = (sql: string, ...params: (string | number)[]) => db.prepare(sql).all(...params) as Row[];
  return readSnapshot(db, () => {
    const stats = storeStats(db);
    const counts = (where: string, byPlan: boolean): Listed<SummaryCount> => {
      const groups = `${byPlan ? 'plan, ' : ''}type, event`;
      const rows = all(`SELECT ${groups}, sum(n) AS n FROM event_counts WHERE ${where} GROUP BY ${groups} HAVING sum(n) > 0 ORDER BY n DESC, ${groups} LIMIT ?`, limit);
      const total = (all(`SELECT count(*) AS n FROM (SELECT 1 FROM event_counts WHERE ${where} GROUP BY ${groups} HAVING sum(n) > 0)`)[0]!.n as number);
      return {
        rows: rows.map((r) => ({ ...(byPlan ? { plan: r.plan as string } : {}), type: r.type as string, event: r.type === 'track' ? (r.event as string) : null, messages: r.n as number })),
        total,
      };
    };

    const violating = all(`SELECT m.message_id AS messageId, s.name AS source, m.type, m.event, m.received_at AS receivedAt, m.violations
      FROM messages m INDEXED BY messages_violations JOIN sources s ON s.id = m.source_id
      WHERE m.violations IS NOT NULL ORDER BY m.id DESC LIMIT ?`, limit);
    const violatingTotal = all('SELECT count(*) AS n FROM messages INDEXED BY messages_violations WHERE violations IS NOT NULL')[0]!.n as number;

    const deliveryColumns = `d.id, dest.name AS destination, d.status, m.message_id AS messageId, m.type, m.event,
      d.attempt_count AS attempts, d.last_error AS lastError, d.updated_at AS updatedAt`;
    const failed = all(`SELECT ${deliveryColumns} FROM deliveries d INDEXED BY deliveries_failed
      JOIN destinations dest ON dest.id = d.destination_id LEFT JOIN messages m ON m.id = d.message_id
      WHERE d.status = 'failed' ORDER BY d.id DESC LIMIT ?`, limit);
    const retrying: Row[] = [];
    if (failed.length < limit) {
      for (const { id } of all('SELECT id FROM destinations ORDER BY id')) {
        retrying.push(
          ...all(`SELECT ${deliveryColumns} FROM (SELECT id FROM deliveries INDEXED BY deliveries_destination_due
              WHERE destination_id = ? AND status IN ('pending', 'retrying') ORDER BY next_attempt_at DESC LIMIT ${OPEN_LOOKED_AT}) open
            JOIN deliveries d ON d.id = open.id JOIN destinations dest ON dest.id = d.destination_id LEFT JOIN messages m ON m.id = d.message_id
            WHERE d.status = 'retrying' ORDER BY d.id DESC LIMIT ?`, id as number, limit),
        );
      }
      retrying.sort((a, b) => (b.id as number) - (a.id as number));
    }
    const deliveries = [...failed, ...retrying].slice(0, limit).map(({ id: _id, ...d }) => d as unknown as SummaryDelivery);

    return {
      stats,
      events: counts("plan = '' AND type = 'track'", false),
      violationsByEvent: counts("plan <> ''", true),
      violations: {
        rows: violating.map(({ violations, ...m }) => ({ ...(m as unknown as Omit<SummaryViolation, 'violations'>), violations: parseViolations(violations) })),
        total: violatingTotal,
      },
      deliveries: { rows: deliveries, total: (stats.deliveries.failed ?? 0) + (stats.deliveries.retrying ?? 0) },
    };
  });
}

function parseViolations(text: unknown): Violation[] {
  try {
    const parsed = JSON.parse(String(text)) as unknown;
    return Array.isArray(parsed) ? (parsed as Violation[]) : [];
  } catch {
    return []; // a stored text that does not parse lists no violation; the message is still counted
  }
}
