import { evictRows, newerThan, trimList, type ListModel } from '../model.ts';
import type { InspectorStore } from './state.ts';

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

/**
 * Which rows stay listed and which stay loaded: the newest, and those around the rows in view. It
 * remembers the view by ids (the newest and oldest shown), so rows arriving above do not move it.
 */
export class ListWindow {
  /** The newest and oldest ids in view (ids, not indexes: rows arriving above do not move them). */
  #view: { top: number; bottom: number } | null = null;
  #evictionScheduled = false;
  readonly #store: InspectorStore;
  readonly #disposed: () => boolean;

  constructor(store: InspectorStore, disposed: () => boolean) {
    this.#store = store;
    this.#disposed = disposed;
  }

  /**
   * The rows [from, to) of `list.order` are in view: remembers them, and answers the listed ids in
   * and around them (`FETCH_AHEAD`) that are neither loaded nor `awaited`.
   */
  show(list: ListModel, from: number, to: number, awaited: (id: number) => boolean): number[] {
    const { order, byId } = list;
    const first = Math.max(0, from);
    const last = Math.min(order.length, to) - 1;
    if (last < first) {
      this.#view = null;
      return [];
    }
    this.#view = { top: order[first]!, bottom: order[last]! };
    const missing: number[] = [];
    for (let i = Math.max(0, first - FETCH_AHEAD); i < Math.min(order.length, last + 1 + FETCH_AHEAD); i++) {
      const id = order[i]!;
      if (!byId.has(id) && !awaited(id)) missing.push(id);
    }
    return missing;
  }

  /** Drops the oldest listed rows past the cap — but not the ones being read, up to `MAX_ROWS_READING`. */
  capped(list: ListModel): ListModel {
    const reading = this.#view ? newerThan(list.order, this.#view.bottom - 1) + LOADED_AROUND_VIEW : 0;
    const listed = Math.min(MAX_ROWS_READING, Math.max(MAX_ROWS, reading));
    return list.order.length > listed + TRIM_SLACK ? trimList(list, listed) : list;
  }

  /**
   * Unloads the rows beyond the budget once enough are loaded: in a task of its own, after the frame
   * (it changes no row in view, so it need not lengthen the frame that shows the new rows).
   */
  evictSoon(list: ListModel): void {
    if (list.byId.size <= LOADED_NEWEST + EVICT_SLACK || this.#evictionScheduled || this.#disposed()) return;
    this.#evictionScheduled = true;
    setTimeout(() => {
      this.#evictionScheduled = false;
      if (this.#disposed()) return;
      const current = this.#store.getState().list;
      const kept = this.#evict(current);
      if (kept !== current) this.#store.setState({ list: kept });
    }, 0);
  }

  /** Unloads the rows that are neither among the newest nor around the view, once there are enough. */
  #evict(list: ListModel): ListModel {
    const keep: [number, number][] = [[0, LOADED_NEWEST]];
    let budget = LOADED_NEWEST;
    if (this.#view) {
      const from = newerThan(list.order, this.#view.top);
      const to = newerThan(list.order, this.#view.bottom - 1);
      keep.push([from - LOADED_AROUND_VIEW, to + LOADED_AROUND_VIEW]);
      budget += to - from + 2 * LOADED_AROUND_VIEW;
    }
    return list.byId.size > budget + EVICT_SLACK ? evictRows(list, keep) : list;
  }
}
