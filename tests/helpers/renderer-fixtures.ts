import type { MessageSummary } from '../../shared/contract.ts';
import type { RecheckProgress } from '../../shared/tracking-plan.ts';

/** A list row as the core sends it, for renderer tests. */
export function msg(id: number, extra: Partial<MessageSummary> = {}): MessageSummary {
  return {
    id,
    sourceId: 1,
    messageId: `m-${id}`,
    type: 'track',
    status: 'accepted',
    rejectCode: null,
    rejectReason: null,
    origin: 'ingest',
    userId: `u_${id}`,
    anonymousId: null,
    event: 'Order Completed',
    receivedAt: 1_700_000_000_000 + id,
    timestamp: null,
    delivery: null,
    deliveryCount: 0,
    violations: 0,
    ...extra,
  };
}

/** A re-check's progress as the core announces it (of 10 messages), for renderer tests. */
export const progress = (id: number, done: number, state: RecheckProgress['state'] = 'running', extra: Partial<RecheckProgress> = {}): RecheckProgress => ({
  id,
  done,
  total: 10,
  changed: 0,
  state,
  ...extra,
});
