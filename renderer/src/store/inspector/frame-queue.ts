import { hasFilters, matchesFilters } from '../filters.ts';
import { addRows, applyDeliveryChanges, refreshRows, type DeliveryChange } from '../model.ts';
import type { ChangeLog } from './change-log.ts';
import type { ListWindow } from './list-window.ts';
import type { FetchedRows, RowFetcher } from './row-fetcher.ts';
import type { Environment, InspectorStore } from './state.ts';

export interface FrameQueueDeps {
  store: InspectorStore;
  env: Environment;
  changeLog: ChangeLog;
  fetcher: RowFetcher;
  window: ListWindow;
  /** The query now: fetched rows asked for an older one are dropped. */
  query: () => number;
  disposed: () => boolean;
  /** A change queued for the message whose detail is open. */
  onDetailChanged: () => void;
}

/**
 * What arrives between frames — fetched rows and delivery changes — queued (not state: nothing
 * renders it) and applied once per animation frame in a single `set`, so a burst of thousands of
 * messages costs one render.
 */
export class FrameQueue {
  #changes: DeliveryChange[] = [];
  #rows: FetchedRows[] = [];
  #frameRequested = false;
  readonly #deps: FrameQueueDeps;

  constructor(deps: FrameQueueDeps) {
    this.#deps = deps;
  }

  rows(fetched: FetchedRows): void {
    this.#rows.push(fetched);
    this.#requestFrame();
  }

  changes(changes: readonly DeliveryChange[]): void {
    for (const change of changes) this.#changes.push(change);
    this.#requestFrame();
  }

  /** A new query: rows fetched for the old one are not wanted. */
  dropRows(): void {
    this.#rows = [];
  }

  #requestFrame(): void {
    if (this.#frameRequested || this.#deps.disposed()) return;
    this.#frameRequested = true;
    this.#deps.env.requestFrame(() => this.#flush());
  }

  /** One frame's worth of work, in one `set`. */
  #flush(): void {
    this.#frameRequested = false;
    const { store, env, changeLog, fetcher, window } = this.#deps;
    if (this.#deps.disposed()) return;
    const state = store.getState();
    let list = state.list;
    const refetch: number[] = [];
    /** Rows that took a newer summary or a change: they are tested against the filters again. */
    const touched = new Set<number>();
    for (const batch of this.#rows) {
      if (batch.query !== this.#deps.query()) continue;
      list = addRows(list, batch.rows, state.filters, env.now(), fetcher.restoreOnly());
      // Changes logged since the fetch went out, again on the fetched rows: a row they leave unsure
      // (deliveries it does not know) is fetched once more, as for a change applied below.
      const replayed = applyDeliveryChanges(list, changeLog.since(batch.sentSeq));
      list = replayed.list;
      refetch.push(...replayed.refetch);
      for (const row of batch.rows) touched.add(row.id);
      for (const id of replayed.updated) touched.add(id);
      fetcher.restored(batch.rows);
    }
    this.#rows = [];
    const changes = this.#changes;
    if (changes.length > 0) {
      const outcome = applyDeliveryChanges(list, changes);
      list = outcome.list;
      refetch.push(...outcome.refetch);
      for (const id of outcome.updated) touched.add(id);
      // Filtering on a delivery state: a row that is not loaded may just have come to match it.
      const wanted = state.filters.status;
      if (wanted !== null && !state.paused) {
        for (const { messageId, status } of outcome.unloaded) if (status === wanted) refetch.push(messageId);
      }
      if (state.detail && changes.some((c) => c.messageId === state.detail!.id)) this.#deps.onDetailChanged();
      this.#changes = [];
    }
    // A listed row the filters no longer match (its delivery left the Status filter's state, a newer
    // summary says otherwise) leaves the list, as an un-pinned row does under pinned:true. Not while
    // paused: the list stays as it was, and is tested again on resume.
    // A row asked for again (its picture unsure) is tested when its answer lands: its guess here could
    // drop it for a frame and bring it back (a blink, its place lost).
    for (const id of refetch) touched.delete(id);
    if (touched.size > 0 && hasFilters(state.filters) && !state.paused) {
      const now = env.now();
      const rows = [...touched].flatMap((id) => list.byId.get(id) ?? []);
      list = refreshRows(list, rows, (row) => matchesFilters(row, state.filters, now));
    }
    list = window.capped(list);
    if (list !== state.list) store.setState({ list });
    window.evictSoon(list);
    if (refetch.length > 0) fetcher.fetch(refetch);
  }
}
