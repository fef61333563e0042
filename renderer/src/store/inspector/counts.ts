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
 */
export class Counts {
  readonly #api: RelayApi;
  readonly #store: InspectorStore;
  readonly #env: Environment;
  #asked = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #lastMs = 0;

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
    this.#store.setState(fresh ? { counting: true, counts: null } : { counting: true });
    const started = Date.now();
    const result = await this.#api.invoke('messages.count', listQuery(this.#store.getState().filters, this.#env.now()));
    if (asked !== this.#asked) return;
    this.#lastMs = Date.now() - started;
    if (result.ok) this.#store.setState({ counts: result.value, counting: false });
    // Superseded (another window asked meanwhile): ask again soon. Anything else: the counts stay as they were.
    else if (result.error.code === 'superseded') this.later();
    else this.#store.setState({ counting: false });
  }

  /** `n` messages were stored: the total grows at once, a recount follows. */
  arrived(n: number): void {
    const { counts, filters } = this.#store.getState();
    if (counts) {
      const all = !hasFilters(filters);
      this.#store.setState({ counts: { total: counts.total + n, matching: counts.matching + (all ? n : 0) } });
      if (all) return;
    }
    this.later();
  }

  /** Messages left (retention, a clear) or may match differently (a re-check): count again soon. */
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
