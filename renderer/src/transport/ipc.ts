import type { Channel, RequestOf, Responses, Result } from '../../../shared/contract.ts';
import type { ConnectionState, EventsListener, PreloadBridge, RelayApi } from './relay-api.ts';

/** The contract over Electron IPC, through the sandboxed preload's `window.sluice`. Always open. */
export class IpcTransport implements RelayApi {
  readonly kind = 'ipc';
  readonly #bridge: PreloadBridge;

  constructor(bridge: PreloadBridge) {
    this.#bridge = bridge;
  }

  async invoke<C extends Channel>(channel: C, request: RequestOf<C>): Promise<Result<Responses[C]>> {
    try {
      return (await this.#bridge.invoke(channel, request)) as Result<Responses[C]>;
    } catch (error) {
      // ipcRenderer.invoke rejects only when the main process has no handler or it threw.
      return { ok: false, error: { code: 'internal_error', message: (error as Error)?.message ?? String(error) } };
    }
  }

  onEvents(listener: EventsListener): () => void {
    return this.#bridge.onEvents(listener);
  }

  onState(listener: (state: ConnectionState) => void): () => void {
    listener({ kind: 'open' });
    return () => {};
  }

  close(): void {}
}
