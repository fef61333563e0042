import type http from 'node:http';
import { createRequire } from 'node:module';
import type { RejectedMessage } from '../../shared/client-state.ts';
import type { ClientClock } from './clock.ts';
import { isRetryableStatus, parseRetryAfter } from './backoff.ts';
import { USER_AGENT } from './version.ts';

/**
 * Answers are read up to this size: a 200 listing the messages it rejected may be long (Sluice's
 * endpoint lists every rejected one of up to 2,500 in a batch, each with its reason).
 */
const MAX_RESPONSE_BYTES = 1 << 20;

/**
 * Node's own modules taken as CommonJS (`process.getBuiltinModule`, or `require` before Node 20.16),
 * not imported as ES modules: to import node:http as one, Node 24 reads every export, and its lazy
 * `WebSocket` export loads Node's internal copy of undici, ~45 ms an application would pay for
 * importing the client. node:https is loaded only for an https endpoint.
 */
const builtin = (process.getBuiltinModule as ((id: string) => unknown) | undefined) ?? createRequire(import.meta.url);


/** What one request of a batch came to. */
export interface AttemptResult {
  ok: boolean;
  /** The HTTP status, or null when no answer came. */
  status: number | null;
  /** Worth another attempt: network error, timeout, 408, 429 or 5xx. */
  retryable: boolean;
  /** The endpoint's `Retry-After`, in ms, when it sent one. */
  retryAfterMs: number | undefined;
  errorCode: 'http_error' | 'timeout' | 'network_error' | 'aborted' | null;
  /** For failures: what went wrong, in a sentence (the endpoint's own error message when it sent one). */
  errorMessage: string | null;
  /** Messages the endpoint refused although it accepted the request. */
  rejected: RejectedMessage[];
  durationMs: number;
}

/**
 * How long an idle keep-alive connection is kept (undici's default too). An endpoint that closes idle
 * connections sooner without saying so (no `Keep-Alive: timeout` hint, which Node's agent follows)
 * can still close one just as a request goes out on it: that request is sent again once, on a new
 * connection (see Exchange).
 */
const IDLE_SOCKET_MS = 4_000;

/**
 * POSTs batch bodies to `{endpoint}/v1/batch` over keep-alive connections, one deadline per request
 * for connecting, sending and reading the answer. Never throws: every outcome is an
 * {@link AttemptResult}.
 *
 * It uses Node's own `http`/`https` modules, not a dependency: the client runs on Node 20 and later
 * and installs nothing. At most `connections` sockets are open (the client never has more requests
 * in progress than that), reused while the endpoint keeps them alive.
 */
export class BatchSender {
  readonly url: string;
  readonly #agent: http.Agent;
  readonly #request: typeof http.request;
  readonly #options: http.RequestOptions;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #clock: ClientClock;
  /** Requests in progress. */
  readonly #active = new Set<Exchange>();
  /** close() waiting for the requests in progress to end. */
  #whenIdle: (() => void) | null = null;

  constructor(options: { endpoint: URL; writeKey: string; timeoutMs: number; connections: number; clock: ClientClock }) {
    const { endpoint } = options;
    const path = `${endpoint.pathname.replace(/\/+$/, '')}/v1/batch`;
    this.url = `${endpoint.origin}${path}`;
    const module = builtin(endpoint.protocol === 'https:' ? 'node:https' : 'node:http') as typeof http;
    // `timeout` on the agent: idle (free) sockets are destroyed after it; on a socket in use it only
    // emits 'timeout', which nothing here listens to (the deadline is the exchange's own timer).
    this.#agent = new module.Agent({
      keepAlive: true,
      maxSockets: options.connections,
      maxFreeSockets: options.connections,
      scheduling: 'lifo',
      timeout: IDLE_SOCKET_MS,
    });
    this.#request = module.request;
    this.#options = {
      // `hostname` of a URL keeps an IPv6 address's brackets; http.request wants it bare.
      hostname: endpoint.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: endpoint.port,
      path,
      method: 'POST',
      agent: this.#agent,
    };
    this.#headers = {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${options.writeKey}:`).toString('base64')}`,
      'user-agent': USER_AGENT,
    };
    this.#timeoutMs = options.timeoutMs;
    this.#clock = options.clock;
  }

  send(body: Buffer): Promise<AttemptResult> {
    return new Promise<AttemptResult>((resolve) => {
      const exchange = new Exchange(this, resolve, body);
      this.#active.add(exchange);
      exchange.timer = this.#clock.setTimeout(() => exchange.cancel('timeout'), this.#timeoutMs);
      this.post(exchange);
    });
  }

  /** Sends the exchange's body on a connection of the pool (again, for a stale one). */
  post(exchange: Exchange): void {
    let request: http.ClientRequest;
    try {
      request = this.#request({ ...this.#options, headers: { ...this.#headers, 'content-length': String(exchange.body.length) } });
    } catch (error) {
      exchange.finish(exchange.failed('network_error', (error as Error).message));
      return;
    }
    exchange.start(request);
    request.end(exchange.body);
  }

  /** Called by an exchange once it has its result. */
  ended(exchange: Exchange): void {
    this.#clock.clearTimeout(exchange.timer);
    this.#active.delete(exchange);
    if (this.#active.size === 0) this.#whenIdle?.();
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  now(): number {
    return this.#clock.now();
  }

  /** Cuts every request in progress short; each ends as `aborted`. */
  abortAll(): void {
    for (const exchange of [...this.#active]) exchange.cancel('aborted');
  }

  /** Closes the connections once their requests are done. */
  async close(): Promise<void> {
    if (this.#active.size > 0) await new Promise<void>((resolve) => (this.#whenIdle = resolve));
    this.#whenIdle = null;
    this.#agent.destroy();
  }

  /** Drops every connection now, those still connecting included. */
  async destroy(): Promise<void> {
    this.abortAll();
    this.#agent.destroy();
  }
}

const NO_ANSWER = { error: null, rejected: [] as RejectedMessage[] };

/**
 * One request and its answer. A class with fields rather than closures, and its references dropped
 * as soon as it ends, so nothing of a finished request stays reachable.
 *
 * A request that fails on a reused keep-alive connection before any answer came is sent once more on
 * a new connection without counting as an attempt: the endpoint most likely closed the idle
 * connection as the request went out (Node's documented remedy, `request.reusedSocket`). A batch that
 * did reach the endpoint and is sent twice is marked a duplicate there by its messageIds.
 */
class Exchange {
  timer: unknown = undefined;
  readonly body: Buffer;
  #sender: BatchSender | null;
  #resolve: ((result: AttemptResult) => void) | null;
  #request: http.ClientRequest | null = null;
  #resent = false;
  /** A response began (a status line came): the request is not sent again, whatever happens next. */
  #answered = false;
  #started = performance.now();
  #chunks: Buffer[] | null = null;
  #length = 0;

  constructor(sender: BatchSender, resolve: (result: AttemptResult) => void, body: Buffer) {
    this.#sender = sender;
    this.#resolve = resolve;
    this.body = body;
  }

  start(request: http.ClientRequest): void {
    this.#request = request;
    request.on('response', (response) => this.#onResponse(request, response));
    request.on('error', (error) => this.#onError(request, error));
    // Node reports a lost connection as an error; should one ever close without either, it still ends.
    request.on('close', () => this.#onError(request, new Error('the connection closed before an answer came')));
  }

  #onResponse(request: http.ClientRequest, response: http.IncomingMessage): void {
    if (request !== this.#request) return;
    this.#answered = true;
    response.on('data', (chunk: Buffer) => {
      if (this.#length < MAX_RESPONSE_BYTES) (this.#chunks ??= []).push(chunk);
      this.#length += chunk.length;
    });
    response.on('end', () => this.#onEnd(request, response));
    response.on('error', (error) => this.#onError(request, error));
    response.on('close', () => {
      if (!response.complete) this.#onError(request, new Error('the connection closed before the answer was complete'));
    });
  }

  #onEnd(request: http.ClientRequest, response: http.IncomingMessage): void {
    const sender = this.#sender;
    if (!sender || request !== this.#request) return;
    // An answer that came before the whole body was sent (say a 413): the connection cannot be reused,
    // and the body's buffer, which goes back to the client's pool, must not be read any more.
    if (!request.writableFinished) request.destroy();
    const status = response.statusCode ?? 0;
    const text = this.#chunks ? Buffer.concat(this.#chunks).toString('utf8', 0, Math.min(this.#length, MAX_RESPONSE_BYTES)) : '';
    const ok = status >= 200 && status < 300;
    const answer = ok && (text === '' || text === '{"success":true}') ? NO_ANSWER : parseAnswer(text);
    this.finish({
      ok,
      status,
      retryable: !ok && isRetryableStatus(status),
      retryAfterMs: ok ? undefined : parseRetryAfter(response.headers['retry-after'], sender.now()),
      errorCode: ok ? null : 'http_error',
      errorMessage: ok ? null : `the endpoint answered ${status}${answer.error ? `: ${answer.error}` : ''}`,
      rejected: ok ? answer.rejected : [],
      durationMs: performance.now() - this.#started,
    });
  }

  #onError(request: http.ClientRequest, error: Error): void {
    if (request !== this.#request || !this.#resolve) return;
    if (request.reusedSocket && !this.#resent && !this.#answered) {
      this.#resent = true;
      request.destroy();
      this.#sender!.post(this);
      return;
    }
    const err = error as NodeJS.ErrnoException;
    this.finish(this.failed('network_error', `${err.code ? `${err.code}: ` : ''}${err.message}`));
  }

  /** Ends the exchange now (the deadline passed, or the client is closing) and drops its connection. */
  cancel(reason: 'timeout' | 'aborted'): void {
    if (!this.#resolve) return;
    const request = this.#request;
    this.finish(
      reason === 'timeout'
        ? this.failed('timeout', `no answer within ${this.#sender!.timeoutMs} ms`)
        : this.failed('aborted', 'the client was closed before the request finished'),
    );
    // Destroyed after the result is settled, so the error the destruction reports finds it finished.
    request?.destroy();
  }

  failed(errorCode: 'timeout' | 'network_error' | 'aborted', errorMessage: string): AttemptResult {
    return {
      ok: false,
      status: null,
      retryable: errorCode !== 'aborted',
      retryAfterMs: undefined,
      errorCode,
      errorMessage,
      rejected: [],
      durationMs: performance.now() - this.#started,
    };
  }

  finish(result: AttemptResult): void {
    const resolve = this.#resolve;
    if (!resolve) return;
    this.#sender!.ended(this);
    this.#resolve = null;
    this.#sender = null;
    this.#request = null;
    this.#chunks = null;
    resolve(result);
  }
}

/** The endpoint's error message and list of rejected messages, when its answer has them. */
function parseAnswer(text: string): { error: string | null; rejected: RejectedMessage[] } {
  if (!text || text.length > MAX_RESPONSE_BYTES || text.charCodeAt(0) !== 0x7b /* { */) return { error: text ? text.slice(0, 200) : null, rejected: [] };
  try {
    const json = JSON.parse(text) as { error?: unknown; rejected?: unknown };
    const error = typeof json.error === 'object' && json.error !== null ? (json.error as { message?: unknown }).message : json.error;
    const rejected = Array.isArray(json.rejected)
      ? json.rejected.filter((r): r is RejectedMessage => typeof r === 'object' && r !== null && Number.isInteger((r as RejectedMessage).index))
      : [];
    return { error: typeof error === 'string' ? error.slice(0, 500) : null, rejected };
  } catch {
    return { error: text.slice(0, 200), rejected: [] };
  }
}
