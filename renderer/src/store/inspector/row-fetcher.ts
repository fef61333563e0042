import type { MessageSummary } from '../../../../shared/contract.ts';
import { DISCONNECTED, type RelayApi } from '../../transport/relay-api.ts';
import type { ChangeLog } from './change-log.ts';
import type { Environment } from './state.ts';

/** `messages.byIds` takes at most this many ids per call. */
const BY_IDS_MAX = 5000;

/** Rows fetched by id, for the frame to apply: the query they were asked for, and the change log's number when they were. */
export interface FetchedRows {
  rows: MessageSummary[];
  sentSeq: number;
  query: number;
}

export interface RowFetcherDeps {
  api: RelayApi;
  env: Environment;
  changeLog: ChangeLog;
  /** The query the rows are asked for now (the frame drops answers to an older one). */
  query: () => number;
  /** The stream's search now: each row comes back saying whether it matches (the core tests the payload). */
  search: () => string;
  disposed: () => boolean;
  /** An answer, to be applied on the next frame. */
  onRows: (fetched: FetchedRows) => void;
  /** Ids that could not be read twice (not for a lost connection: the reload on reconnect reads them). */
  onFailed: (count: number, message: string) => void;
}

/** How long a failed read waits before it is asked once more. */
export const REFETCH_DELAY_MS = 1_000;

/**
 * Fetches rows' summaries by id: live ids, rows a change left unsure, rows scrolled back into view.
 * One `messages.byIds` call at a time (ids queue meanwhile, 5,000 a call), each id asked for once
 * while its answer is awaited. Ids asked for to fill the view are "restoring": loaded again if still
 * listed, never added as new rows.
 */
export class RowFetcher {
  readonly #toFetch: number[] = [];
  readonly #awaited = new Set<number>();
  /** Ids fetched to fill the view: loaded again if still listed, never added as new rows. */
  readonly #restoring = new Set<number>();
  #fetching = false;
  /** Ids whose read failed once (a timeout, an internal error) and were asked again. */
  readonly #retried = new Set<number>();
  readonly #deps: RowFetcherDeps;

  constructor(deps: RowFetcherDeps) {
    this.#deps = deps;
  }

  /** Fetches summaries of these ids (one `messages.byIds` call at a time; ids queue meanwhile). */
  fetch(ids: readonly number[]): void {
    for (const id of ids) {
      if (this.#awaited.has(id)) continue;
      this.#awaited.add(id);
      this.#toFetch.push(id);
    }
    void this.#pump();
  }

  /** Fetches listed rows that were let go, to show them again. */
  restore(ids: readonly number[]): void {
    for (const id of ids) this.#restoring.add(id);
    this.fetch(ids);
  }

  isAwaited(id: number): boolean {
    return this.#awaited.has(id);
  }

  /** The ids being restored, for `addRows` (null when there are none). */
  restoreOnly(): ReadonlySet<number> | null {
    return this.#restoring.size > 0 ? this.#restoring : null;
  }

  /** These rows have been applied: nothing left to restore for them. */
  restored(rows: readonly MessageSummary[]): void {
    if (this.#restoring.size > 0) for (const row of rows) this.#restoring.delete(row.id);
  }

  /** A new query: nothing queued, awaited or restoring is wanted any more. */
  reset(): void {
    this.#toFetch.length = 0;
    this.#awaited.clear();
    this.#restoring.clear();
    this.#retried.clear();
  }

  /**
   * A read that failed (a timeout, an internal error) is asked once more a moment later, then said: before
   * 2026-12-01 its rows were dropped without a word, missing from the list while the counts had them.
   */
  #failed(ids: readonly number[], message: string, forQuery: number): void {
    const again = ids.filter((id) => !this.#retried.has(id));
    const given = ids.length - again.length;
    if (given > 0) this.#deps.onFailed(given, message);
    if (again.length === 0) return;
    for (const id of again) this.#retried.add(id);
    setTimeout(() => {
      if (this.#deps.disposed() || this.#deps.query() !== forQuery) return;
      this.fetch(again);
    }, REFETCH_DELAY_MS);
  }

  async #pump(): Promise<void> {
    const { api, env, changeLog, disposed } = this.#deps;
    if (this.#fetching || this.#toFetch.length === 0 || disposed()) return;
    this.#fetching = true;
    try {
      while (this.#toFetch.length > 0 && !disposed()) {
        const ids = this.#toFetch.splice(0, BY_IDS_MAX);
        const forQuery = this.#deps.query();
        const request = changeLog.begin();
        const search = this.#deps.search();
        const result = await api.invoke('messages.byIds', search ? { ids, search } : { ids });
        for (const id of ids) this.#awaited.delete(id);
        if (this.#restoring.size > 0) {
          // Ids asked for that did not come back (or no answer): nothing left to restore for them.
          const got = new Set(result.ok ? result.value.messages.map((m) => m.id) : []);
          for (const id of ids) if (!got.has(id)) this.#restoring.delete(id);
        }
        if (result.ok) {
          this.#deps.onRows({ rows: result.value.messages, sentSeq: request.seq, query: forQuery });
          if (this.#retried.size > 0) for (const id of ids) this.#retried.delete(id); // read: a later failure is asked again
        }
        else if (result.error.code !== DISCONNECTED) this.#failed(ids, result.error.message, forQuery);
        // Kept until the frame has applied the changes logged since this request was sent.
        env.requestFrame(() => changeLog.end(request.id));
      }
    } finally {
      this.#fetching = false;
    }
  }
}
