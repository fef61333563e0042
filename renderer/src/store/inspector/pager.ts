import type { Result } from '../../../../shared/contract.ts';
import type { RelayApi } from '../../transport/relay-api.ts';
import { listQuery } from '../filters.ts';
import { addPage, addRows, applyDeliveryChanges, emptyList, type ListModel } from '../model.ts';
import type { Counts } from './counts.ts';
import type { ChangeLog } from './change-log.ts';
import type { FrameQueue } from './frame-queue.ts';
import type { RowFetcher } from './row-fetcher.ts';
import type { Environment, InspectorStore } from './state.ts';

export const FIRST_PAGE = 200;
export const OLDER_PAGE = 500;

export interface PagerDeps {
  api: RelayApi;
  store: InspectorStore;
  env: Environment;
  changeLog: ChangeLog;
  fetcher: RowFetcher;
  queue: FrameQueue;
  counts: Counts;
  /** The list is live again after a jump: the messages stored meanwhile are fetched as live ones. */
  live: () => void;
  disposed: () => boolean;
}

/**
 * The query and its pages (`messages.list`): the first page of the filters (a new query: answers to
 * older ones are dropped), then older pages from the core's cursor, one at a time. Changes logged
 * while a page was in flight are applied again on top of it.
 */
export class Pager {
  #query = 0;
  readonly #deps: PagerDeps;

  constructor(deps: PagerDeps) {
    this.#deps = deps;
  }

  /** The query now: a filter change starts a new one. */
  get query(): number {
    return this.#query;
  }

  /** Starts a new query: the list empties and its first page is asked for. */
  async first(): Promise<void> {
    const { api, store, env, changeLog, fetcher, queue, disposed } = this.#deps;
    const forQuery = ++this.#query;
    fetcher.reset();
    queue.dropRows();
    store.setState({ list: emptyList(), loadingFirst: true, loadingOlder: false, loadingNewer: false, jumped: null });
    void this.#deps.counts.refresh(true);
    const request = changeLog.begin();
    const result = await api.invoke('messages.list', { ...listQuery(store.getState().filters, env.now()), limit: FIRST_PAGE });
    if (disposed() || forQuery !== this.#query) return changeLog.end(request.id);
    if (!result.ok) {
      changeLog.end(request.id);
      store.setState({ loadingFirst: false, problem: `Could not load messages: ${result.error.message}` });
      return;
    }
    const replayed = applyDeliveryChanges(addPage(store.getState().list, result.value.messages, result.value.next), changeLog.since(request.seq));
    const list = replayed.list;
    changeLog.end(request.id);
    store.setState({ list, loadingFirst: false, problem: null });
    if (replayed.refetch.length > 0) fetcher.fetch(replayed.refetch);
    this.#searchOn(list);
  }

  /** The next older page, unless one is loading or there is none. */
  async older(): Promise<void> {
    const { api, store, env, changeLog, fetcher, disposed } = this.#deps;
    const state = store.getState();
    if (state.loadingFirst || state.loadingOlder || state.list.next === null || !state.list.loaded) return;
    const forQuery = this.#query;
    store.setState({ loadingOlder: true });
    const request = changeLog.begin();
    const result = await api.invoke('messages.list', { ...listQuery(state.filters, env.now()), limit: OLDER_PAGE, beforeId: state.list.next });
    if (disposed() || forQuery !== this.#query) return changeLog.end(request.id);
    if (!result.ok) {
      changeLog.end(request.id);
      store.setState({ loadingOlder: false, problem: `Could not load older messages: ${result.error.message}` });
      return;
    }
    const replayed = applyDeliveryChanges(addPage(store.getState().list, result.value.messages, result.value.next), changeLog.since(request.seq));
    const list = replayed.list;
    changeLog.end(request.id);
    store.setState({ list, loadingOlder: false });
    if (replayed.refetch.length > 0) fetcher.fetch(replayed.refetch);
    this.#searchOn(list);
  }

  /**
   * Starts the list away from the newest message: at the oldest matches (their last page) or at the
   * newest message received at or before a time. Live rows then wait above it (`jumped`); the pages
   * above are read as the view reaches its top (`newer`), or the list goes back to the newest (first()).
   */
  async jump(to: 'oldest' | number | { offset: number }): Promise<void> {
    const { api, store, env, changeLog, fetcher, queue, disposed } = this.#deps;
    const forQuery = ++this.#query;
    const kind = to === 'oldest' ? 'oldest' : typeof to === 'number' ? to : 'position';
    fetcher.reset();
    queue.dropRows();
    // A position keeps the list's place while its page loads (the scrollbar stays where it was dragged).
    const base = typeof to === 'object' ? to.offset : null;
    store.setState({ list: emptyList(), loadingFirst: true, loadingOlder: false, loadingNewer: false, jumped: { to: kind, newer: null, base } });
    const query = listQuery(store.getState().filters, env.now());
    let where: { offset: number } | { at: number };
    if (to === 'oldest') {
      const counted = await untilAnswered(() => api.invoke('messages.count', query));
      if (disposed() || forQuery !== this.#query) return;
      if (!counted.ok) return this.#jumpFailed(counted.error.message);
      where = { offset: Math.max(0, counted.value.matching - FIRST_PAGE) };
    } else if (typeof to === 'number') where = { at: to };
    else where = to;
    // Delivery changes while the page is on its way (finding a position can take seconds) are applied on it.
    const request = changeLog.begin();
    const result = await untilAnswered(() => api.invoke('messages.list', { ...query, ...where, limit: FIRST_PAGE }));
    if (disposed() || forQuery !== this.#query) return changeLog.end(request.id);
    if (!result.ok) {
      changeLog.end(request.id);
      return this.#jumpFailed(result.error.message);
    }
    const replayed = applyDeliveryChanges(addPage(store.getState().list, result.value.messages, result.value.next), changeLog.since(request.seq));
    changeLog.end(request.id);
    store.setState({ list: replayed.list, loadingFirst: false, problem: null, jumped: { to: kind, newer: result.value.newer ?? null, base: result.value.position ?? null } });
    if (replayed.refetch.length > 0) fetcher.fetch(replayed.refetch);
  }

  /** A jump that could not be made: the newest messages again, and why. */
  async #jumpFailed(why: string): Promise<void> {
    await this.first();
    this.#deps.store.setState({ problem: `Could not go there: ${why}` });
  }

  /** After a jump: the page just newer than the list's top; back at the newest, the list is live again. */
  async newer(): Promise<void> {
    const { api, store, env, changeLog, fetcher, disposed } = this.#deps;
    const state = store.getState();
    if (!state.jumped || state.jumped.newer === null || state.loadingFirst || state.loadingNewer) return;
    const forQuery = this.#query;
    store.setState({ loadingNewer: true });
    const request = changeLog.begin();
    const result = await api.invoke('messages.list', { ...listQuery(state.filters, env.now()), afterId: state.jumped.newer, limit: OLDER_PAGE });
    if (disposed() || forQuery !== this.#query) return changeLog.end(request.id);
    if (!result.ok) {
      changeLog.end(request.id);
      store.setState({ loadingNewer: false, problem: `Could not load newer messages: ${result.error.message}` });
      return;
    }
    const before = store.getState().list.order.length;
    const replayed = applyDeliveryChanges(addRows(store.getState().list, result.value.messages, null), changeLog.since(request.seq));
    changeLog.end(request.id);
    if (replayed.refetch.length > 0) fetcher.fetch(replayed.refetch);
    const list = replayed.list;
    const top = result.value.newer ?? null;
    // The rows above came in: the list's first row is that many places nearer the newest.
    const base = state.jumped.base === null ? null : Math.max(0, state.jumped.base - (list.order.length - before));
    // Reached the newest: live again (rows that arrived meanwhile are fetched like live ones).
    store.setState({ list, loadingNewer: false, jumped: top === null ? null : { ...state.jumped, newer: top, base } });
    if (top === null) this.#deps.live();
  }

  /**
   * A page can come back empty with more to read: the core bounds how far one request scans (a
   * delivery-state filter over many messages that do not match). With nothing to show, nobody
   * scrolls to ask for more, so the next page is asked for here — until rows come or the end.
   */
  #searchOn(list: ListModel): void {
    if (list.order.length === 0 && list.next !== null) void this.older();
  }
}

/**
 * Asks again while the answer is "superseded": the core counts one question of a kind at a time, and
 * another window's newer one may take this one's place (a few times at most).
 */
async function untilAnswered<T>(ask: () => Promise<Result<T>>): Promise<Result<T>> {
  let result = await ask();
  for (let i = 0; i < 5 && !result.ok && result.error.code === 'superseded'; i++) result = await ask();
  return result;
}
