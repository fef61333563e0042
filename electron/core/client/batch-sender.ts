import { createRequire } from 'node:module';
import type { Dispatcher, Pool as UndiciPool } from 'undici';
import type { ClientClock } from './clock.ts';
import { isRetryableStatus, parseRetryAfter } from './backoff.ts';
import { USER_AGENT } from './version.ts';

/**
 * undici's connection pool, loaded on its own: `import 'undici'` also loads fetch, WebSocket,
 * EventSource, the cache and the mocks, 13 MB of resident memory a batch sender never uses.
 * `lib/dispatcher/pool.js` is what undici's index exports as `Pool`; should a future undici move
 * it, the full package is loaded instead.
 */
const Pool: typeof UndiciPool = (() => {
  const require = createRequire(import.meta.url);
  try {
    return require('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
  } catch {
    return (require('undici') as typeof import('undici')).Pool;
  }
})();

/**
 * Answers are read up to this size: a 200 listing the messages it rejected may be long (Sluice's
 * endpoint lists every rejected one of up to 2,500 in a batch, each with its reason).
 */
const MAX_RESPONSE_BYTES = 1 << 20;

/** A message of the batch the endpoint refused (Sluice's `rejected` list); `index` is its place in the batch. */
export interface RejectedMessage {
  index: number;
  code: string;
  message: string;
}

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
 * POSTs batch bodies to `{endpoint}/v1/batch` over a pool of keep-alive connections (undici), one
 * deadline per request for connecting, sending and reading the answer. Never throws: every outcome
 * is an {@link AttemptResult}.
 *
 * It uses undici's `dispatch` with one small handler object per request rather than `request()`
 * (which wraps each answer in a readable stream): fewer objects per request, and none that outlive
 * it. Under a tight loop of batches, objects that survive young-generation collections make V8 grow
 * its young generation, tens of MB of resident memory.
 */
export class BatchSender {
  readonly url: string;
  readonly #pool: UndiciPool;
  readonly #path: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;
  readonly #clock: ClientClock;
  /** Requests in progress. */
  readonly #active: Exchange[] = [];

  constructor(options: { endpoint: URL; writeKey: string; timeoutMs: number; connections: number; clock: ClientClock }) {
    const base = options.endpoint.pathname.replace(/\/+$/, '');
    this.#path = `${base}/v1/batch`;
    this.url = `${options.endpoint.origin}${this.#path}`;
    // The deadline is ours (one timer for the whole exchange), so undici's own timeouts are off.
    this.#pool = new Pool(options.endpoint.origin, { connections: options.connections, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
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
      const exchange = new Exchange(this, resolve);
      exchange.slot = this.#active.length;
      this.#active.push(exchange);
      exchange.timer = this.#clock.setTimeout(() => exchange.cancel('timeout'), this.#timeoutMs);
      try {
        this.#pool.dispatch({ path: this.#path, method: 'POST', headers: this.#headers, body }, exchange);
      } catch (error) {
        exchange.finish(exchange.failed('network_error', (error as Error).message));
      }
    });
  }

  /** Called by an exchange once it has its result. */
  ended(exchange: Exchange): void {
    this.#clock.clearTimeout(exchange.timer);
    // Swap-remove: the list stays as long as the number of requests in progress.
    const last = this.#active.pop()!;
    if (last !== exchange) {
      this.#active[exchange.slot] = last;
      last.slot = exchange.slot;
    }
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

  /** Closes the pool's connections once their requests are done. */
  async close(): Promise<void> {
    await this.#pool.close().catch(() => this.#pool.destroy());
  }

  /** Drops every connection now, those still connecting included (close() would wait for them). */
  async destroy(): Promise<void> {
    await this.#pool.destroy().catch(() => {});
  }
}

const NO_ANSWER = { error: null, rejected: [] as RejectedMessage[] };

/**
 * One request and its answer: undici's dispatch handler. A class with fields rather than closures,
 * and its references dropped as soon as it ends, so nothing of a finished request stays reachable.
 */
class Exchange implements Dispatcher.DispatchHandler {
  slot = 0;
  timer: unknown = undefined;
  #sender: BatchSender | null;
  #resolve: ((result: AttemptResult) => void) | null;
  #controller: Dispatcher.DispatchController | null = null;
  #cancelled: 'timeout' | 'aborted' | null = null;
  #started = performance.now();
  #status = 0;
  #retryAfter: string | string[] | undefined = undefined;
  #chunks: Buffer[] | null = null;
  #length = 0;

  constructor(sender: BatchSender, resolve: (result: AttemptResult) => void) {
    this.#sender = sender;
    this.#resolve = resolve;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#cancelled) controller.abort(new Error(this.#cancelled));
    else if (this.#resolve) this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.#status = statusCode;
    this.#retryAfter = headers['retry-after'];
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#length < MAX_RESPONSE_BYTES) (this.#chunks ??= []).push(chunk);
    this.#length += chunk.length;
  }

  onResponseEnd(): void {
    const sender = this.#sender;
    if (!sender) return;
    const status = this.#status;
    const text = this.#chunks ? Buffer.concat(this.#chunks).toString('utf8', 0, Math.min(this.#length, MAX_RESPONSE_BYTES)) : '';
    const ok = status >= 200 && status < 300;
    const answer = ok && (text === '' || text === '{"success":true}') ? NO_ANSWER : parseAnswer(text);
    this.finish({
      ok,
      status,
      retryable: !ok && isRetryableStatus(status),
      retryAfterMs: ok ? undefined : parseRetryAfter(this.#retryAfter, sender.now()),
      errorCode: ok ? null : 'http_error',
      errorMessage: ok ? null : `the endpoint answered ${status}${answer.error ? `: ${answer.error}` : ''}`,
      rejected: ok ? answer.rejected : [],
      durationMs: performance.now() - this.#started,
    });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const err = error as NodeJS.ErrnoException;
    this.finish(this.failed('network_error', `${err.code ? `${err.code}: ` : ''}${err.message}`));
  }

  /** Ends the exchange now (the deadline passed, or the client is closing); undici is told to abort. */
  cancel(reason: 'timeout' | 'aborted'): void {
    if (!this.#resolve || this.#cancelled) return;
    this.#cancelled = reason;
    const controller = this.#controller;
    // Settled now even when undici has not started the request (it only acts on an abort once
    // connected); undici's own error report for the abort then finds the exchange finished.
    this.finish(
      reason === 'timeout'
        ? this.failed('timeout', `no answer within ${this.#sender!.timeoutMs} ms`)
        : this.failed('aborted', 'the client was closed before the request finished'),
    );
    controller?.abort(new Error(reason));
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
    this.#controller = null;
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
