import type { PruneReport } from '../../../../shared/storage.ts';
import type { RelayApi } from '../../transport/relay-api.ts';
import { dropRows } from '../model.ts';
import { goneDetail, sameMessage } from './detail.ts';
import type { InspectorStore } from './state.ts';
import { REFRESH_CHUNK } from './violation-refresh.ts';

/** The oldest listed ids checked first after a prune; each further call checks this many times more (up to REFRESH_CHUNK). */
export const PRUNE_FIRST_CHECK = 200;

export interface PruneRefreshDeps {
  api: RelayApi;
  store: InspectorStore;
  /** The query now: a new one (filters changed, the list reloaded) ends the check. */
  query: () => number;
  /** Loads the list's first page again (a new query). */
  reload: () => Promise<void>;
  disposed: () => boolean;
}

/** What the stream hears of a removal: a prune's report, or a purge's (reason `clear`, nothing kept). */
export type RemovalNews = Pick<PruneReport, 'reason' | 'messages'> & Partial<Pick<PruneReport, 'keptPending' | 'keptPinned'>>;

/**
 * After messages were pruned, cleared (`storage.pruned`) or purged (`messages.purged`) the rows that went leave the list, cheaply:
 *
 * - retention prunes the oldest: the list's oldest ids are checked (`messages.byIds`, 200 first, then
 *   growing chunks) until the cut is passed. Retention keeps the pinned messages in what it prunes,
 *   and those still being delivered, and says how many: the rows still stored below the cut are at
 *   most those, so the cut is passed once more rows than that came back stored (none kept: the first
 *   chunk with a row still stored), or a whole chunk did (the kept rows are seldom that many in a
 *   row, and past the cut every row is: a list above the cut costs one call). The list keeps its scroll;
 * - a clear removes any rows (a source's, a filter's set): a list of at most 5,000 rows is checked in
 *   one call, a longer one loads its first page again. The open message and the selected one are
 *   checked too, listed or not (before a reload, which would not say they went): a message given
 *   their id later must not take their place.
 *
 * A list left empty with older pages to read loads again. The open message, if it went, says so.
 * While the stream is paused nothing changes: the check waits for `resumed()`.
 */
export class PruneRefresh {
  #wanted: 'oldest' | 'all' | null = null;
  /** How many messages the prunes not yet checked for kept in what they removed (pinned, or still being delivered). */
  #kept = 0;
  #running = false;
  readonly #deps: PruneRefreshDeps;

  constructor(deps: PruneRefreshDeps) {
    this.#deps = deps;
  }

  request(report: RemovalNews): void {
    if (report.messages === 0) return;
    this.#wanted = report.reason === 'clear' || this.#wanted === 'all' ? 'all' : 'oldest';
    // Each prune counts what it kept in the whole range it read, from the oldest: the sum bounds them all.
    this.#kept += (report.keptPending ?? 0) + (report.keptPinned ?? 0);
    void this.#run();
  }

  resumed(): void {
    void this.#run();
  }

  async #run(): Promise<void> {
    const { store, disposed } = this.#deps;
    if (this.#running || this.#wanted === null || disposed() || store.getState().paused) return;
    const kind = this.#wanted;
    const kept = this.#kept;
    this.#wanted = null;
    this.#kept = 0;
    this.#running = true;
    try {
      const order = store.getState().list.order;
      if (kind === 'all' && order.length > REFRESH_CHUNK) {
        await this.#checkOpen();
        await this.#deps.reload();
      } else if (kind === 'all') {
        // The rows (at most REFRESH_CHUNK: one call), then the open and selected messages on their own, by
        // identity (an id another message took since is gone too): added to the rows' call they could take
        // it past what one call takes, and were tested for being stored only.
        await this.#check([order], kept);
        await this.#checkOpen();
      } else await this.#check(null, kept);
    } finally {
      this.#running = false;
      if (this.#wanted !== null) void this.#run();
    }
  }

  /**
   * Checks `chunks` (or the oldest ids, in growing chunks, until more than `kept` rows, or a whole
   * chunk, came back still stored) and drops what went.
   */
  async #check(chunks: (readonly number[])[] | null, kept: number): Promise<void> {
    const { api, store, query, reload, disposed } = this.#deps;
    const forQuery = query();
    const order = store.getState().list.order;
    let end = order.length;
    let size = PRUNE_FIRST_CHECK;
    let stillStored = 0;
    for (let i = 0; chunks ? i < chunks.length : end > 0; i++) {
      if (store.getState().paused) {
        // Paused meanwhile: again on resume.
        this.#wanted = chunks ? 'all' : this.#wanted === 'all' ? 'all' : 'oldest';
        this.#kept += kept;
        return;
      }
      const start = Math.max(0, end - size);
      const ids = chunks ? chunks[i]! : order.slice(start, end);
      if (ids.length === 0) break;
      const result = await api.invoke('messages.byIds', { ids: [...ids] });
      if (disposed() || forQuery !== query() || !result.ok) return;
      const stored = new Set(result.value.messages.map((m) => m.id));
      const gone = ids.filter((id) => !stored.has(id));
      if (gone.length > 0) this.#drop(gone);
      // Below the cut only kept rows are still stored: past `kept` of them, the cut is in this chunk
      // and every newer row is stored. A chunk with none gone is past it too (or a run of kept rows
      // as long: reading on for those would read the whole list after every prune that kept many).
      stillStored += ids.length - gone.length;
      if (!chunks && (stillStored > kept || gone.length === 0)) break;
      end = start;
      size = Math.min(REFRESH_CHUNK, size * 4);
    }
    const { list } = store.getState();
    if (list.order.length === 0 && list.next !== null && forQuery === query()) await reload();
  }

  /** The open message's id (unless it is known gone) and the selected one's. */
  #openIds(): number[] {
    const { detail, selectedId } = this.#deps.store.getState();
    return [...new Set([detail && !detail.gone ? detail.id : null, selectedId])].filter((id) => id !== null);
  }

  /** Checks the open and the selected message (one call): each that went, or whose id another message took, is let go. */
  async #checkOpen(): Promise<void> {
    const { api, store, disposed } = this.#deps;
    const ids = this.#openIds();
    if (ids.length === 0) return;
    const result = await api.invoke('messages.byIds', { ids });
    if (disposed() || !result.ok) return;
    const found = new Map(result.value.messages.map((m) => [m.id, m]));
    const state = store.getState();
    const gone = ids.filter((id) => {
      const now = found.get(id);
      const shown = (state.detail?.id === id ? state.detail.data : null) ?? state.list.byId.get(id);
      return now === undefined || (shown !== undefined && !sameMessage(shown, now));
    });
    if (gone.length > 0) this.#drop(gone);
  }

  #drop(gone: number[]): void {
    const { store } = this.#deps;
    const state = store.getState();
    const goneSet = new Set(gone);
    const detail = state.detail && goneSet.has(state.detail.id) ? goneDetail(state.detail.id) : state.detail;
    store.setState({
      list: dropRows(state.list, gone),
      selectedId: state.selectedId !== null && goneSet.has(state.selectedId) ? null : state.selectedId,
      detail,
    });
  }
}
