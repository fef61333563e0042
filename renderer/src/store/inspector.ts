/**
 * The inspector's store (zustand, vanilla: no React here, so tests drive it in Node with a fake
 * transport and a manual frame clock). This file wires its pieces, each in inspector/:
 *
 * - frame-queue.ts: core events queued as they arrive and applied once per animation frame in a
 *   single `set`, so a burst of thousands of messages costs one render;
 * - row-fetcher.ts: rows fetched by id (`messages.byIds`), one call at a time;
 * - pager.ts: the query's first page and older pages (`messages.list`), and the jumps away from the newest;
 * - counts.ts: how many messages there are and how many match (`messages.count`);
 * - change-log.ts: the delivery changes seen while a fetch is in flight, applied again on its rows;
 * - list-window.ts: which rows stay listed and loaded (the newest, and those around the view);
 * - detail.ts: the open message's detail;
 * - violation-refresh.ts: the rows' violations read again in place after a re-check changed them;
 * - prune-refresh.ts: the rows retention or a clear removed leave the list;
 * - state.ts: the state, and what the store needs from its surroundings.
 */
import { createStore } from 'zustand/vanilla';
import type { Channel, CoreEvent, RequestOf, Responses, Result } from '../../../shared/contract.ts';
import type { ConnectionState, RelayApi } from '../transport/relay-api.ts';
import { browserFrameHost, requestFrameOrTimeout } from './frame.ts';
import { filtersOnDeliveries, hasFilters, matchesFilters, NO_FILTERS, type Filters } from './filters.ts';
import { dropExpired, neighbour, refreshRows } from './model.ts';
import { RateMeter } from './rate-meter.ts';
import { ChangeLog } from './inspector/change-log.ts';
import { DetailLoader, goneDetail } from './inspector/detail.ts';
import { FrameQueue } from './inspector/frame-queue.ts';
import { ListWindow } from './inspector/list-window.ts';
import { Counts } from './inspector/counts.ts';
import { Pager } from './inspector/pager.ts';
import { RowFetcher } from './inspector/row-fetcher.ts';
import { ViolationRefresh } from './inspector/violation-refresh.ts';
import { PruneRefresh } from './inspector/prune-refresh.ts';
import { initialState, type Environment, type InspectorState, type InspectorStore } from './inspector/state.ts';

export { FIRST_PAGE, OLDER_PAGE } from './inspector/pager.ts';
export { LOADED_AROUND_VIEW, LOADED_NEWEST, MAX_ROWS, MAX_ROWS_READING } from './inspector/list-window.ts';
export { initialState, type DetailState, type Environment, type InspectorState } from './inspector/state.ts';

/** After a pause with more new messages than this, the list reloads instead of fetching each. */
const RELOAD_AFTER = 5000;

export interface Inspector {
  store: InspectorStore;
  /** Which transport carries the contract (shown in Settings). */
  readonly transport: RelayApi['kind'];
  start(): void;
  setFilters(patch: Partial<Filters>): void;
  clearFilters(): void;
  loadOlder(): void;
  /** Starts the list at the oldest matches, at a time (ms), or at a position among the matches: live rows wait above it. */
  jump(to: 'oldest' | number | { offset: number }): void;
  /** After a jump: the page above the list's top. */
  loadNewer(): void;
  /** After a jump: the newest messages again, live. */
  backToNewest(): void;
  /**
   * The rows [from, to) of `list.order` are in view: rows that are not loaded are fetched, and rows
   * around them stay loaded. Call whenever the rows in view change.
   */
  showing(from: number, to: number): void;
  setPaused(paused: boolean): void;
  select(id: number | null): void;
  moveSelection(delta: number): void;
  open(id: number | null): void;
  refreshDetail(): void;
  /** Messages per second: call about once a second. */
  tick(): void;
  call<C extends Channel>(channel: C, request: RequestOf<C>): Promise<Result<Responses[C]>>;
  /** Every batch of core events as it arrives, for views with their own live data (composer queue, receiver inbox). */
  subscribe(listener: (events: CoreEvent[]) => void): () => void;
  dispose(): void;
}

const browserEnvironment: Environment = {
  requestFrame: (callback) => requestFrameOrTimeout(callback, browserFrameHost),
  now: () => Date.now(),
};

export function createInspector(api: RelayApi, env: Environment = browserEnvironment): Inspector {
  const store = createStore<InspectorState>()(() => initialState());
  const { getState, setState } = store;

  let disposed = false;
  const isDisposed = () => disposed;
  const changeLog = new ChangeLog();
  const listWindow = new ListWindow(store, isDisposed);
  const detail = new DetailLoader(api, store, isDisposed);
  const fetcher = new RowFetcher({
    api,
    env,
    changeLog,
    query: () => pager.query,
    search: () => getState().filters.search.trim(),
    disposed: isDisposed,
    onRows: (fetched) => queue.rows(fetched),
    onFailed: (count, message) =>
      setState({ problem: `Could not read ${count.toLocaleString('en')} message${count === 1 ? '' : 's'} that arrived (${message}): they are stored, but not in this list; reload the page to see them` }),
  });
  const queue = new FrameQueue({
    store,
    env,
    changeLog,
    fetcher,
    window: listWindow,
    query: () => pager.query,
    disposed: isDisposed,
    onDetailChanged: () => detail.refreshSoon(),
  });
  const counts = new Counts(api, store, env);
  /** Messages stored while the list was away from the newest (a jump): fetched once it is back. */
  let whileJumped: number[] = [];
  const pager = new Pager({
    api,
    store,
    env,
    changeLog,
    fetcher,
    queue,
    counts,
    live: () => {
      // Too many arrived to fetch one by one: the newest page again.
      if (whileJumped.length >= RELOAD_AFTER) void pager.first();
      else fetcher.fetch(whileJumped);
      whileJumped = [];
    },
    disposed: isDisposed,
  });
  const violationRefresh = new ViolationRefresh({ api, store, changeLog, fetcher, query: () => pager.query, disposed: isDisposed });
  const pruneRefresh = new PruneRefresh({ api, store, query: () => pager.query, reload: () => pager.first(), disposed: isDisposed });

  /** Ids stored while paused, fetched on resume (up to RELOAD_AFTER; past it the first page reloads). */
  let heldIds: number[] = [];
  const rate = new RateMeter(3);
  let wasOpen = false;
  const offs: (() => void)[] = [];
  const eventListeners = new Set<(events: CoreEvent[]) => void>();

  function onEvents(events: CoreEvent[]): void {
    for (const listener of eventListeners) listener(events);
    for (const event of events) {
      switch (event.type) {
        case 'messages.stored':
          rate.record(env.now(), event.ids.length);
          counts.arrived(event.ids);
          if (getState().jumped) {
            for (const id of event.ids) if (whileJumped.length < RELOAD_AFTER) whileJumped.push(id);
            // Unfiltered, every arrival is a row above the list's first: its position moves down with them.
            const { jumped, filters } = getState();
            if (jumped?.base != null && !hasFilters(filters)) setState({ jumped: { ...jumped, base: jumped.base + event.ids.length } });
          } else if (getState().paused) {
            // Past RELOAD_AFTER, resuming reloads the first page: only the count is needed from there.
            for (const id of event.ids) if (heldIds.length <= RELOAD_AFTER) heldIds.push(id);
            setState({ held: getState().held + event.ids.length });
          } else {
            fetcher.fetch(event.ids);
          }
          break;
        case 'deliveries.changed':
          for (const change of event.changes) changeLog.record(change);
          queue.changes(event.changes);
          // Filtering on delivery state: which messages match moves with their deliveries.
          if (filtersOnDeliveries(getState().filters)) counts.later();
          break;
        case 'settings.changed':
          void loadInfo();
          break;
        case 'store.reset': {
          // Every message was forgotten: the list starts again, and so does what was held back. Ids
          // start again from 1, so the open and selected messages went: a new message given their id
          // must not take their place.
          heldIds = [];
          const open = getState().detail;
          setState({ held: 0, selectedId: null, detail: open ? goneDetail(open.id, 'This message is no longer stored: the store was reset.') : null });
          counts.removed();
          void pager.first();
          break;
        }
        case 'plans.recheck':
          // A re-check that changed stored violations: the rows' badges are read again in place (on
          // resume, while paused), and the open detail too.
          if (event.progress.state !== 'running' && event.progress.changed > 0) {
            violationRefresh.request();
            detail.reload();
          }
          break;
        case 'storage.pruned':
          // Messages were pruned or cleared: the rows that went leave the list (on resume, while paused).
          // Counts first: the reload a prune may start asks for a count, read after the removal, to keep.
          counts.removed();
          pruneRefresh.request(event.report);
          break;
        case 'messages.purged':
          // A deletion request purged a user's messages: any rows may have gone, as after a clear.
          counts.removed();
          pruneRefresh.request({ reason: 'clear', messages: event.messages });
          break;
        case 'messages.pinned': {
          // Pinned or un-pinned (here or in another window): the rows say so in place; one the filters no
          // longer match (un-pinned under pinned:true) leaves the list.
          const { list, filters } = getState();
          const rows = event.ids.flatMap((id) => {
            const row = list.byId.get(id);
            if (!row) return [];
            const { pinned: _, ...rest } = row;
            return [event.pinned ? { ...rest, pinned: true as const } : rest];
          });
          const next = refreshRows(list, rows, (row) => matchesFilters(row, filters));
          if (next !== list) setState({ list: next });
          const open = getState().detail;
          if (open && event.ids.includes(open.id)) detail.reload();
          if (hasFilters(filters)) counts.later();
          break;
        }
        case 'receiver.received':
          break; // the receiver's inbox view is not part of this slice
      }
    }
  }

  async function loadInfo(): Promise<void> {
    const [info, destinations] = await Promise.all([api.invoke('app.info', {}), api.invoke('destinations.list', {})]);
    if (disposed) return;
    if (!info.ok) {
      setState({ problem: `Could not read Sluice's settings: ${info.error.message}` });
      return;
    }
    setState({ info: info.value, destinations: destinations.ok ? destinations.value.destinations : getState().destinations });
  }

  function onConnection(connection: ConnectionState): void {
    setState({ connection });
    if (connection.kind !== 'open') return;
    // After a reconnect events may have been missed: read everything again.
    if (wasOpen) {
      void loadInfo();
      void pager.first();
      detail.reload();
    }
    wasOpen = true;
  }

  const inspector: Inspector = {
    store,
    transport: api.kind,
    start() {
      offs.push(api.onEvents(onEvents));
      offs.push(api.onState(onConnection));
      void loadInfo();
      void pager.first();
    },
    setFilters(patch) {
      const filters = { ...getState().filters, ...patch };
      setState({ filters });
      void pager.first();
    },
    clearFilters() {
      setState({ filters: NO_FILTERS });
      void pager.first();
    },
    loadOlder() {
      void pager.older();
    },
    jump(to) {
      whileJumped = [];
      void pager.jump(to);
    },
    loadNewer() {
      void pager.newer();
    },
    backToNewest() {
      whileJumped = [];
      void pager.first();
    },
    showing(from, to) {
      const missing = listWindow.show(getState().list, from, to, (id) => fetcher.isAwaited(id));
      if (missing.length > 0) fetcher.restore(missing);
    },
    setPaused(paused) {
      if (getState().paused === paused) return;
      if (paused) {
        setState({ paused: true, held: 0 });
        return;
      }
      const ids = heldIds;
      const { held, list, filters } = getState();
      heldIds = [];
      // Rows whose deliveries changed while paused stayed listed: those the filters no longer match go now.
      const kept = hasFilters(filters) ? refreshRows(list, [...list.byId.values()], (row) => matchesFilters(row, filters, env.now())) : list;
      setState({ paused: false, held: 0, list: kept });
      if (held > RELOAD_AFTER) void pager.first();
      else fetcher.fetch(ids);
      violationRefresh.resumed();
      pruneRefresh.resumed();
    },
    select(id) {
      setState({ selectedId: id });
    },
    moveSelection(delta) {
      const { list, selectedId } = getState();
      const id = neighbour(list.order, selectedId, delta);
      if (id === null) return;
      setState({ selectedId: id });
      if (list.order.length - list.order.indexOf(id) < 50) void pager.older();
    },
    open(id) {
      if (id === null) {
        setState({ detail: null });
        return;
      }
      const current = getState().detail;
      setState({ selectedId: id, detail: { id, data: current?.id === id ? current.data : null, error: null, loading: true } });
      void detail.load(id);
    },
    refreshDetail() {
      detail.reload();
    },
    tick() {
      const next = Math.round(rate.rate(env.now()) * 10) / 10;
      if (next !== getState().rate) setState({ rate: next });
      // A sliding time range ("last 5 min"): rows it has left behind leave the list (not while paused: a frozen view).
      const { filters, list, paused } = getState();
      const kept = paused ? list : dropExpired(list, filters.time, env.now());
      if (kept !== list) setState({ list: kept });
    },
    call: (channel, request) => api.invoke(channel, request),
    subscribe(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },
    dispose() {
      disposed = true;
      counts.dispose();
      detail.dispose();
      for (const off of offs.splice(0)) off();
    },
  };
  return inspector;
}
