/**
 * The only way the inspector talks to the core. Two implementations: Electron IPC through the
 * preload's `window.sluice`, and a WebSocket to the headless host. Views and the store never know which.
 */
import type { Channel, CoreEvent, RequestOf, Responses, Result } from '../../../shared/contract.ts';

export type EventsListener = (events: CoreEvent[]) => void;

/** Where the connection to the core stands. */
export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'open' }
  /** Lost; trying again at `retryAt` (ms since epoch), `attempt` tries so far. */
  | { kind: 'reconnecting'; retryAt: number; attempt: number; reason: string }
  /** The host refused this page's token (or it has none): retrying cannot help. */
  | { kind: 'unauthorized'; reason: string };

export interface RelayApi {
  /** Calls a contract channel. Never rejects: transport failures are `{ok: false}` with code `disconnected` or `timeout`. */
  invoke<C extends Channel>(channel: C, request: RequestOf<C>): Promise<Result<Responses[C]>>;
  /** Batches of core events; returns the unsubscribe function. */
  onEvents(listener: EventsListener): () => void;
  /** The connection's state now and on every change; returns the unsubscribe function. */
  onState(listener: (state: ConnectionState) => void): () => void;
  /** Which transport this is (shown in the UI's about line, used by tests). */
  readonly kind: 'ipc' | 'websocket';
  close(): void;
}

/** What the Electron preload exposes as `window.sluice`. */
export interface PreloadBridge {
  invoke(channel: string, request: unknown): Promise<Result<unknown>>;
  onEvents(listener: EventsListener): () => void;
}

export const DISCONNECTED = 'disconnected';
export const TIMEOUT = 'timeout';
