// The stream's reducers and selectors (renderer/src/store/model.ts, filters.ts, outcome.ts, rate-meter.ts): pure, run in Node.
import { describe, expect, it } from 'vitest';
import type { DeliverySummary, MessageSummary } from '../../shared/contract.ts';
import {
  addPage,
  addRows,
  applyDeliveryChanges,
  dropExpired,
  emptyList,
  evictRows,
  isListed,
  mergeDescending,
  neighbour,
  newerThan,
  trimList,
  type DeliveryChange,
  type ListModel,
} from '../../renderer/src/store/model.ts';
import { hasFilters, listQuery, matchesFilters, NO_FILTERS } from '../../renderer/src/store/filters.ts';
import { RateMeter } from '../../renderer/src/store/rate-meter.ts';
import { countdown, describeOutcome, errorLabel, outcomeOf } from '../../renderer/src/store/outcome.ts';
import { slotIndex, windowFor } from '../../renderer/src/components/virtual.ts';
import { msg } from '../helpers/renderer-fixtures.ts';
import { DatabaseSync } from 'node:sqlite';

function delivery(id: number, status: string, extra: Partial<DeliverySummary> = {}): DeliverySummary {
  return { id, status, attemptCount: status === 'pending' ? 0 : 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, skipReason: null, destinationId: 1, trigger: 'automatic', targetUrl: null, ...extra };
}

function change(deliveryId: number, messageId: number | null, status: string, attemptCount: number, extra: Partial<DeliveryChange> = {}): DeliveryChange {
  return { deliveryId, messageId, status, attemptCount, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null, ...extra };
}

/** The incrementally kept indexes agree with a recount from scratch (over the loaded rows: every loaded row is listed). */
function expectConsistent(list: ListModel) {
  const counts: Record<string, number> = {};
  let loaded = 0;
  for (const id of list.order) {
    const row = list.byId.get(id);
    if (!row) continue;
    loaded++;
    const kind = outcomeOf(row);
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  expect(Object.fromEntries(Object.entries(list.counts).filter(([, n]) => n !== 0))).toEqual(counts);
  expect(list.byId.size).toBe(loaded);
  for (const [owner] of list.known) expect(list.byId.has(owner)).toBe(true);
  for (const [, owner] of list.deliveryOwner) expect(list.byId.has(owner)).toBe(true);
  expect([...list.order]).toEqual([...list.order].sort((a, b) => b - a));
  expect(new Set(list.order).size).toBe(list.order.length);
}

describe('mergeDescending', () => {
  it('puts newer ids first, older ids last, and interleaves the rest', () => {
    expect(mergeDescending([5, 4, 3], [7, 6])).toEqual([7, 6, 5, 4, 3]);
    expect(mergeDescending([5, 4, 3], [1, 2])).toEqual([5, 4, 3, 2, 1]);
    expect(mergeDescending([9, 5, 1], [6, 2, 10])).toEqual([10, 9, 6, 5, 2, 1]);
    expect(mergeDescending([], [1, 3, 2])).toEqual([3, 2, 1]);
    const order = [3, 2, 1];
    expect(mergeDescending(order, [])).toBe(order);
  });
});

describe('rows', () => {
  it('adds a page, then live rows above it; counts and indexes follow incrementally', () => {
    let list = addPage(emptyList(), [msg(3, { delivery: delivery(30, 'delivered'), deliveryCount: 1 }), msg(2), msg(1, { status: 'rejected', rejectCode: 'missing_user' })], 1);
    expect(list.loaded).toBe(true);
    expect(list.next).toBe(1);
    expect(list.order).toEqual([3, 2, 1]);
    expect(list.counts).toMatchObject({ delivered: 1, none: 1, rejected: 1 });
    expect(list.deliveryOwner.get(30)).toBe(3);

    const before = list.order;
    list = addRows(list, [msg(5), msg(4, { type: 'identify' })], { ...NO_FILTERS, type: 'track' });
    expect(list.order).toEqual([5, 3, 2, 1]); // 4 does not match the filter
    expect(list.order).not.toBe(before);
    expect(list.byId.has(4)).toBe(false);
    expectConsistent(list);
  });

  it('replaces a loaded row with a newer summary without moving it, and keeps unchanged rows identical', () => {
    let list = addPage(emptyList(), [msg(2, { delivery: delivery(20, 'pending'), deliveryCount: 1 }), msg(1)], null);
    const row1 = list.byId.get(1);
    const order = list.order;
    list = addRows(list, [msg(2, { delivery: delivery(20, 'delivered'), deliveryCount: 1 }), msg(1)], null);
    expect(list.order).toBe(order); // nothing added: same array
    expect(list.byId.get(1)).toBe(row1);
    expect(list.byId.get(2)!.delivery!.status).toBe('delivered');
    expect(list.counts).toMatchObject({ delivered: 1, none: 1, pending: 0 });
    // Nothing new at all: the very same model.
    expect(addRows(list, [msg(1)], null)).toBe(list);
  });
});

describe('applyDeliveryChanges', () => {
  const base = () =>
    addPage(
      emptyList(),
      [
        msg(3, { delivery: delivery(31, 'pending'), deliveryCount: 1 }),
        msg(2, { delivery: delivery(21, 'retrying', { attemptCount: 2 }), deliveryCount: 2 }),
        msg(1),
      ],
      null,
    );

  it('updates the row in place: a new row object for it, the same objects for the others, the same order', () => {
    const list = base();
    const others = [list.byId.get(2), list.byId.get(1)];
    const { list: next, refetch, unloaded } = applyDeliveryChanges(list, [change(31, 3, 'retrying', 1, { nextAttemptAt: 5000, lastError: 'x did not answer within 5 s; will retry' })]);
    expect(next.order).toBe(list.order);
    expect(next.rev).toBeGreaterThan(list.rev);
    expect(next.byId.get(3)!.delivery).toMatchObject({ id: 31, status: 'retrying', attemptCount: 1, nextAttemptAt: 5000 });
    expect([next.byId.get(2), next.byId.get(1)]).toEqual(others);
    expect(next.byId.get(2)).toBe(others[0]);
    expect(next.counts).toMatchObject({ retrying: 2, pending: 0 });
    expect(refetch).toEqual([]);
    expect(unloaded).toEqual([]);
    expectConsistent(next);
  });

  it('finds the message by delivery id when the change has none, and ignores changes older than what is shown', () => {
    const list = base();
    const stale = applyDeliveryChanges(list, [change(21, null, 'pending', 1)]);
    expect(stale.list).toBe(list); // attempt 1 is older than the row's attempt 2
    const fresh = applyDeliveryChanges(list, [change(21, null, 'failed', 3, { lastError: 'the receiver answered 404; a 4xx is final' })]);
    expect(fresh.list.byId.get(2)!.delivery).toMatchObject({ status: 'failed', attemptCount: 3 });
  });

  it('carries the error code and HTTP status of a change into the row, so its label follows the code', () => {
    const list = base();
    const timedOut = applyDeliveryChanges(list, [change(31, 3, 'retrying', 1, { nextAttemptAt: 5000, lastError: 'x did not answer within 5 s; will retry', lastErrorCode: 'timeout' })]).list;
    expect(timedOut.byId.get(3)!.delivery).toMatchObject({ lastErrorCode: 'timeout', lastHttpStatus: null });
    expect(describeOutcome(timedOut.byId.get(3)!, 0).label).toMatch(/· last: timeout$/);
    // Same status and attempt count, only the code differs: still a new row (not dropped as unchanged).
    const asHttp = addRows(timedOut, [{ ...timedOut.byId.get(3)!, delivery: { ...timedOut.byId.get(3)!.delivery!, lastErrorCode: 'http', lastHttpStatus: 502 } }], null);
    expect(asHttp.byId.get(3)!.delivery).toMatchObject({ lastErrorCode: 'http', lastHttpStatus: 502 });
    expect(describeOutcome(asHttp.byId.get(3)!, 0).label).toMatch(/· last: HTTP 502$/);
    const delivered = applyDeliveryChanges(asHttp, [change(31, 3, 'delivered', 2)]).list;
    expect(delivered.byId.get(3)!.delivery).toMatchObject({ status: 'delivered', lastErrorCode: null, lastHttpStatus: null });
  });

  it('shows the most telling of several deliveries, and asks to refetch when the shown one became less telling with others unseen', () => {
    let list = base();
    // Message 2 has two deliveries; only 21 (retrying) is known. The other destination's, 22, fails:
    // failed wins — shown at once, and asked again, since a replay the row has not seen may supersede 22.
    let out = applyDeliveryChanges(list, [change(22, 2, 'failed', 1, { destinationId: 2 })]);
    expect(out.list.byId.get(2)!.delivery!.id).toBe(22);
    expect(out.refetch).toEqual([2]);
    // 21 is delivered in the end: the row still shows the failed one.
    out = applyDeliveryChanges(out.list, [change(21, 2, 'delivered', 3)]);
    expect(out.list.byId.get(2)!.delivery).toMatchObject({ id: 22, status: 'failed' });
    // Message 3 (one delivery known of... deliveryCount 1): pending → delivered is less telling, but nothing is unseen.
    out = applyDeliveryChanges(out.list, [change(31, 3, 'delivered', 1)]);
    expect(out.refetch).toEqual([]);
    // A message with 2 deliveries of which only one is known: retrying → delivered may hide the other's state.
    list = addPage(emptyList(), [msg(9, { delivery: delivery(91, 'retrying'), deliveryCount: 2 })], null);
    out = applyDeliveryChanges(list, [change(91, 9, 'delivered', 2)]);
    expect(out.list.byId.get(9)!.delivery!.status).toBe('delivered');
    expect(out.refetch).toEqual([9]);
    expectConsistent(out.list);
  });

  it('reports changes of rows that are not loaded', () => {
    const out = applyDeliveryChanges(base(), [change(77, 7, 'failed', 1)]);
    expect(out.unloaded).toEqual([{ messageId: 7, status: 'failed' }]);
  });
});

describe('trimList', () => {
  it('keeps the newest rows, forgets the rest and their indexes, and pages them in again from the cursor', () => {
    let list = addPage(
      emptyList(),
      Array.from({ length: 10 }, (_, i) => msg(10 - i, { delivery: delivery(100 + 10 - i, i % 2 ? 'failed' : 'delivered'), deliveryCount: 1 })),
      null,
    );
    list = trimList(list, 4);
    expect(list.order).toEqual([10, 9, 8, 7]);
    expect(list.byId.size).toBe(4);
    expect(list.deliveryOwner.has(101)).toBe(false);
    expect(list.deliveryOwner.get(110)).toBe(10);
    expect(list.next).toBe(7);
    expect(list.counts).toMatchObject({ delivered: 2, failed: 2 });
    expectConsistent(list);
    expect(trimList(list, 4)).toBe(list);
  });
});

describe('a sparse list: rows let go and loaded again', () => {
  const ten = () =>
    addPage(
      emptyList(),
      Array.from({ length: 10 }, (_, i) => msg(10 - i, { delivery: delivery(100 + 10 - i, i % 2 ? 'failed' : 'delivered'), deliveryCount: 1 })),
      7,
    );

  it('evicts the rows outside the kept index ranges, with their indexes, and keeps them listed', () => {
    let list = applyDeliveryChanges(ten(), [change(104, 4, 'failed', 2)]).list; // 4 gets a known delivery
    const order = list.order;
    list = evictRows(list, [
      [0, 2],
      [5, 7],
    ]);
    expect(list.order).toBe(order);
    expect([...list.byId.keys()].sort((a, b) => b - a)).toEqual([10, 9, 5, 4]);
    expect(list.deliveryOwner.has(108)).toBe(false);
    expect(list.known.has(4)).toBe(true);
    expect(list.counts).toMatchObject({ delivered: 1, failed: 3 }); // 10 delivered; 9, 5 and 4 failed
    expect(list.next).toBe(7);
    expectConsistent(list);
    // Nothing to let go: the same model.
    expect(evictRows(list, [[0, 10]])).toBe(list);
  });

  it('loads an evicted row again in its place (not as a new row, whatever the filters), and never adds a row that was only to be restored', () => {
    let list = evictRows(ten(), [[0, 3]]);
    expect(isListed(list.order, 5)).toBe(true);
    expect(list.byId.has(5)).toBe(false);
    const order = list.order;
    // The view asked for 5 and 2 again; 5 comes back, and a row 11 that was never listed does not sneak in.
    list = addRows(list, [msg(5, { type: 'identify' }), msg(11)], { ...NO_FILTERS, type: 'track' }, Date.now(), new Set([5, 11]));
    expect(list.order).toBe(order);
    expect(list.byId.get(5)!.type).toBe('identify');
    expect(list.byId.has(11)).toBe(false);
    expectConsistent(list);
    // Live rows (not asked for) are added as before.
    list = addRows(list, [msg(12)], NO_FILTERS);
    expect(list.order[0]).toBe(12);
    expect(isListed(list.order, 11)).toBe(false);
    expectConsistent(list);
  });

  it('a sliding window drops evicted rows older than an expired loaded row, and keeps the ones it cannot judge until they are loaded', () => {
    const NOW = 1_800_000_000_000;
    const rows = Array.from({ length: 8 }, (_, i) => msg(8 - i, { receivedAt: NOW - (i + 1) * 60_000 })); // 8: 1 min ago … 1: 8 min ago
    let list = addPage(emptyList(), rows, null);
    list = evictRows(list, [
      [0, 2],
      [4, 5],
    ]); // loaded: 8, 7 (1–2 min), 4 (5 min)
    list = dropExpired(list, { kind: 'last', ms: 4.5 * 60_000 }, NOW);
    // 4 has expired: it goes, and 3, 2, 1 below it; 6 and 5 (not loaded, newer than 4) stay listed.
    expect([...list.order]).toEqual([8, 7, 6, 5]);
    expect(list.next).toBeNull();
    expectConsistent(list);
    // A minute later 5 (now 5 min old) is loaded again (it came into view): outside, it goes at the next check;
    // 6, not loaded and newer, stays listed.
    list = addRows(list, [rows[3]!], null);
    list = dropExpired(list, { kind: 'last', ms: 4.5 * 60_000 }, NOW + 60_000);
    expect([...list.order]).toEqual([8, 7, 6]);
    expectConsistent(list);
  });
});

describe('filters', () => {
  it('maps to the core query: message statuses as status, delivery states as delivery of accepted messages', () => {
    expect(listQuery(NO_FILTERS)).toEqual({});
    expect(listQuery({ ...NO_FILTERS, type: 'page', status: 'failed', sourceId: 2, search: '  u_1 ' })).toEqual({
      type: 'page',
      sourceId: 2,
      search: 'u_1',
      status: 'accepted',
      delivery: 'failed',
    });
    expect(listQuery({ ...NO_FILTERS, status: 'duplicate' })).toEqual({ status: 'duplicate' });
    expect(listQuery({ ...NO_FILTERS, status: 'none' })).toEqual({ status: 'accepted', delivery: 'none' });
    expect(hasFilters(NO_FILTERS)).toBe(false);
    expect(hasFilters({ ...NO_FILTERS, search: ' ' })).toBe(false);
    expect(hasFilters({ ...NO_FILTERS, sourceId: 0 })).toBe(true);
  });

  it('matches live rows as the core would: the core says whether the payload matches, the row its shown fields', () => {
    const m = msg(1, { userId: 'Ada', anonymousId: 'anon-9', event: 'Signed Up', delivery: delivery(1, 'retrying'), deliveryCount: 1 });
    expect(matchesFilters(m, NO_FILTERS)).toBe(true);
    // Words anywhere in the message: the core's answer (messages.byIds with the search) stands.
    expect(matchesFilters(m, { ...NO_FILTERS, search: 'ord_123' })).toBe(true); // a row the core listed for the search
    expect(matchesFilters({ ...m, matchesSearch: true }, { ...NO_FILTERS, search: 'ord_123' })).toBe(true);
    expect(matchesFilters({ ...m, matchesSearch: false }, { ...NO_FILTERS, search: 'ord_123' })).toBe(false);
    // Clauses on what the row shows are tested again here, as the row changes.
    expect(matchesFilters(m, { ...NO_FILTERS, search: 'userId:ada' })).toBe(true);
    expect(matchesFilters(m, { ...NO_FILTERS, search: 'userId:bob' })).toBe(false);
    expect(matchesFilters(m, { ...NO_FILTERS, search: 'anonymousId:ANON-*' })).toBe(true);
    expect(matchesFilters(m, { ...NO_FILTERS, search: 'event:signed*' })).toBe(true);
    expect(matchesFilters(m, { ...NO_FILTERS, search: 'status:retrying' })).toBe(true);
    expect(matchesFilters(m, { ...NO_FILTERS, search: 'status:failed' })).toBe(false);
    expect(matchesFilters(m, { ...NO_FILTERS, search: '-status:retrying' })).toBe(false);
    expect(matchesFilters(m, { ...NO_FILTERS, search: '-type:identify violations:no' })).toBe(true);
    expect(matchesFilters({ ...m, matchesSearch: true }, { ...NO_FILTERS, search: 'ord_123 type:identify' })).toBe(false);
    expect(matchesFilters(m, { ...NO_FILTERS, status: 'retrying' })).toBe(true);
    expect(matchesFilters(m, { ...NO_FILTERS, status: 'failed' })).toBe(false);
    expect(matchesFilters(m, { ...NO_FILTERS, type: 'identify' })).toBe(false);
    expect(matchesFilters(m, { ...NO_FILTERS, sourceId: 2 })).toBe(false);
    expect(matchesFilters(msg(2, { status: 'duplicate' }), { ...NO_FILTERS, status: 'duplicate' })).toBe(true);
  });

  it("compares a field's value as SQLite's LIKE does (the core's search): ASCII letters in any case, * for any characters", () => {
    const db = new DatabaseSync(':memory:');
    const like = db.prepare("SELECT ? LIKE ? ESCAPE '\\' AS hit");
    for (const userId of ['Émile', 'émile', 'ÉMILE', 'Straße', 'STRASSE', 'Ada', 'İstanbul', 'Ωmega', '50%_off']) {
      for (const value of ['émile', 'Émile', '*mile', 'straße', 'STRASSE', 'ada', 'istanbul', 'ωmega', 'Ωmega', '50%*', '*_*', 'a*a', 'A*']) {
        const pattern = value.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll('*', '%');
        const core = (like.get(userId, pattern) as { hit: number }).hit === 1;
        expect(matchesFilters(msg(1, { userId, messageId: 'x' }), { ...NO_FILTERS, search: `userId:"${value}"` }), `${userId} / ${value}`).toBe(core);
      }
    }
    db.close();
  });
});

describe('selectors', () => {
  it('moves the selection by rows, clamped, and starts at the top', () => {
    expect(neighbour([5, 4, 3], null, 1)).toBe(5);
    expect(neighbour([5, 4, 3], 5, 1)).toBe(4);
    expect(neighbour([5, 4, 3], 4, -1)).toBe(5);
    expect(neighbour([5, 4, 3], 3, 10)).toBe(3);
    expect(neighbour([5, 4, 3], 99, 1)).toBe(5);
    expect(neighbour([], null, 1)).toBe(null);
  });

  it('counts rows newer than an id in a newest-first order', () => {
    const order = [90, 80, 70, 60];
    expect(newerThan(order, 70)).toBe(2);
    expect(newerThan(order, 75)).toBe(2);
    expect(newerThan(order, 100)).toBe(0);
    expect(newerThan(order, 1)).toBe(4);
  });

  it('words each outcome with its colour: delivered, retrying with the next attempt and its countdown, failed with the error and why it ends, skipped and rejected with the reason, duplicate', () => {
    const now = 1_000_000;
    const d = (status: string, extra: Partial<DeliverySummary> = {}) => msg(1, { delivery: delivery(1, status, extra), deliveryCount: 1 });
    expect(describeOutcome(d('delivered'), now)).toMatchObject({ label: '✓ delivered', tone: 'ok' });
    expect(describeOutcome(d('delivered', { attemptCount: 3 }), now).label).toBe('✓ delivered after 3 attempts');
    expect(
      describeOutcome(
        d('retrying', { attemptCount: 2, nextAttemptAt: now + 12_000, lastError: 'http://x did not answer within 5 s; will retry', lastErrorCode: 'timeout' }),
        now,
      ),
    ).toMatchObject({ label: '⟳ next: attempt 3 in 12 s · last: timeout', tone: 'warn' });
    const failed = describeOutcome(d('failed', { lastError: 'the receiver answered 404; a 4xx is final', lastErrorCode: 'http', lastHttpStatus: 404 }), now);
    expect(failed).toMatchObject({ label: '✗ failed: HTTP 404 · not retried (4xx)', tone: 'bad' });
    expect(failed.title).toContain('the receiver answered 404; a 4xx is final'); // the sentence stays in the tooltip
    expect(describeOutcome(d('skipped', { skipReason: 'integrations: Webhooks is false' }), now).label).toBe('↷ skipped: integrations: Webhooks is false');
    expect(describeOutcome(msg(1, { status: 'rejected', rejectCode: 'missing_user', rejectReason: 'no user' }), now)).toMatchObject({
      label: '⊘ rejected: missing_user',
      tone: 'bad',
    });
    expect(describeOutcome(msg(1, { status: 'duplicate' }), now).label).toBe('≡ duplicate');
    expect(describeOutcome(msg(1), now).label).toBe('stored, no destination');
    expect(describeOutcome(d('pending'), now).kind).toBe('pending');
  });

  it('names delivery errors from the code the core lists, not from the sentence', () => {
    expect(errorLabel('tls')).toBe('tls');
    expect(errorLabel('connect')).toBe('connect');
    expect(errorLabel('reset')).toBe('reset');
    expect(errorLabel('timeout')).toBe('timeout');
    expect(errorLabel('http', 503)).toBe('HTTP 503');
    expect(errorLabel('http', null)).toBe('HTTP error');
    expect(errorLabel(null)).toBe('not sent');
    // A sentence that reads like another error does not matter: the code decides.
    const now = 0;
    const row = msg(1, {
      delivery: delivery(1, 'failed', { lastError: 'http://x refused the connection… then answered 500', lastErrorCode: 'timeout' }),
      deliveryCount: 1,
    });
    expect(describeOutcome(row, now).label).toBe('✗ failed: timeout · gave up after 4 h of retries');
    expect(countdown(400)).toBe('now');
    expect(countdown(61_000)).toBe('in 1 min 01 s');
    expect(countdown(2 * 3_600_000 + 5 * 60_000)).toBe('in 2 h 05 min');
  });

  it('measures messages per second over whole seconds', () => {
    const meter = new RateMeter(2);
    meter.record(10_000, 100);
    meter.record(10_500, 100);
    meter.record(11_200, 50);
    expect(meter.rate(11_900)).toBe(100); // (200 + 0) / 2: the current second is not complete
    expect(meter.rate(12_100)).toBe(125); // (200 + 50) / 2
    expect(meter.rate(20_000)).toBe(0);
  });
});

describe('virtual window', () => {
  it('renders the rows in view plus overscan, aligned to chunks, never past the ends', () => {
    expect(windowFor(0, 480, 100_000, 48, 12)).toEqual({ start: 0, end: 48, size: 48 });
    const w = windowFor(48 * 50_000, 480, 100_000, 48, 12);
    expect(w.start).toBeLessThanOrEqual(50_000 - 12);
    expect(w.end).toBeGreaterThanOrEqual(50_010 + 12);
    expect(w.end - w.start).toBeLessThan(60);
    expect(windowFor(48 * 99_995, 480, 100_000, 48, 12).end).toBe(100_000);
    expect(windowFor(0, 480, 3, 48, 12)).toEqual({ start: 0, end: 3, size: 48 });
    // The same number of rows wherever the window is, so keys (index % size) recycle rows.
    for (const top of [0, 4800, 48 * 12_345, 48 * 99_990]) {
      const { start, end, size } = windowFor(top, 480, 100_000, 48, 12);
      expect(end - start).toBe(size);
      expect(start).toBeLessThanOrEqual(Math.floor(top / 48));
      expect(end).toBeGreaterThanOrEqual(Math.min(100_000, Math.ceil((top + 480) / 48)));
    }
  });

  it('maps each slot (key) to the one row of the window it shows, so the children keep one order as the window moves', () => {
    for (const [top, count] of [[0, 100_000], [48 * 50_003, 100_000], [48 * 99_990, 100_000], [0, 3], [48 * 7, 30]] as const) {
      const { start, end, size } = windowFor(top, 480, count, 48, 12);
      const shown = Array.from({ length: size }, (_, slot) => slotIndex(slot, start, end, size));
      expect(shown.filter((i) => i >= 0).sort((a, b) => a - b)).toEqual(Array.from({ length: end - start }, (_, k) => start + k));
      shown.forEach((i, slot) => i >= 0 && expect(i % size).toBe(slot));
    }
  });
});
