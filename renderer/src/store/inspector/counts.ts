import type { RelayApi } from '../../transport/relay-api.ts';
import { hasFilters, listQuery } from '../filters.ts';
import type { Environment, InspectorStore } from './state.ts';

/** A recount waits this long after messages arrived or left, so a burst costs one. */
const SETTLE_MS = 1500;

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

  constructor(api: RelayApi, store: InspectorStore, env: Environment) {
    this.#api = api;
    this.#store = store;
    this.#env = env;
  }

  /** Counts for the filters now (a newer ask wins: an older answer is dropped). */
  async refresh(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const asked = ++this.#asked;
    this.#store.setState({ counting: true });
    const result = await this.#api.invoke('messages.count', listQuery(this.#store.getState().filters, this.#env.now()));
    if (asked !== this.#asked) return;
    if (result.ok) this.#store.setState({ counts: result.value, counting: false });
    // Superseded: a newer count is on its way. Anything else: the counts stay as they were, marked as such.
    else if (result.error.code !== 'superseded') this.#store.setState({ counting: false });
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
    }, SETTLE_MS);
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#asked++;
  }
}
