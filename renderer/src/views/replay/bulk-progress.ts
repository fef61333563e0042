/**
 * Where a set of replayed deliveries stands, from the core's `deliveries.changed` events: how many
 * are delivered, failed, or still on their way. Pure, so the counting is tested in Node.
 */
import { deliveryStateOf, type DeliveryChange, type DeliveryState } from '../../store/model.ts';

export type { DeliveryState };

export interface Progress {
  total: number;
  delivered: number;
  failed: number;
  /** Not final yet: queued, in flight or retrying (a delivery with no event yet counts here). */
  pending: number;
  /** Final without being sent: cancelled or skipped. */
  other: number;
  /** delivered + failed + other. */
  finished: number;
  done: boolean;
}

const OPEN = new Set(['pending', 'in_flight', 'retrying']);

export function countProgress(ids: readonly number[], states: ReadonlyMap<number, DeliveryState>): Progress {
  const progress: Progress = { total: ids.length, delivered: 0, failed: 0, pending: 0, other: 0, finished: 0, done: false };
  for (const id of ids) {
    const status = states.get(id)?.status ?? 'pending';
    if (status === 'delivered') progress.delivered++;
    else if (status === 'failed') progress.failed++;
    else if (OPEN.has(status)) progress.pending++;
    else progress.other++;
  }
  progress.finished = progress.total - progress.pending;
  progress.done = progress.pending === 0;
  return progress;
}

/**
 * Records changes into `states` (in place); a change with fewer attempts than the state already has
 * is older and ignored, so events handled out of order never move a delivery back. Returns whether
 * anything changed.
 */
export function recordChanges(states: Map<number, DeliveryState>, changes: readonly DeliveryChange[]): boolean {
  let changed = false;
  for (const c of changes) {
    const known = states.get(c.deliveryId);
    if (known && known.attemptCount > c.attemptCount) continue;
    if (known && known.status === c.status && known.attemptCount === c.attemptCount && known.nextAttemptAt === c.nextAttemptAt) continue;
    states.delete(c.deliveryId); // re-inserted last: the map's order is recency, for trimming
    states.set(c.deliveryId, deliveryStateOf(c));
    changed = true;
  }
  return changed;
}

/** One line for the progress: "7 of 12 finished — 6 delivered · 1 failed · 5 pending". */
export function describeProgress(p: Progress): string {
  const parts = [`${p.delivered} delivered`, `${p.failed} failed`];
  if (p.other > 0) parts.push(`${p.other} cancelled or skipped`);
  parts.push(`${p.pending} pending`);
  return `${p.finished} of ${p.total} finished — ${parts.join(' · ')}`;
}
