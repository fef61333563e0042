import type { RelayApi } from '../../transport/relay-api.ts';
import { hasFilters, listQuery } from '../filters.ts';
import type { Environment, InspectorStore } from './state.ts';

/** A recount waits this long after messages arrived or left, so a burst costs one. */
const SETTLE_MS = 1500;
/** …and at least this many times as long as the last count took (a count that reads every row must not keep a core busy). */
const REST_FACTOR = 4;

/**
 * "12,481 of 1,034,227": how many messages there are and how many the filters match
 * (`messages.count`, counted in the core's counting thread). Asked for with each new query; between
 * counts, messages that arrive add to the total (and to the matches when nothing filters), and a
 * recount follows once arrivals settle (a filter's matches among them are the core's to say).
 *
 * A count and the `messages.stored` events race: the counting thread may read a message before its
 * event reaches the page, or its answer may come after events it never saw. Each answer says the
 * newest id it holds (`newestId`): arrivals at or below it are in it already, those above are added,
 * whether their event came before the answer or after it.
 */
export class Counts {
  readonly #api: RelayApi;
  readonly #store: InspectorStore;
  readonly #env: Environment;
  #asked = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #lastMs = 0;
  /** The newest id the counts shown hold (an answer's `newestId`, then each arrival added); null: add every arrival. */
  #through: number | null = null;
  /** While a count is asked (null: none is): the ids stored meanwhile (each event's), added to its answer above its `newestId`. */
  #whileAsking: (readonly number[])[] | null = null;

  constructor(api: RelayApi, store: InspectorStore, env: Environment) {
    this.#api = api;
    this.#store = store;
    this.#env = env;
  }

  /**
   * Counts for the filters now (a newer ask wins: an older answer is dropped). `fresh`: the filters
   * changed, so the counts shown so far are another query's and go at once.
   */
  async refresh(fresh = false): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const asked = ++this.#asked;
    this.#whileAsking ??= [];
    this.#store.setState(fresh ? { counting: true, counts: null } : { counting: true });
    const started = Date.now();
    const result = await this.#api.invoke('messages.count', listQuery(this.#store.getState().filters, this.#env.now()));
    if (asked !== this.#asked) return;
    const arrivals = this.#whileAsking ?? [];
    this.#whileAsking = null;
    this.#lastMs = Date.now() - started;
    if (result.ok) {
      const { total, matching, newestId } = result.value;
      const all = !hasFilters(this.#store.getState().filters);
      let above = 0;
      this.#through = newestId;
      for (const ids of arrivals) {
        above += countAbove(ids, newestId);
        this.#through = newest(ids, this.#through);
      }
      this.#store.setState({ counts: { total: total + above, matching: matching + (all ? above : 0) }, counting: false });
      // Under filters, whether those arrivals match is the core's to say.
      if (above > 0 && !all) this.later();
    }
    // Superseded (another window asked meanwhile): ask again soon. Anything else: the counts stay as they were.
    else if (result.error.code === 'superseded') this.later();
    else this.#store.setState({ counting: false });
  }

  /** Messages were stored (their ids, oldest first): the total grows at once by those the counts do not hold, a recount follows. */
  arrived(ids: readonly number[]): void {
    this.#whileAsking?.push(ids);
    const { counts, filters } = this.#store.getState();
    if (counts) {
      const through = this.#through;
      const added = through === null ? ids.length : countAbove(ids, through);
      if (through !== null) this.#through = newest(ids, through);
      const all = !hasFilters(filters);
      if (added > 0) this.#store.setState({ counts: { total: counts.total + added, matching: counts.matching + (all ? added : 0) } });
      if (all) return;
    }
    this.later();
  }

  /**
   * Messages left (retention, a clear, a deletion request): count again soon. Ids can be given again
   * once the newest rows are gone, so until then every arrival adds, and an answer asked before is
   * dropped (it may hold rows that went).
   */
  removed(): void {
    this.#through = null;
    if (this.#whileAsking) {
      this.#asked++;
      this.#whileAsking = null;
      this.#store.setState({ counting: false });
    }
    this.later();
  }

  /** Messages may match differently (a re-check, a pin): count again soon. */
  later(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.refresh();
    }, Math.max(SETTLE_MS, REST_FACTOR * this.#lastMs));
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#asked++;
  }
}

function countAbove(ids: readonly number[], id: number): number {
  let n = 0;
  for (const each of ids) if (each > id) n++;
  return n;
}

function newest(ids: readonly number[], from: number): number {
  let max = from;
  for (const each of ids) if (each > max) max = each;
  return max;
}
