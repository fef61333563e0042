import type { MessageSummary } from '../../../../shared/contract.ts';
import type { RelayApi } from '../../transport/relay-api.ts';
import type { DetailState, InspectorStore } from './state.ts';

export const NO_LONGER_STORED = 'This message is no longer stored: retention, a clear or a purge removed it.';

/** The open detail of message `id`, found gone (see DetailState.gone). */
export function goneDetail(id: number, why: string = NO_LONGER_STORED): DetailState {
  return { id, data: null, error: why, loading: false, gone: true };
}

/**
 * Whether two reads under one id are the same message. Ids are given again after the newest messages
 * went (no AUTOINCREMENT): another message under the id differs in when it was received or its messageId.
 */
export function sameMessage(a: Pick<MessageSummary, 'messageId' | 'receivedAt'>, b: Pick<MessageSummary, 'messageId' | 'receivedAt'>): boolean {
  return a.messageId === b.messageId && a.receivedAt === b.receivedAt;
}

/** The open message's detail is read again this long after a change to its deliveries (changes come in bursts). */
const REFRESH_AFTER_MS = 250;

/**
 * The open message's detail (`messages.get`): loaded when opened, and again when its deliveries
 * change or the connection comes back. Only the answer to the latest request for the open message
 * is shown. A detail found gone (its message not found, or another message under its id) stays gone
 * until a message is opened.
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
    if (this.#disposed() || number !== this.#request || current?.id !== id || current.gone) return;
    if (result.ok && current.data && !sameMessage(current.data, result.value)) this.#store.setState({ detail: goneDetail(id) });
    else if (result.ok) this.#store.setState({ detail: { id, data: result.value, error: null, loading: false } });
    else if (result.error.code === 'not_found') this.#store.setState({ detail: goneDetail(id) });
    else this.#store.setState({ detail: { id, data: current.data, error: result.error.message, loading: false } });
  }

  /** Reads the open detail again, if one is open and not gone. */
  reload(): void {
    const detail = this.#store.getState().detail;
    if (detail && !detail.gone) void this.load(detail.id);
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
