/**
 * The inspector's state (zustand, vanilla: no React here, so tests drive it in Node with a fake
 * transport and a manual frame clock). Core events are queued as they arrive and applied once per
 * animation frame in a single `set`, so a burst of thousands of messages costs one render.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type {
  Channel,
  CoreEvent,
  DestinationView,
  MessageDetail,
  MessageSummary,
  RequestOf,
  Responses,
  Result,
} from '../../../shared/contract.ts';
import type { ConnectionState, RelayApi } from '../transport/relay-api.ts';
import { browserFrameHost, requestFrameOrTimeout } from './frame.ts';
import { listQuery, NO_FILTERS, type Filters } from './filters.ts';
import {
  addPage,
  addRows,
  applyDeliveryChanges,
  dropExpired,
  emptyList,
  evictRows,
  neighbour,
  newerThan,
  trimList,
  type DeliveryChange,
  type ListModel,
} from './model.ts';
import { RateMeter } from './rate-meter.ts';

export const FIRST_PAGE = 200;
export const OLDER_PAGE = 500;
/**
 * Rows listed (ids, a number each); older ones are dropped and paged in again when scrolled to. The
 * rows the user is reading (and those around them) are not dropped while the list stays under
 * `MAX_ROWS_READING` — rows keep arriving above them.
 */
export const MAX_ROWS = 50_000;
export const MAX_ROWS_READING = 150_000;
/** Trimming waits for this many more rows, so the whole list is not copied once more for every batch at the cap. */
const TRIM_SLACK = 5000;
/**
 * Rows loaded (whole summaries): the newest ones, and those around the view. The others stay listed
 * and are fetched again by id when scrolled to, so the heap does not grow with a long live run.
 */
export const LOADED_NEWEST = 5000;
export const LOADED_AROUND_VIEW = 1000;
/** Rows beyond the view fetched ahead, so scrolling rarely meets rows still loading. */
const FETCH_AHEAD = 200;
/** Eviction runs once this many rows more than it keeps are loaded (not every frame). */
const EVICT_SLACK = 2000;
/** `messages.byIds` takes at most this many ids per call. */
const BY_IDS_MAX = 5000;
/** After a pause with more new messages than this, the list reloads instead of fetching each. */
const RELOAD_AFTER = 5000;

export interface DetailState {
  id: number;
  data: MessageDetail | null;
  error: string | null;
  loading: boolean;
}

export interface InspectorState {
  connection: ConnectionState;
  info: Responses['app.info'] | null;
  destinations: DestinationView[];
  /** A sentence when loading the app's info or the list failed. */
  problem: string | null;
  filters: Filters;
  list: ListModel;
  /** The list is loading its first page, or an older page. */
  loadingFirst: boolean;
  loadingOlder: boolean;
  /** Live rows are held back (the relay goes on); `held` messages arrived meanwhile. */
  paused: boolean;
  held: number;
  selectedId: number | null;
  detail: DetailState | null;
  /** Messages stored per second, recent. */
  rate: number;
}

export interface Environment {
  /** Runs `callback` before the next paint (a frame in a browser, or a timer while the page is hidden: see frame.ts). */
  requestFrame(callback: () => void): void;
  now(): number;
}

export interface Inspector {
  store: StoreApi<InspectorState>;
  /** Which transport carries the contract (shown in Settings). */
  readonly transport: RelayApi['kind'];
  start(): void;
  setFilters(patch: Partial<Filters>): void;
  clearFilters(): void;
  loadOlder(): void;
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

export function initialState(): InspectorState {
  return {
    connection: { kind: 'connecting' },
    info: null,
    destinations: [],
    problem: null,
    filters: NO_FILTERS,
    list: emptyList(),
    loadingFirst: true,
    loadingOlder: false,
    paused: false,
    held: 0,
    selectedId: null,
    detail: null,
    rate: 0,
  };
}

export function createInspector(api: RelayApi, env: Environment = browserEnvironment): Inspector {
  const store = createStore<InspectorState>()(() => initialState());
  const { getState, setState } = store;

  // Queues between frames (not state: nothing renders them).
  let queuedChanges: DeliveryChange[] = [];
  let arrived: { rows: MessageSummary[]; sentSeq: number; query: number }[] = [];
  const toFetch: number[] = [];
  const awaited = new Set<number>();
  let heldIds: number[] = [];
  let fetching = false;
  let frameRequested = false;
  let evictionScheduled = false;
  /** The newest and oldest ids in view (ids, not indexes: rows arriving above do not move them). */
  let view: { top: number; bottom: number } | null = null;
  /** Ids fetched to fill the view: loaded again if still listed, never added as new rows. */
  const restoring = new Set<number>();

  // Every change, numbered, kept while a fetch is in flight: a fetch's rows may predate changes that
  // arrived after it was sent, so those are applied again on top of them.
  let changeSeq = 0;
  let changeLog: { seq: number; change: DeliveryChange }[] = [];
  const inFlight = new Map<number, number>(); // request number → changeSeq when sent
  let requestNumber = 0;

  // A filter change starts a new query; answers to older ones are dropped.
  let query = 0;
  const rate = new RateMeter(3);
  let detailTimer: ReturnType<typeof setTimeout> | undefined;
  let detailRequest = 0;
  let wasOpen = false;
  let disposed = false;
  const offs: (() => void)[] = [];
  const eventListeners = new Set<(events: CoreEvent[]) => void>();

  function beginRequest(): { id: number; seq: number } {
    const id = ++requestNumber;
    inFlight.set(id, changeSeq);
    return { id, seq: changeSeq };
  }

  function endRequest(id: number): void {
    inFlight.delete(id);
    const oldest = Math.min(...inFlight.values());
    changeLog = inFlight.size === 0 ? [] : changeLog.filter((entry) => entry.seq > oldest);
  }

  function changesSince(seq: number): DeliveryChange[] {
    return changeLog.filter((entry) => entry.seq > seq).map((entry) => entry.change);
  }

  function requestFrame(): void {
    if (frameRequested || disposed) return;
    frameRequested = true;
    env.requestFrame(flush);
  }

  /** One frame's worth of work, in one `set`. */
  function flush(): void {
    frameRequested = false;
    if (disposed) return;
    const state = getState();
    let list = state.list;
    const refetch: number[] = [];
    for (const batch of arrived) {
      if (batch.query !== query) continue;
      list = addRows(list, batch.rows, state.filters, env.now(), restoring.size > 0 ? restoring : null);
      // Changes logged since the fetch went out, again on the fetched rows: a row they leave unsure
      // (deliveries it does not know) is fetched once more, as for a change applied below.
      const replayed = applyDeliveryChanges(list, changesSince(batch.sentSeq));
      list = replayed.list;
      refetch.push(...replayed.refetch);
      if (restoring.size > 0) for (const row of batch.rows) restoring.delete(row.id);
    }
    arrived = [];
    if (queuedChanges.length > 0) {
      const outcome = applyDeliveryChanges(list, queuedChanges);
      list = outcome.list;
      refetch.push(...outcome.refetch);
      // Filtering on a delivery state: a row that is not loaded may just have come to match it.
      const wanted = state.filters.status;
      if (wanted !== null && !state.paused) {
        for (const { messageId, status } of outcome.unloaded) if (status === wanted) refetch.push(messageId);
      }
      if (state.detail && queuedChanges.some((c) => c.messageId === state.detail!.id)) scheduleDetailRefresh();
      queuedChanges = [];
    }
    const reading = view ? newerThan(list.order, view.bottom - 1) + LOADED_AROUND_VIEW : 0;
    const listed = Math.min(MAX_ROWS_READING, Math.max(MAX_ROWS, reading));
    if (list.order.length > listed + TRIM_SLACK) list = trimList(list, listed);
    if (list !== state.list) setState({ list });
    if (list.byId.size > LOADED_NEWEST + EVICT_SLACK) scheduleEviction();
    if (refetch.length > 0) fetchRows(refetch);
  }

  /**
   * Eviction runs in a task of its own, after the frame: it changes no row in view, so it need not
   * lengthen the frame that shows the new rows.
   */
  function scheduleEviction(): void {
    if (evictionScheduled || disposed) return;
    evictionScheduled = true;
    setTimeout(() => {
      evictionScheduled = false;
      if (disposed) return;
      const list = getState().list;
      const kept = evict(list);
      if (kept !== list) setState({ list: kept });
    }, 0);
  }

  /** Unloads the rows that are neither among the newest nor around the view, once there are enough. */
  function evict(list: ListModel): ListModel {
    const keep: [number, number][] = [[0, LOADED_NEWEST]];
    let budget = LOADED_NEWEST;
    if (view) {
      const from = newerThan(list.order, view.top);
      const to = newerThan(list.order, view.bottom - 1);
      keep.push([from - LOADED_AROUND_VIEW, to + LOADED_AROUND_VIEW]);
      budget += to - from + 2 * LOADED_AROUND_VIEW;
    }
    return list.byId.size > budget + EVICT_SLACK ? evictRows(list, keep) : list;
  }

  /** Fetches summaries of these ids (one `messages.byIds` call at a time; ids queue meanwhile). */
  function fetchRows(ids: readonly number[]): void {
    for (const id of ids) {
      if (awaited.has(id)) continue;
      awaited.add(id);
      toFetch.push(id);
    }
    void pump();
  }

  async function pump(): Promise<void> {
    if (fetching || toFetch.length === 0 || disposed) return;
    fetching = true;
    try {
      while (toFetch.length > 0 && !disposed) {
        const ids = toFetch.splice(0, BY_IDS_MAX);
        const forQuery = query;
        const request = beginRequest();
        const result = await api.invoke('messages.byIds', { ids });
        for (const id of ids) awaited.delete(id);
        if (restoring.size > 0) {
          // Ids asked for that did not come back (or no answer): nothing left to restore for them.
          const got = new Set(result.ok ? result.value.messages.map((m) => m.id) : []);
          for (const id of ids) if (!got.has(id)) restoring.delete(id);
        }
        if (result.ok) {
          arrived.push({ rows: result.value.messages, sentSeq: request.seq, query: forQuery });
          requestFrame();
        }
        // Kept until the frame has applied the changes logged since this request was sent.
        env.requestFrame(() => endRequest(request.id));
      }
    } finally {
      fetching = false;
    }
  }

  function onEvents(events: CoreEvent[]): void {
    for (const listener of eventListeners) listener(events);
    for (const event of events) {
      switch (event.type) {
        case 'messages.stored':
          rate.record(env.now(), event.ids.length);
          if (getState().paused) {
            // Past RELOAD_AFTER, resuming reloads the first page: only the count is needed from there.
            for (const id of event.ids) if (heldIds.length <= RELOAD_AFTER) heldIds.push(id);
            setState({ held: getState().held + event.ids.length });
          } else {
            fetchRows(event.ids);
          }
          break;
        case 'deliveries.changed':
          for (const change of event.changes) {
            queuedChanges.push(change);
            if (inFlight.size > 0) changeLog.push({ seq: ++changeSeq, change });
          }
          requestFrame();
          break;
        case 'settings.changed':
          void loadInfo();
          break;
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

  async function loadFirstPage(): Promise<void> {
    const forQuery = ++query;
    toFetch.length = 0;
    awaited.clear();
    restoring.clear();
    arrived = [];
    setState({ list: emptyList(), loadingFirst: true, loadingOlder: false });
    const request = beginRequest();
    const result = await api.invoke('messages.list', { ...listQuery(getState().filters, env.now()), limit: FIRST_PAGE });
    if (disposed || forQuery !== query) return endRequest(request.id);
    if (!result.ok) {
      endRequest(request.id);
      setState({ loadingFirst: false, problem: `Could not load messages: ${result.error.message}` });
      return;
    }
    const replayed = applyDeliveryChanges(addPage(getState().list, result.value.messages, result.value.next), changesSince(request.seq));
    const list = replayed.list;
    endRequest(request.id);
    setState({ list, loadingFirst: false, problem: null });
    if (replayed.refetch.length > 0) fetchRows(replayed.refetch);
    searchOn(list);
  }

  /**
   * A page can come back empty with more to read: the core bounds how far one request scans (a
   * delivery-state filter over many messages that do not match). With nothing to show, nobody
   * scrolls to ask for more, so the next page is asked for here — until rows come or the end.
   */
  function searchOn(list: ListModel): void {
    if (list.order.length === 0 && list.next !== null) void loadOlder();
  }

  async function loadOlder(): Promise<void> {
    const state = getState();
    if (state.loadingFirst || state.loadingOlder || state.list.next === null || !state.list.loaded) return;
    const forQuery = query;
    setState({ loadingOlder: true });
    const request = beginRequest();
    const result = await api.invoke('messages.list', { ...listQuery(state.filters, env.now()), limit: OLDER_PAGE, beforeId: state.list.next });
    if (disposed || forQuery !== query) return endRequest(request.id);
    if (!result.ok) {
      endRequest(request.id);
      setState({ loadingOlder: false, problem: `Could not load older messages: ${result.error.message}` });
      return;
    }
    const replayed = applyDeliveryChanges(addPage(getState().list, result.value.messages, result.value.next), changesSince(request.seq));
    const list = replayed.list;
    endRequest(request.id);
    setState({ list, loadingOlder: false });
    if (replayed.refetch.length > 0) fetchRows(replayed.refetch);
    searchOn(list);
  }

  async function loadDetail(id: number): Promise<void> {
    const number = ++detailRequest;
    const result = await api.invoke('messages.get', { id });
    const current = getState().detail;
    if (disposed || number !== detailRequest || current?.id !== id) return;
    if (result.ok) setState({ detail: { id, data: result.value, error: null, loading: false } });
    else setState({ detail: { id, data: current.data, error: result.error.message, loading: false } });
  }

  function scheduleDetailRefresh(): void {
    if (detailTimer !== undefined) return;
    detailTimer = setTimeout(() => {
      detailTimer = undefined;
      const detail = getState().detail;
      if (detail) void loadDetail(detail.id);
    }, 250);
  }

  function onConnection(connection: ConnectionState): void {
    setState({ connection });
    if (connection.kind !== 'open') return;
    // After a reconnect events may have been missed: read everything again.
    if (wasOpen) {
      void loadInfo();
      void loadFirstPage();
      const detail = getState().detail;
      if (detail) void loadDetail(detail.id);
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
      void loadFirstPage();
    },
    setFilters(patch) {
      const filters = { ...getState().filters, ...patch };
      setState({ filters });
      void loadFirstPage();
    },
    clearFilters() {
      setState({ filters: NO_FILTERS });
      void loadFirstPage();
    },
    loadOlder() {
      void loadOlder();
    },
    showing(from, to) {
      const { order, byId } = getState().list;
      const first = Math.max(0, from);
      const last = Math.min(order.length, to) - 1;
      if (last < first) {
        view = null;
        return;
      }
      view = { top: order[first]!, bottom: order[last]! };
      const missing: number[] = [];
      for (let i = Math.max(0, first - FETCH_AHEAD); i < Math.min(order.length, last + 1 + FETCH_AHEAD); i++) {
        const id = order[i]!;
        if (!byId.has(id) && !awaited.has(id)) missing.push(id);
      }
      if (missing.length === 0) return;
      for (const id of missing) restoring.add(id);
      fetchRows(missing);
    },
    setPaused(paused) {
      if (getState().paused === paused) return;
      if (paused) {
        setState({ paused: true, held: 0 });
        return;
      }
      const ids = heldIds;
      const held = getState().held;
      heldIds = [];
      setState({ paused: false, held: 0 });
      if (held > RELOAD_AFTER) void loadFirstPage();
      else fetchRows(ids);
    },
    select(id) {
      setState({ selectedId: id });
    },
    moveSelection(delta) {
      const { list, selectedId } = getState();
      const id = neighbour(list.order, selectedId, delta);
      if (id === null) return;
      setState({ selectedId: id });
      if (list.order.length - list.order.indexOf(id) < 50) void loadOlder();
    },
    open(id) {
      if (id === null) {
        setState({ detail: null });
        return;
      }
      const current = getState().detail;
      setState({ selectedId: id, detail: { id, data: current?.id === id ? current.data : null, error: null, loading: true } });
      void loadDetail(id);
    },
    refreshDetail() {
      const detail = getState().detail;
      if (detail) void loadDetail(detail.id);
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
      clearTimeout(detailTimer);
      for (const off of offs.splice(0)) off();
    },
  };
  return inspector;
}
