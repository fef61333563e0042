import type { DatabaseSync } from 'node:sqlite';
import type { BatchEnvelope } from '../store/normalize.ts';
import type { PlanChecks } from './plan-checks.ts';

/**
 * Checks stored messages again against the plans in use, a slice at a time (the store's writer runs
 * each slice in its own group commit, so ingestion goes on between them), and records the violations
 * that changed. Only violations: a re-check does not block or release deliveries already made, and
 * sends no `Violation Generated` events. The messages ingestion checks are the ones checked again
 * (store/plan-stats.ts CHECKED_MESSAGES: not duplicates or rejected ones, not what Sluice generated itself), up to `untilId`.
 */
export function rechecker(db: DatabaseSync, plans: PlanChecks): (afterId: number, untilId: number, limit: number) => { lastId: number; read: number; changed: number } {
  const read = db.prepare(
    `SELECT m.id, m.source_id, m.type, m.raw, m.violations, r.envelope FROM messages m LEFT JOIN requests r ON r.id = m.request_id
     WHERE m.id > ? AND m.id <= ? AND m.status = 'accepted' AND m.origin = 'ingest' ORDER BY m.id LIMIT ?`,
  );
  const update = db.prepare('UPDATE messages SET violations = ? WHERE id = ?');
  return (afterId, untilId, limit) => {
    const rows = read.all(afterId, untilId, limit) as { id: number; source_id: number; type: string; raw: string; violations: string | null; envelope: string | null }[];
    let changed = 0;
    for (const row of rows) {
      let found;
      try {
        // The row's type: a message sent to /v1/track and the like has none of its own.
        const message = JSON.parse(row.raw) as Record<string, unknown>;
        const envelope = row.envelope && row.envelope.includes('"context"') ? (JSON.parse(row.envelope) as BatchEnvelope) : {};
        const context = envelope.context ? { ...envelope.context, ...(message.context as object | undefined) } : message.context;
        found = plans.violations(row.source_id, { type: row.type, event: message.event, properties: message.properties, traits: message.traits, context });
      } catch {
        continue; // a stored message that does not parse was never checked either
      }
      const violations = found.length > 0 ? JSON.stringify(found) : null;
      if (violations !== row.violations) {
        update.run(violations, row.id);
        changed++;
      }
    }
    return { lastId: rows.at(-1)?.id ?? afterId, read: rows.length, changed };
  };
}
