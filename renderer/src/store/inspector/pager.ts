import type { RelayApi } from '../../transport/relay-api.ts';
import { listQuery } from '../filters.ts';
import { addPage, applyDeliveryChanges, emptyList, type ListModel } from '../model.ts';
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
    store.setState({ list: emptyList(), loadingFirst: true, loadingOlder: false });
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
   * A page can come back empty with more to read: the core bounds how far one request scans (a
   * delivery-state filter over many messages that do not match). With nothing to show, nobody
   * scrolls to ask for more, so the next page is asked for here — until rows come or the end.
   */
  #searchOn(list: ListModel): void {
    if (list.order.length === 0 && list.next !== null) void this.older();
  }
}
