import type { Channel, ClientFrame, CoreEvent, RequestOf, Responses, Result, ServerFrame } from '../../../shared/contract.ts';
import { DISCONNECTED, TIMEOUT, type ConnectionState, type EventsListener, type RelayApi } from './relay-api.ts';

/** The subset of the browser's WebSocket this transport uses (Node's global WebSocket has it too). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export interface WebSocketTransportOptions {
  /** `ws://host:port/api?token=…` */
  url: string;
  createSocket?: (url: string) => SocketLike;
  /**
   * Whether the host itself answers (its page server). Used when a socket is closed before it opened:
   * a host that answers but refuses the socket has refused the token; one that does not answer is down.
   */
  probe?: () => Promise<boolean>;
  /** First reconnect delay; doubles per failure up to `maxDelayMs`, each ±20 %. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A call unanswered after this long resolves as `{ok: false, error: {code: 'timeout'}}`. */
  callTimeoutMs?: number;
  random?: () => number;
}

const OPEN = 1;

interface PendingCall {
  frame: string;
  sent: boolean;
  resolve: (result: Result<unknown>) => void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The contract over a WebSocket to the headless host. Reconnects with backoff; calls in flight when
 * the connection drops are answered `disconnected` (they may or may not have run); calls made while
 * (re)connecting wait for the connection, up to the call timeout. Never reconnects after the host
 * refused the token.
 */
export class WebSocketTransport implements RelayApi {
  readonly kind = 'websocket';
  readonly #o: Required<Omit<WebSocketTransportOptions, 'probe'>> & Pick<WebSocketTransportOptions, 'probe'>;
  readonly #calls = new Map<number, PendingCall>();
  readonly #eventListeners = new Set<EventsListener>();
  readonly #stateListeners = new Set<(state: ConnectionState) => void>();
  #socket: SocketLike | undefined;
  #state: ConnectionState = { kind: 'connecting' };
  #nextId = 1;
  #failures = 0;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(options: WebSocketTransportOptions) {
    this.#o = {
      createSocket: (url) => new WebSocket(url) as unknown as SocketLike,
      initialDelayMs: 250,
      maxDelayMs: 10_000,
      callTimeoutMs: 30_000,
      random: Math.random,
      ...options,
    };
    this.#connect();
  }

  get state(): ConnectionState {
    return this.#state;
  }

  invoke<C extends Channel>(channel: C, request: RequestOf<C>): Promise<Result<Responses[C]>> {
    if (this.#state.kind === 'unauthorized') return Promise.resolve(failure('unauthorized', this.#state.reason));
    if (this.#closed) return Promise.resolve(failure(DISCONNECTED, 'the inspector closed its connection'));
    const id = this.#nextId++;
    const frame: ClientFrame = { kind: 'invoke', id, channel, request };
    return new Promise((resolve) => {
      const call: PendingCall = {
        frame: JSON.stringify(frame),
        sent: false,
        resolve: resolve as (result: Result<unknown>) => void,
        timer: setTimeout(() => this.#settle(id, failure(TIMEOUT, `${channel} got no answer within ${this.#o.callTimeoutMs / 1000} s`)), this.#o.callTimeoutMs),
      };
      this.#calls.set(id, call);
      if (this.#socket?.readyState === OPEN) this.#send(call);
    });
  }

  onEvents(listener: EventsListener): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  onState(listener: (state: ConnectionState) => void): () => void {
    this.#stateListeners.add(listener);
    listener(this.#state);
    return () => this.#stateListeners.delete(listener);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close(1000, 'closed by the inspector');
    this.#failAll(DISCONNECTED, 'the inspector closed its connection', () => true);
  }

  #setState(state: ConnectionState): void {
    this.#state = state;
    for (const listener of this.#stateListeners) listener(state);
  }

  #send(call: PendingCall): void {
    call.sent = true;
    this.#socket!.send(call.frame);
  }

  #settle(id: number, result: Result<unknown>): void {
    const call = this.#calls.get(id);
    if (!call) return;
    this.#calls.delete(id);
    clearTimeout(call.timer);
    call.resolve(result);
  }

  #failAll(code: string, message: string, which: (call: PendingCall) => boolean): void {
    for (const [id, call] of [...this.#calls]) if (which(call)) this.#settle(id, failure(code, message));
  }

  #connect(): void {
    if (this.#closed) return;
    let opened = false;
    let socket: SocketLike;
    try {
      socket = this.#o.createSocket(this.#o.url);
    } catch (error) {
      this.#lost(false, (error as Error).message);
      return;
    }
    this.#socket = socket;
    socket.onopen = () => {
      opened = true;
      this.#failures = 0;
      this.#setState({ kind: 'open' });
      for (const call of this.#calls.values()) if (!call.sent) this.#send(call);
    };
    socket.onmessage = (event) => {
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(event.data)) as ServerFrame;
      } catch {
        return; // the host only sends JSON; ignore anything else rather than crash the UI
      }
      if (frame.kind === 'result') this.#settle(frame.id, frame.result);
      else if (frame.kind === 'events') this.#emit(frame.events);
    };
    socket.onerror = () => {}; // a close event always follows, with what little the browser tells
    socket.onclose = (event) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#lost(opened, event.reason || (opened ? 'the connection to Sluice was lost' : 'could not connect to Sluice'));
    };
  }

  #emit(events: CoreEvent[]): void {
    for (const listener of this.#eventListeners) {
      try {
        listener(events);
      } catch (error) {
        console.error('sluice: an event listener failed', error);
      }
    }
  }

  async #lost(wasOpen: boolean, reason: string): Promise<void> {
    // Calls that were sent may or may not have run: answer them now rather than leave them hanging.
    this.#failAll(DISCONNECTED, `${reason}; the call may not have completed`, (call) => call.sent);
    if (this.#closed) return;
    if (!wasOpen && this.#o.probe && (await this.#o.probe().catch(() => false))) {
      if (this.#closed) return;
      const why =
        'Sluice refused this page\u2019s access token: the link is from a Sluice with another data folder, or its token was replaced (sluice serve --new-token). Open the inspector URL that sluice serve printed.';
      this.#setState({ kind: 'unauthorized', reason: why });
      this.#failAll('unauthorized', why, () => true);
      return;
    }
    if (this.#closed) return;
    const base = Math.min(this.#o.maxDelayMs, this.#o.initialDelayMs * 2 ** this.#failures);
    const delay = Math.round(base * (0.8 + 0.4 * this.#o.random()));
    this.#failures++;
    this.#setState({ kind: 'reconnecting', retryAt: Date.now() + delay, attempt: this.#failures, reason });
    this.#retryTimer = setTimeout(() => this.#connect(), delay);
  }
}

function failure<T>(code: string, message: string): Result<T> {
  return { ok: false, error: { code, message } };
}

/** The API socket's address for a page served by the headless host, or null when the page has no token. */
export function apiUrlFor(location: { protocol: string; host: string }, token: string | null): string | null {
  if (!token) return null;
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api?token=${encodeURIComponent(token)}`;
}
