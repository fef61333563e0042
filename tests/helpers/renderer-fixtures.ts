import type { CoreEvent, MessageSummary } from '../../shared/contract.ts';
import type { RelayApi } from '../../renderer/src/transport/relay-api.ts';
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

/** A transport that answers each channel from `answers` (an Error answer is a refusal), and lets the test send events. */
export function fakeApi(answers: Record<string, (request: any) => unknown>) {
  const listeners = new Set<(events: CoreEvent[]) => void>();
  const calls: { channel: string; request: any }[] = [];
  const api: RelayApi = {
    kind: 'websocket',
    invoke: (async (channel: string, request: unknown) => {
      calls.push({ channel, request });
      const answer = answers[channel];
      if (!answer) return { ok: false, error: { code: 'unknown', message: `no ${channel}` } };
      const value = await answer(request);
      return value instanceof Error ? { ok: false, error: { code: 'refused', message: value.message } } : { ok: true, value };
    }) as RelayApi['invoke'],
    onEvents(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onState(listener) {
      listener({ kind: 'open' });
      return () => {};
    },
    close() {},
  };
  return { api, calls, emit: (...events: CoreEvent[]) => listeners.forEach((l) => l(events)) };
}
