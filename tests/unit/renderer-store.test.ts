// The inspector's zustand store driven through a fake transport and a manual animation-frame clock.
import { describe, expect, it } from 'vitest';
import type { Channel, CoreEvent, MessageSummary, RequestOf, Responses, Result } from '../../shared/contract.ts';
import { createInspector, LOADED_AROUND_VIEW, LOADED_NEWEST, MAX_ROWS, type Inspector } from '../../renderer/src/store/inspector.ts';
import type { ConnectionState, EventsListener, RelayApi } from '../../renderer/src/transport/relay-api.ts';
import { msg } from '../helpers/renderer-fixtures.ts';
import { replayStore } from '../../renderer/src/views/replay/replay-store.ts';
import { countProgress } from '../../renderer/src/views/replay/bulk-progress.ts';

const pendingDelivery = (id: number) => ({ id, status: 'pending', attemptCount: 0, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, skipReason: null, destinationId: 1, trigger: 'automatic', targetUrl: null });

interface Call {
  channel: Channel;
  request: any;
  resolve: (value: unknown) => void;
  fail: (code: string) => void;
}

/** A RelayApi whose answers the test gives, one call at a time (or automatically, with `auto`). */
class FakeApi implements RelayApi {
  readonly kind = 'websocket';
  calls: Call[] = [];
  events = new Set<EventsListener>();
  states = new Set<(s: ConnectionState) => void>();
  /** Answers given without the test stepping in. */
  auto: Partial<{ [C in Channel]: (request: any) => Responses[C] }> = {
    'app.info': () => ({ version: '0', ingestUrl: 'http://127.0.0.1:1', receiverUrl: 'http://127.0.0.1:2', dataDir: '/tmp/sluice', sources: [{ id: 1, name: 'web', writeKey: 'wk', kind: 'web' }] }),
    'destinations.list': () => ({ destinations: [] }),
  };

  invoke<C extends Channel>(channel: C, request: RequestOf<C>): Promise<Result<Responses[C]>> {
    const auto = this.auto[channel];
    if (auto) return Promise.resolve({ ok: true, value: auto(request) as Responses[C] });
    return new Promise((resolve) => {
      this.calls.push({
        channel,
        request,
        resolve: (value) => resolve({ ok: true, value: value as Responses[C] }),
        fail: (code) => resolve({ ok: false, error: { code, message: `${code} happened` } }),
      });
    });
  }
  onEvents(listener: EventsListener) {
    this.events.add(listener);
    return () => this.events.delete(listener);
  }
  onState(listener: (s: ConnectionState) => void) {
    this.states.add(listener);
    listener({ kind: 'open' });
    return () => this.states.delete(listener);
  }
  close() {}
  emit(...events: CoreEvent[]) {
    for (const l of this.events) l(events);
  }
  setState(state: ConnectionState) {
    for (const l of this.states) l(state);
  }
  /** Takes the oldest unanswered call on a channel. */
  take(channel: Channel): Call {
    const index = this.calls.findIndex((c) => c.channel === channel);
    if (index < 0) throw new Error(`no pending ${channel} call; pending: ${this.calls.map((c) => c.channel).join(', ')}`);
    return this.calls.splice(index, 1)[0]!;
  }
  pending(channel: Channel) {
    return this.calls.filter((c) => c.channel === channel);
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup() {
  const api = new FakeApi();
  const frames: (() => void)[] = [];
  let now = 1_000_000;
  const inspector = createInspector(api, { requestFrame: (cb) => frames.push(cb), now: () => now });
  let sets = 0;
  inspector.store.subscribe(() => sets++);
  const runFrame = async () => {
    await tick();
    const due = frames.splice(0);
    for (const cb of due) cb();
    await tick();
  };
  return {
    api,
    inspector,
    runFrame,
    sets: () => sets,
    advance: (ms: number) => (now += ms),
    state: () => inspector.store.getState(),
  };
}

async function started(firstPage: MessageSummary[] = [msg(2), msg(1)], next: number | null = null) {
  const t = setup();
  t.inspector.start();
  t.api.take('messages.list').resolve({ messages: firstPage, next });
  await tick();
  await tick();
  return t;
}

const ids = (inspector: Inspector) => [...inspector.store.getState().list.order];

/** Live ids from..to arrive and every summaries fetch (one byIds call per 5,000 ids) is answered; then a frame. */
async function arrive(t: Awaited<ReturnType<typeof started>>, from: number, to: number) {
  t.api.emit({ type: 'messages.stored', ids: Array.from({ length: to - from + 1 }, (_, i) => from + i) });
  while (t.api.pending('messages.byIds').length > 0) {
    const call = t.api.take('messages.byIds');
    call.resolve({ messages: (call.request.ids as number[]).map((id) => msg(id)) });
    await tick();
  }
  await t.runFrame();
}

describe('inspector store', () => {
  it('keeps asking for older pages while they come back empty with more to read (a filter the core scans for in bounded steps)', async () => {
    const t = await started([], 480_000);
    const second = t.api.take('messages.list');
    expect(second.request.beforeId).toBe(480_000);
    second.resolve({ messages: [], next: 460_000 });
    await tick();
    await tick();
    const third = t.api.take('messages.list');
    expect(third.request.beforeId).toBe(460_000);
    third.resolve({ messages: [msg(100), msg(99)], next: 99 });
    await tick();
    await tick();
    expect(ids(t.inspector)).toEqual([100, 99]);
    expect(t.api.pending('messages.list')).toEqual([]); // rows to show: the list pages on as it is scrolled
  });

  it('stops asking once the end is reached with nothing found', async () => {
    const t = await started([], 20_000);
    t.api.take('messages.list').resolve({ messages: [], next: null });
    await tick();
    await tick();
    expect(t.state().list).toMatchObject({ loaded: true, next: null });
    expect(t.api.pending('messages.list')).toEqual([]);
  });

  it('loads app info and the first page', async () => {
    const t = setup();
    t.inspector.start();
    expect(t.state().loadingFirst).toBe(true);
    const list = t.api.take('messages.list');
    expect(list.request).toEqual({ limit: 200 });
    list.resolve({ messages: [msg(2), msg(1)], next: null });
    await tick();
    await tick();
    expect(t.state().loadingFirst).toBe(false);
    expect(t.state().info?.sources[0]?.writeKey).toBe('wk');
    expect(ids(t.inspector)).toEqual([2, 1]);
    expect(t.state().list.loaded).toBe(true);
  });

  it('queues a burst of stored ids, fetches their summaries, and applies them in one set per frame', async () => {
    const t = await started();
    t.api.emit({ type: 'messages.stored', ids: [3, 4] });
    t.api.emit({ type: 'messages.stored', ids: [5] });
    // One byIds call in flight at a time; ids that arrive meanwhile wait for the next.
    const first = t.api.take('messages.byIds');
    expect(first.request).toEqual({ ids: [3, 4] });
    first.resolve({ messages: [msg(4), msg(3)] });
    await tick();
    const second = t.api.take('messages.byIds');
    expect(second.request).toEqual({ ids: [5] });
    second.resolve({ messages: [msg(5)] });
    await tick();
    expect(ids(t.inspector)).toEqual([2, 1]); // nothing applied until the frame
    const before = t.sets();
    await t.runFrame();
    expect(ids(t.inspector)).toEqual([5, 4, 3, 2, 1]);
    expect(t.sets() - before).toBe(1);
  });

  it('updates rows in place when deliveries change, once per frame', async () => {
    const t = await started([msg(2, { delivery: pendingDelivery(20), deliveryCount: 1 }), msg(1, { delivery: pendingDelivery(10), deliveryCount: 1 })]);
    const row1 = t.state().list.byId.get(1);
    t.api.emit({ type: 'deliveries.changed', changes: [{ deliveryId: 20, messageId: 2, status: 'retrying', attemptCount: 1, nextAttemptAt: 5, lastError: 'x', lastErrorCode: 'timeout', lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null }] });
    t.api.emit({ type: 'deliveries.changed', changes: [{ deliveryId: 20, messageId: 2, status: 'delivered', attemptCount: 2, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null }] });
    const before = t.sets();
    await t.runFrame();
    expect(t.sets() - before).toBe(1);
    expect(t.state().list.byId.get(2)!.delivery).toMatchObject({ status: 'delivered', attemptCount: 2 });
    expect(t.state().list.byId.get(1)).toBe(row1);
    expect(ids(t.inspector)).toEqual([2, 1]);
  });

  it('fetches a row again when a change applied on top of its fetch leaves it unsure (a delivery it does not know)', async () => {
    const t = await started();
    t.api.emit({ type: 'messages.stored', ids: [3] });
    // Message 3 has two deliveries; the row shows 31 (pending), and 30 (another destination) is unseen.
    t.api.take('messages.byIds').resolve({ messages: [msg(3, { delivery: pendingDelivery(31), deliveryCount: 2 })] });
    await tick();
    // 31 is delivered before the next frame: a delivered one ranks below the unseen 30 if that is still open.
    t.api.emit({ type: 'deliveries.changed', changes: [{ deliveryId: 31, messageId: 3, status: 'delivered', attemptCount: 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null }] });
    await t.runFrame();
    const again = t.api.take('messages.byIds');
    expect(again.request).toEqual({ ids: [3] });
    again.resolve({ messages: [msg(3, { delivery: { ...pendingDelivery(30), status: 'retrying', attemptCount: 1 }, deliveryCount: 2 })] });
    await t.runFrame();
    expect(t.state().list.byId.get(3)!.delivery).toMatchObject({ id: 30, status: 'retrying' });
  });

  it('applies changes that arrived while a row was being fetched on top of the fetched row', async () => {
    const t = await started();
    t.api.emit({ type: 'messages.stored', ids: [3] });
    const call = t.api.take('messages.byIds');
    // The core delivers message 3 before the answer to byIds arrives, and the answer was read before that.
    t.api.emit({ type: 'deliveries.changed', changes: [{ deliveryId: 30, messageId: 3, status: 'delivered', attemptCount: 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null }] });
    await t.runFrame(); // the change finds no row yet
    call.resolve({ messages: [msg(3, { delivery: pendingDelivery(30), deliveryCount: 1 })] });
    await t.runFrame();
    expect(t.state().list.byId.get(3)!.delivery).toMatchObject({ status: 'delivered', attemptCount: 1 });
  });

  it('pause holds new rows back (counting them) while deliveries still update; resume shows them', async () => {
    const t = await started([msg(2, { delivery: pendingDelivery(20), deliveryCount: 1 }), msg(1)]);
    t.inspector.setPaused(true);
    t.api.emit({ type: 'messages.stored', ids: [3, 4] });
    t.api.emit({ type: 'deliveries.changed', changes: [{ deliveryId: 20, messageId: 2, status: 'delivered', attemptCount: 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null }] });
    await t.runFrame();
    expect(t.api.pending('messages.byIds')).toHaveLength(0);
    expect(t.state().held).toBe(2);
    expect(ids(t.inspector)).toEqual([2, 1]);
    expect(t.state().list.byId.get(2)!.delivery!.status).toBe('delivered');
    t.inspector.setPaused(false);
    expect(t.state().held).toBe(0);
    t.api.take('messages.byIds').resolve({ messages: [msg(4), msg(3)] });
    await t.runFrame();
    expect(ids(t.inspector)).toEqual([4, 3, 2, 1]);
  });

  it('a long pause counts what it holds back, and resuming after many reloads the first page instead of fetching each', async () => {
    const t = await started();
    t.inspector.setPaused(true);
    for (let from = 3; from < 20_003; from += 5_000) t.api.emit({ type: 'messages.stored', ids: Array.from({ length: 5_000 }, (_, i) => from + i) });
    await t.runFrame();
    expect(t.state().held).toBe(20_000);
    t.inspector.setPaused(false);
    expect(t.state().held).toBe(0);
    expect(t.api.pending('messages.byIds')).toHaveLength(0);
    expect(t.api.take('messages.list').request).toEqual({ limit: 200 });
  });

  it('filters: asks the core, keeps live rows that match, and fetches a row whose delivery comes to match', async () => {
    const t = await started();
    t.inspector.setFilters({ status: 'failed' });
    const list = t.api.take('messages.list');
    expect(list.request).toEqual({ limit: 200, status: 'accepted', delivery: 'failed' });
    list.resolve({ messages: [msg(1, { delivery: { ...pendingDelivery(10), status: 'failed', attemptCount: 1 }, deliveryCount: 1 })], next: null });
    await tick();
    expect(ids(t.inspector)).toEqual([1]);
    // A new message (pending) does not match; later its delivery fails: it is fetched and shown.
    t.api.emit({ type: 'messages.stored', ids: [3] });
    t.api.take('messages.byIds').resolve({ messages: [msg(3, { delivery: pendingDelivery(30), deliveryCount: 1 })] });
    await t.runFrame();
    expect(ids(t.inspector)).toEqual([1]);
    t.api.emit({ type: 'deliveries.changed', changes: [{ deliveryId: 30, messageId: 3, status: 'failed', attemptCount: 1, nextAttemptAt: null, lastError: 'e', lastErrorCode: 'connect', lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null }] });
    await t.runFrame();
    const refetch = t.api.take('messages.byIds');
    expect(refetch.request).toEqual({ ids: [3] });
    refetch.resolve({ messages: [msg(3, { delivery: { ...pendingDelivery(30), status: 'failed', attemptCount: 1 }, deliveryCount: 1 })] });
    await t.runFrame();
    expect(ids(t.inspector)).toEqual([3, 1]);
  });

  it('a jump applies the delivery changes that arrive while its page is on its way, and pages above it the same', async () => {
    const t = await started();
    const change = (deliveryId: number, messageId: number) => ({ deliveryId, messageId, status: 'delivered', attemptCount: 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null });
    t.inspector.jump({ offset: 500 });
    const page = t.api.take('messages.list');
    expect(page.request).toEqual({ offset: 500, limit: 200 });
    t.api.emit({ type: 'deliveries.changed', changes: [change(20, 2)] }); // finding the position takes a while
    await t.runFrame(); // applied to the list as it is (without the row): only the change log keeps it
    page.resolve({ messages: [msg(2, { delivery: pendingDelivery(20), deliveryCount: 1 })], next: null, newer: 2, position: 500 });
    await t.runFrame();
    expect(t.state().list.byId.get(2)!.delivery!.status).toBe('delivered');
    expect(t.state().jumped).toEqual({ to: 'position', newer: 2, base: 500 });
    t.inspector.loadNewer();
    const above = t.api.take('messages.list');
    expect(above.request).toEqual({ afterId: 2, limit: 500 });
    t.api.emit({ type: 'deliveries.changed', changes: [change(40, 4)] });
    await t.runFrame();
    above.resolve({ messages: [msg(4, { delivery: pendingDelivery(40), deliveryCount: 1 })], next: null, newer: 4 });
    await t.runFrame();
    expect(t.state().list.byId.get(4)!.delivery!.status).toBe('delivered');
    expect(t.state().jumped).toEqual({ to: 'position', newer: 4, base: 499 }); // one row above: one place nearer the newest
  });

  it('drops answers to a query that a newer filter replaced', async () => {
    const t = await started();
    t.inspector.setFilters({ type: 'page' });
    t.inspector.setFilters({ type: 'identify' });
    const [stale, current] = [t.api.take('messages.list'), t.api.take('messages.list')];
    current.resolve({ messages: [msg(7, { type: 'identify' })], next: null });
    await tick();
    stale.resolve({ messages: [msg(8, { type: 'page' })], next: null });
    await tick();
    expect(ids(t.inspector)).toEqual([7]);
    t.inspector.clearFilters();
    expect(t.state().filters).toEqual({ type: null, status: null, sourceId: null, search: '', time: { kind: 'all' } });
    expect(t.api.take('messages.list').request).toEqual({ limit: 200 });
  });

  it('pages older rows from the cursor', async () => {
    const t = await started([msg(10), msg(9)], 9);
    t.inspector.loadOlder();
    t.inspector.loadOlder(); // one at a time
    const older = t.api.take('messages.list');
    expect(t.api.pending('messages.list')).toHaveLength(0);
    expect(older.request).toEqual({ limit: 500, beforeId: 9 });
    older.resolve({ messages: [msg(8), msg(7)], next: null });
    await tick();
    expect(ids(t.inspector)).toEqual([10, 9, 8, 7]);
    expect(t.state().list.next).toBe(null);
    t.inspector.loadOlder();
    expect(t.api.pending('messages.list')).toHaveLength(0);
  });

  it('moves the selection with the keyboard model and opens the detail, refreshing it when its deliveries change', async () => {
    const t = await started([msg(3), msg(2), msg(1)]);
    t.inspector.moveSelection(1);
    expect(t.state().selectedId).toBe(3);
    t.inspector.moveSelection(1);
    expect(t.state().selectedId).toBe(2);
    t.inspector.open(2);
    expect(t.state().detail).toMatchObject({ id: 2, loading: true, data: null });
    const get = t.api.take('messages.get');
    expect(get.request).toEqual({ id: 2 });
    get.resolve({ ...msg(2), raw: '{}', message: {}, deliveries: [] });
    await tick();
    expect(t.state().detail).toMatchObject({ id: 2, loading: false, data: { id: 2 } });
    t.api.emit({ type: 'deliveries.changed', changes: [{ deliveryId: 20, messageId: 2, status: 'delivered', attemptCount: 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null }] });
    await t.runFrame();
    await new Promise((r) => setTimeout(r, 300));
    expect(t.api.take('messages.get').request).toEqual({ id: 2 });
  });

  it('says what failed when the list cannot load', async () => {
    const t = setup();
    t.inspector.start();
    t.api.take('messages.list').fail('internal_error');
    await tick();
    expect(t.state().problem).toBe('Could not load messages: internal_error happened');
  });

  it('reloads everything after a reconnect (events may have been missed)', async () => {
    const t = await started();
    t.api.setState({ kind: 'reconnecting', retryAt: 0, attempt: 1, reason: 'lost' });
    expect(t.state().connection.kind).toBe('reconnecting');
    t.api.setState({ kind: 'open' });
    const reload = t.api.take('messages.list');
    reload.resolve({ messages: [msg(5), msg(2), msg(1)], next: null });
    await tick();
    expect(ids(t.inspector)).toEqual([5, 2, 1]);
  });

  it("reads a running bulk replay's deliveries again after a reconnect, so its progress can finish", async () => {
    const t = await started();
    const replay = replayStore(t.inspector);
    replay.setState({ bulk: { label: 'the 2 failed deliveries', messages: 2, deliveryIds: [100, 101] } });
    const change = (deliveryId: number, status: string) => ({ deliveryId, messageId: deliveryId, status, attemptCount: 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'replay', targetUrl: null });
    t.api.emit({ type: 'deliveries.changed', changes: [change(100, 'delivered')] });
    const progress = () => countProgress([100, 101], replay.getState().deliveries);
    expect(progress()).toMatchObject({ delivered: 1, pending: 1, done: false });
    // 101 is delivered while the connection is down: its event is never seen.
    t.api.setState({ kind: 'reconnecting', retryAt: 0, attempt: 1, reason: 'lost' });
    t.api.setState({ kind: 'open' });
    const read = t.api.take('deliveries.states');
    expect(read.request).toEqual({ ids: [100, 101] });
    read.resolve({ changes: [change(100, 'delivered'), change(101, 'delivered')] });
    await tick();
    expect(progress()).toMatchObject({ delivered: 2, pending: 0, done: true });
  });

  it('keeps a bounded set of rows loaded on a long live run: the newest and those around the view; the rest stay listed and are fetched again when shown', async () => {
    const t = await started([], null);
    const loaded = () => t.state().list.byId;
    await arrive(t, 1, 8000);
    expect(t.state().list.order).toHaveLength(8000);
    expect(loaded().size).toBe(LOADED_NEWEST); // 8,000 loaded went over the budget: back to the newest 5,000
    expect(loaded().has(8000) && loaded().has(3001)).toBe(true);
    expect(loaded().has(3000)).toBe(false);

    // The user scrolls to rows 7,000–7,049 (ids 1000…951): the rows around them that were let go are fetched
    // (and a few ahead), and come back in place, in one frame.
    const order = t.state().list.order;
    t.inspector.showing(7000, 7050);
    const call = t.api.take('messages.byIds');
    const asked = call.request.ids as number[];
    expect(asked).toContain(1000);
    expect(asked).toContain(951);
    expect(asked.length).toBeLessThan(600);
    t.inspector.showing(7000, 7050); // asked again meanwhile: nothing asked twice
    expect(t.api.pending('messages.byIds')).toHaveLength(0);
    call.resolve({ messages: asked.map((id) => msg(id)) });
    await tick();
    await t.runFrame();
    expect(t.state().list.order).toBe(order);
    expect(loaded().get(1000)).toMatchObject({ id: 1000 });

    // The stream goes on while the user reads there: the rows in view stay loaded, the heap does not grow.
    for (let from = 8001; from <= 20_000; from += 1000) await arrive(t, from, from + 999);
    expect(t.state().list.order).toHaveLength(20_000);
    expect(loaded().has(1000) && loaded().has(951) && loaded().has(20_000)).toBe(true);
    expect(loaded().has(8000)).toBe(false);
    expect(loaded().size).toBeLessThanOrEqual(LOADED_NEWEST + 50 + 2 * LOADED_AROUND_VIEW + 2000);
  });

  it('drops the oldest listed rows past the cap (to be paged in again), but not the ones the user is reading', async () => {
    const t = await started([], null);
    await arrive(t, 1, 10_000);
    t.inspector.showing(9000, 9050); // reading ids 1000…951, far down
    const call = t.api.take('messages.byIds');
    call.resolve({ messages: (call.request.ids as number[]).map((id) => msg(id)) });
    await tick();
    await t.runFrame();
    for (let from = 10_001; from <= MAX_ROWS + 10_000; from += 5000) await arrive(t, from, from + 4999);
    // Past the cap, but the rows in view (and those below them, up to the margin) stay listed and loaded.
    expect(t.state().list.order.length).toBe(MAX_ROWS + 10_000);
    expect(t.state().list.byId.get(951)).toMatchObject({ id: 951 });
    // Back at the top: the oldest go, down to the cap, and the cursor pages them in again.
    t.inspector.showing(0, 50);
    await arrive(t, MAX_ROWS + 10_001, MAX_ROWS + 15_000);
    expect(t.state().list.order.length).toBe(MAX_ROWS);
    expect(t.state().list.order[0]).toBe(MAX_ROWS + 15_000);
    expect(t.state().list.next).toBe(15_001);
    expect(t.state().list.byId.has(951)).toBe(false);
  });

  it('measures the live rate from stored ids', async () => {
    const t = await started();
    t.api.emit({ type: 'messages.stored', ids: Array.from({ length: 30 }, (_, i) => 100 + i) });
    t.advance(1000);
    t.api.emit({ type: 'messages.stored', ids: Array.from({ length: 60 }, (_, i) => 200 + i) });
    t.advance(1000);
    t.inspector.tick();
    expect(t.state().rate).toBe(30); // (30 + 60 + 0) / 3
  });
});
