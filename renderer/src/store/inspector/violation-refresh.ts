import type { RelayApi } from '../../transport/relay-api.ts';
import { filtersOnViolations, matchesViolationFilters } from '../filters.ts';
import { applyDeliveryChanges, refreshRows } from '../model.ts';
import type { ChangeLog } from './change-log.ts';
import type { RowFetcher } from './row-fetcher.ts';
import type { InspectorStore } from './state.ts';

/** `messages.byIds` takes at most this many ids per call. */
export const REFRESH_CHUNK = 5000;

export interface ViolationRefreshDeps {
  api: RelayApi;
  store: InspectorStore;
  changeLog: ChangeLog;
  fetcher: RowFetcher;
  /** The query now: a new one (filters changed, the list reloaded) makes the refresh pointless. */
  query: () => number;
  disposed: () => boolean;
}

/**
 * After a re-check changed stored violations, the rows' badges are read again (`messages.byIds`,
 * 5,000 ids a call, one call at a time) and updated in place: the list keeps its rows, its older
 * pages and its scroll. With the Violations or plan filter on, rows that no longer break a plan
 * leave the list (listed rows that are not loaded are read for that too). While the stream is
 * paused nothing changes: the refresh waits for `resumed()`.
 */
export class ViolationRefresh {
  #wanted = false;
  #running = false;
  readonly #deps: ViolationRefreshDeps;

  constructor(deps: ViolationRefreshDeps) {
    this.#deps = deps;
  }

  /** A re-check ended with changes: read the rows again (now, or on resume). */
  request(): void {
    this.#wanted = true;
    void this.#run();
  }

  /** The stream was resumed: a refresh asked for while paused runs now. */
  resumed(): void {
    void this.#run();
  }

  async #run(): Promise<void> {
    const { api, store, changeLog, fetcher, query, disposed } = this.#deps;
    if (this.#running || !this.#wanted || disposed() || store.getState().paused) return;
    this.#running = true;
    this.#wanted = false;
    try {
      const forQuery = query();
      const { list, filters } = store.getState();
      const ids = filtersOnViolations(filters) ? [...list.order] : [...list.byId.keys()];
      for (let i = 0; i < ids.length; i += REFRESH_CHUNK) {
        if (store.getState().paused) {
          this.#wanted = true; // paused meanwhile: again from the start on resume
          return;
        }
        const ticket = changeLog.begin();
        const result = await api.invoke('messages.byIds', { ids: ids.slice(i, i + REFRESH_CHUNK) });
        if (disposed() || forQuery !== query() || !result.ok) {
          changeLog.end(ticket.id);
          return;
        }
        const state = store.getState();
        const refreshed = refreshRows(state.list, result.value.messages, (row) => matchesViolationFilters(row, state.filters));
        // Delivery changes seen since the call went out, again on top of the rows it read.
        const replayed = applyDeliveryChanges(refreshed, changeLog.since(ticket.seq));
        changeLog.end(ticket.id);
        if (replayed.list !== state.list) store.setState({ list: replayed.list });
        if (replayed.refetch.length > 0) fetcher.fetch(replayed.refetch);
      }
    } finally {
      this.#running = false;
      if (this.#wanted) void this.#run();
    }
  }
}
