// inspector.subscribe: views with their own live data (composer queue, receiver inbox, deletions) get
// every core event batch as it arrives, and stop getting them once unsubscribed.
import { describe, expect, it } from 'vitest';
import type { Channel, CoreEvent, RequestOf, Responses, Result } from '../../shared/contract.ts';
import { createInspector } from '../../renderer/src/store/inspector.ts';
import type { ConnectionState, EventsListener, RelayApi } from '../../renderer/src/transport/relay-api.ts';

function fakeApi() {
  const listeners = new Set<EventsListener>();
  const api: RelayApi = {
    kind: 'websocket',
    invoke<C extends Channel>(channel: C, _request: RequestOf<C>): Promise<Result<Responses[C]>> {
      const answers: Partial<Record<Channel, unknown>> = {
        'app.info': { version: '0', ingestUrl: 'http://127.0.0.1:1', receiverUrl: 'http://127.0.0.1:2', sources: [] },
        'destinations.list': { destinations: [] },
      'messages.count': { total: 0, matching: 0, newestId: 0 },
        'messages.list': { messages: [], next: null },
        'messages.byIds': { messages: [] },
      };
      return Promise.resolve({ ok: true, value: answers[channel] as Responses[C] });
    },
    onEvents(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onState(listener: (s: ConnectionState) => void) {
      listener({ kind: 'open' });
      return () => {};
    },
    close() {},
  };
  return { api, emit: (events: CoreEvent[]) => listeners.forEach((l) => l(events)) };
}

describe('inspector.subscribe', () => {
  it('hands each batch to every subscriber until it unsubscribes', () => {
    const { api, emit } = fakeApi();
    const inspector = createInspector(api, { requestFrame: () => {}, now: () => 0 });
    inspector.start();
    const seen: CoreEvent[][] = [];
    const other: CoreEvent[][] = [];
    const off = inspector.subscribe((events) => seen.push(events));
    inspector.subscribe((events) => other.push(events));
    const state = { queued: 1, queuedBytes: 10, nextFlushAt: 5, nextFlushInMs: 5, inFlightBatches: 0, inFlightMessages: 0, sent: 0, failed: 0, dropped: 0, lastResult: null, closed: false };
    const batch: CoreEvent[] = [
      { type: 'client.state', sourceId: 1, state },
      { type: 'receiver.received', entries: [{ id: 1, hook: 'demo', receivedAt: 0, headers: {}, body: '{}', signature: 'unsigned', answeredStatus: 200 }] },
    ];
    emit(batch);
    off();
    emit([{ type: 'settings.changed' }]);
    expect(seen).toEqual([batch]);
    expect(other).toEqual([batch, [{ type: 'settings.changed' }]]);
    inspector.dispose();
  });
});
