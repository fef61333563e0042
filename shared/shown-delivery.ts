/**
 * Which delivery a message's row shows when it has several (one per destination, plus replays). The
 * core's list summaries, its SQL filter (electron/core/store/shown-delivery.ts) and the renderer's
 * live updates all use this one rule, so a `delivery` filter selects exactly the rows the stream
 * shows in that state. Plain TypeScript, no imports: the renderer bundles it.
 *
 * 1. Per destination, only the latest delivery to its own webhooks counts: a replay (or any later
 *    delivery) supersedes what came before, so a message recovered by a replay reads "delivered".
 * 2. A replay to a URL typed for it (`targetUrl`) is a side experiment: it never supersedes and is
 *    left out — unless the message has no delivery to a destination's webhooks at all, when the
 *    latest such replay per destination counts (it is all that happened to the message).
 * 3. Of the deliveries that count, the most telling state wins (the order below); on a tie, the
 *    latest.
 */
export const STATUS_WEIGHT: Readonly<Record<string, number>> = { failed: 6, retrying: 5, pending: 4, cancelled: 3, delivered: 2, skipped: 1 };

/** The fields the rule reads. */
export interface LaneDelivery {
  id: number;
  status: string;
  destinationId: number;
  targetUrl: string | null;
}

/** A replay to a typed URL rather than the destination's webhooks. */
export function isSideTrip(d: Pick<LaneDelivery, 'targetUrl'>): boolean {
  return d.targetUrl !== null;
}

/** The deliveries that count for the row (rules 1 and 2), in any order. */
export function currentDeliveries<D extends LaneDelivery>(deliveries: readonly D[]): D[] {
  const own = new Map<number, D>();
  const side = new Map<number, D>();
  for (const d of deliveries) {
    const lanes = isSideTrip(d) ? side : own;
    const held = lanes.get(d.destinationId);
    if (!held || d.id > held.id) lanes.set(d.destinationId, d);
  }
  return [...(own.size > 0 ? own : side).values()];
}

/** The delivery the row shows, or null when the message has none. */
export function shownDelivery<D extends LaneDelivery>(deliveries: readonly D[]): D | null {
  let best: D | null = null;
  for (const d of currentDeliveries(deliveries)) if (!best || moreTelling(d, best)) best = d;
  return best;
}

/** Whether `a` outranks `b` for the row: a more telling state, or the same state and later. */
export function moreTelling(a: LaneDelivery, b: LaneDelivery): boolean {
  const wa = STATUS_WEIGHT[a.status] ?? 0;
  const wb = STATUS_WEIGHT[b.status] ?? 0;
  return wa > wb || (wa === wb && a.id > b.id);
}
