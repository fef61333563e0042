import type { RelayApi } from '../../transport/relay-api.ts';
import type { InspectorStore } from './state.ts';

/** The open message's detail is read again this long after a change to its deliveries (changes come in bursts). */
const REFRESH_AFTER_MS = 250;

/**
 * The open message's detail (`messages.get`): loaded when opened, and again when its deliveries
 * change or the connection comes back. Only the answer to the latest request for the open message
 * is shown.
 */
export class DetailLoader {
  #request = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #api: RelayApi;
  readonly #store: InspectorStore;
  readonly #disposed: () => boolean;

  constructor(api: RelayApi, store: InspectorStore, disposed: () => boolean) {
    this.#api = api;
    this.#store = store;
    this.#disposed = disposed;
  }

  async load(id: number): Promise<void> {
    const number = ++this.#request;
    const result = await this.#api.invoke('messages.get', { id });
    const current = this.#store.getState().detail;
    if (this.#disposed() || number !== this.#request || current?.id !== id) return;
    if (result.ok) this.#store.setState({ detail: { id, data: result.value, error: null, loading: false } });
    else this.#store.setState({ detail: { id, data: current.data, error: result.error.message, loading: false } });
  }

  /** Reads the open detail again, if one is open. */
  reload(): void {
    const detail = this.#store.getState().detail;
    if (detail) void this.load(detail.id);
  }

  /** Reads the open detail again shortly (once for a burst of changes). */
  refreshSoon(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.reload();
    }, REFRESH_AFTER_MS);
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}
