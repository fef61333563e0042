// The delivery overview's counts per hour (delivery_hours, migration 22) of the automatic deliveries the
// store's writer makes (migration 26): added up in memory over a group of commits' units and written once
// per key when the group commits, where a trigger wrote one upsert per delivery made. Moves (a round's
// result, a reopen, a cancel) and removals are still counted by triggers (migration 26's
// delivery_hours_moved and delivery_hours_gone), with upserts that commute with these: a move of a delivery
// made in the same group lands on a row written after it, and the sums come out the same.
import type { DatabaseSync } from 'node:sqlite';

const HOUR = 3_600_000;

export interface DeliveryHours {
  /** An automatic delivery made (request-writes.ts). */
  made(destinationId: number, createdAt: number, status: string, skipReason: string | null): void;
  /** Ends a unit of the group: its counts kept (it was released) or dropped (rolled back to its savepoint). */
  endUnit(kept: boolean): void;
  /** Writes the group's counts (the unit under way's with them), in its transaction, before it commits; nothing is kept after. */
  write(): void;
  /** Forgets everything not written (the group's transaction rolled back). */
  drop(): void;
}

export function deliveryHours(db: DatabaseSync): DeliveryHours {
  const upsert = db.prepare(
    `INSERT INTO delivery_hours (destination_id, hour, status, skip_reason, n) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (destination_id, hour, status, skip_reason) DO UPDATE SET n = n + excluded.n`,
  );
  /** "destination\0hour\0status\0reason" → deliveries made, for the group's kept units and for the unit under way. */
  let group = new Map<string, number>();
  let unit = new Map<string, number>();
  const endUnit = (kept: boolean) => {
    if (kept) {
      if (group.size === 0) [group, unit] = [unit, group];
      else for (const [key, n] of unit) group.set(key, (group.get(key) ?? 0) + n);
    }
    unit.clear();
  };
  return {
    made(destinationId, createdAt, status, skipReason) {
      // The hour as the triggers compute it (SQL's integer division truncates), so that a move counts from the same row.
      const key = `${destinationId}\u0000${Math.trunc(createdAt / HOUR)}\u0000${status}\u0000${skipReason ?? ''}`;
      unit.set(key, (unit.get(key) ?? 0) + 1);
    },
    endUnit,
    write() {
      endUnit(true);
      for (const [key, n] of group) {
        // The reason last, whole: a plan's block reason may quote an event name holding a NUL (the separator).
        const [destinationId, hour, status, ...reason] = key.split('\u0000') as [string, string, string, ...string[]];
        upsert.run(Number(destinationId), Number(hour), status, reason.join('\u0000'), n);
      }
      group = new Map();
    },
    drop() {
      group = new Map();
      unit = new Map();
    },
  };
}

/** delivery_hours again from the deliveries a store holds (a salvage's copy), as migration 22 first counted them. */
export function recountDeliveryHours(db: DatabaseSync): void {
  db.exec(`
    DELETE FROM delivery_hours;
    INSERT INTO delivery_hours (destination_id, hour, status, skip_reason, n)
      SELECT destination_id, created_at / ${HOUR}, status, coalesce(skip_reason, ''), count(*) FROM deliveries
      WHERE trigger = 'automatic' GROUP BY 1, 2, 3, 4;
  `);
}
