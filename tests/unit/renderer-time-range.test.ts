// The stream's time-range filter in the renderer: bounds, live-row matching (the same test the core
// applies), the sliding window's expiry, and the store asking the core for the same bounds.
import { describe, expect, it } from 'vitest';
import type { Channel, CoreEvent, RequestOf, Responses, Result } from '../../shared/contract.ts';
import { createInspector } from '../../renderer/src/store/inspector.ts';
import { addPage, addRows, dropExpired, emptyList } from '../../renderer/src/store/model.ts';
import { hasFilters, listQuery, matchesFilters, NO_FILTERS, timeBounds, type Filters, type TimeRange } from '../../renderer/src/store/filters.ts';
import type { ConnectionState, EventsListener, RelayApi } from '../../renderer/src/transport/relay-api.ts';
import { msg } from '../helpers/renderer-fixtures.ts';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const MIN = 60_000;
const last = (ms: number): TimeRange => ({ kind: 'last', ms });
const between = (from: number | null, to: number | null): TimeRange => ({ kind: 'between', from, to });
const at = (id: number, receivedAt: number) => msg(id, { receivedAt });
const withTime = (time: TimeRange): Filters => ({ ...NO_FILTERS, time });

describe('time bounds', () => {
  it('turns a range into inclusive receivedAt bounds at a given time', () => {
    expect(timeBounds({ kind: 'all' }, NOW)).toEqual({});
    expect(timeBounds(last(5 * MIN), NOW)).toEqual({ from: NOW - 5 * MIN });
    expect(timeBounds(between(NOW - 10, NOW - 5), NOW)).toEqual({ from: NOW - 10, to: NOW - 5 });
    expect(timeBounds(between(null, NOW - 5), NOW)).toEqual({ to: NOW - 5 });
    expect(timeBounds(between(null, null), NOW)).toEqual({});
  });

  it('sends the same bounds to messages.list, alongside the other filters', () => {
    expect(listQuery({ ...withTime(last(60 * MIN)), type: 'track' }, NOW)).toEqual({ type: 'track', from: NOW - 60 * MIN });
    expect(listQuery(withTime(between(1, 2)), NOW)).toEqual({ from: 1, to: 2 });
    expect(listQuery(NO_FILTERS, NOW)).toEqual({});
  });

  it('counts as a filter unless it is "all" or an empty custom range', () => {
    expect(hasFilters(withTime(last(5 * MIN)))).toBe(true);
    expect(hasFilters(withTime(between(null, NOW)))).toBe(true);
    expect(hasFilters(withTime(between(null, null)))).toBe(false);
    expect(hasFilters(NO_FILTERS)).toBe(false);
  });
});

describe('live rows and the time range', () => {
  it('matches a row inside the window, edges included, and not one outside', () => {
    const f = withTime(last(5 * MIN));
    expect(matchesFilters(at(1, NOW), f, NOW)).toBe(true);
    expect(matchesFilters(at(1, NOW - 5 * MIN), f, NOW)).toBe(true);
    expect(matchesFilters(at(1, NOW - 5 * MIN - 1), f, NOW)).toBe(false);
    // The window slides: the same row falls out a minute later.
    expect(matchesFilters(at(1, NOW - 4 * MIN), f, NOW + MIN + 1)).toBe(false);
    const fixed = withTime(between(NOW - 10 * MIN, NOW - 5 * MIN));
    expect(matchesFilters(at(1, NOW - 7 * MIN), fixed, NOW)).toBe(true);
    expect(matchesFilters(at(1, NOW - 5 * MIN + 1), fixed, NOW)).toBe(false);
    expect(matchesFilters(at(1, NOW - 10 * MIN - 1), fixed, NOW)).toBe(false);
  });

  it('keeps live rows out of a range that ended in the past', () => {
    let list = addPage(emptyList(), [at(1, NOW - 7 * MIN)], null);
    const fixed = withTime(between(NOW - 10 * MIN, NOW - 5 * MIN));
    list = addRows(list, [at(2, NOW), at(3, NOW - 6 * MIN)], fixed, NOW);
    expect([...list.order]).toEqual([3, 1]);
    expect(list.counts.none).toBe(2);
  });

  it('combines with the other filters (all must match)', () => {
    const f: Filters = { ...withTime(last(5 * MIN)), type: 'identify' };
    expect(matchesFilters(at(1, NOW), f, NOW)).toBe(false);
    expect(matchesFilters(msg(1, { receivedAt: NOW, type: 'identify' }), f, NOW)).toBe(true);
  });
});

describe('the sliding window expires rows', () => {
  it('drops rows older than the window, with their counts and delivery index, and stops paging', () => {
    const delivered = { id: 90, status: 'delivered', attemptCount: 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, skipReason: null, destinationId: 1, trigger: 'automatic', targetUrl: null };
    let list = addPage(emptyList(), [at(3, NOW), at(2, NOW - 3 * MIN), msg(1, { receivedAt: NOW - 4 * MIN, delivery: delivered, deliveryCount: 1 })], 1);
    list = dropExpired(list, last(5 * MIN), NOW + 90_000); // window starts at NOW − 3.5 min
    expect([...list.order]).toEqual([3, 2]);
    expect(list.byId.has(1)).toBe(false);
    expect(list.deliveryOwner.has(90)).toBe(false);
    expect(list.counts).toMatchObject({ none: 2, delivered: 0 });
    expect(list.next).toBeNull();
  });

  it('changes nothing (same object) for fixed ranges or when every row is inside', () => {
    const list = addPage(emptyList(), [at(2, NOW), at(1, NOW - MIN)], 1);
    expect(dropExpired(list, { kind: 'all' }, NOW + 10 * MIN)).toBe(list);
    expect(dropExpired(list, between(NOW, null), NOW + 10 * MIN)).toBe(list);
    expect(dropExpired(list, last(5 * MIN), NOW)).toBe(list);
  });
});

/** Answers every call at once: the first page is what the test gives. */
class InstantApi implements RelayApi {
  readonly kind = 'websocket';
  requests: { channel: Channel; request: unknown }[] = [];
  listeners = new Set<EventsListener>();
  page: Responses['messages.list'] = { messages: [], next: null };
  invoke<C extends Channel>(channel: C, request: RequestOf<C>): Promise<Result<Responses[C]>> {
    this.requests.push({ channel, request });
    const answers: Partial<Record<Channel, unknown>> = {
      'app.info': { version: '0', ingestUrl: 'http://127.0.0.1:1', receiverUrl: 'http://127.0.0.1:2', sources: [] },
      'destinations.list': { destinations: [] },
      'messages.count': { total: 0, matching: 0, newestId: 0 },
      'messages.list': this.page,
    };
    return Promise.resolve({ ok: true, value: answers[channel] as Responses[C] });
  }
  onEvents(listener: EventsListener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  onState(listener: (s: ConnectionState) => void) {
    listener({ kind: 'open' });
    return () => {};
  }
  close() {}
  emit(...events: CoreEvent[]) {
    for (const l of this.listeners) l(events);
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the store with a time range', () => {
  it('asks the core for the window at the time the filter applies, and lets rows expire on tick', async () => {
    const api = new InstantApi();
    let now = NOW;
    const inspector = createInspector(api, { requestFrame: (cb) => setTimeout(cb, 0), now: () => now });
    inspector.start();
    await settle();
    api.page = { messages: [at(2, NOW - MIN), at(1, NOW - 4 * MIN)], next: null };
    inspector.setFilters({ time: last(5 * MIN) });
    await settle();
    const lists = api.requests.filter((r) => r.channel === 'messages.list');
    expect(lists.at(-1)!.request).toEqual({ from: NOW - 5 * MIN, limit: 200 });
    expect([...inspector.store.getState().list.order]).toEqual([2, 1]);

    now = NOW + 2 * MIN; // message 1 is now 6 min old
    inspector.tick();
    expect([...inspector.store.getState().list.order]).toEqual([2]);

    // Paused: the view is frozen, nothing expires.
    inspector.setPaused(true);
    now = NOW + 10 * MIN;
    inspector.tick();
    expect([...inspector.store.getState().list.order]).toEqual([2]);
    inspector.dispose();
  });
});
