import type { Agent, Dispatcher } from 'undici';
import { WEBHOOK_TIMEOUT_MS } from '../../../shared/limits.ts';
import { utf8Prefix } from '../utf8-prefix.ts';

/**
 * undici's Agent, loaded when the first webhook is sent rather than when Sluice starts: it is about a
 * third of the code a start would otherwise compile (~50 ms), and a relay that sends nothing never
 * needs it. Only the Agent's module is loaded, not undici's index (fetch, WebSocket, caches, mocks).
 */
let AgentClass: typeof Agent | undefined;
let loadingAgent: Promise<typeof Agent> | undefined;
function loadAgent(): Promise<typeof Agent> {
  return (loadingAgent ??= import('undici/lib/dispatcher/agent.js').then(
    (module) => (AgentClass = module.default),
    (error: unknown) => {
      loadingAgent = undefined; // the next send tries again
      throw error;
    },
  ));
}

/** Seed §2.1: `<PRODUCT>/1.0`. */
export const USER_AGENT = 'Sluice/1.0';
/** Response bodies are kept up to this size. */
export const MAX_RESPONSE_BODY_BYTES = 64 * 1024;

export type AttemptErrorCode = 'timeout' | 'tls' | 'connect' | 'reset' | 'http';

export interface SendRequest {
  url: string;
  /** Text, or bytes (a gzipped forward). */
  body: string | Uint8Array;
  headers: Record<string, string>;
  /** Extra trusted CA (PEM) for this webhook. */
  caCert?: string | undefined;
}

export interface SendResult {
  startedAt: number;
  durationMs: number;
  status: number | null;
  responseHeaders: Record<string, string | string[]> | null;
  responseBody: string | null;
  errorCode: AttemptErrorCode | null;
  errorMessage: string | null;
  /** 2xx. */
  ok: boolean;
  /** Worth another round: 5xx, 408, 429, timeout, connection refused or reset (DESIGN.md §5.4). */
  retryable: boolean;
}

/**
 * POSTs webhook bodies with undici: pooled keep-alive connections per origin, one timeout for the
 * whole request, redirects not followed, the response body kept up to 64 KB.
 */
export class WebhookSender {
  readonly #timeoutMs: number;
  readonly #agents = new Map<string, Agent>();
  readonly #targets = new Map<string, { origin: string; path: string }>();
  readonly #now: () => number;
  readonly #resolve: (url: string) => string | null;
  #closed = false;

  /**
   * `resolve`: where a webhook URL posts now — the built-in receiver's symbolic URLs
   * (`sluice://receiver/<hook>`, shared/receiver-hooks.ts) to its current address; null when it has
   * none. Attempts keep the URL as the destination names it.
   */
  constructor(options: { timeoutMs?: number; now?: () => number; resolve?: (url: string) => string | null } = {}) {
    this.#timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.#now = options.now ?? Date.now;
    this.#resolve = options.resolve ?? ((url) => url);
  }

  /**
   * One POST. Built on undici's `dispatch` handler API rather than `request()`: no response stream,
   * no AbortController and a single promise per request. On the delivery hot path that halves the
   * CPU an attempt costs (see tests/bench/delivery.bench.ts).
   */
  send(request: SendRequest): Promise<SendResult> {
    // Never rejects (the engine counts on it): a failure to load undici is a failed, retryable attempt.
    if (!AgentClass) {
      return loadAgent().then(
        () => this.send(request),
        (error: unknown) => this.#notSent(`Sluice could not load its HTTP client (undici): ${(error as Error)?.message ?? error}; will retry`),
      );
    }
    // A send that waited for undici while the sender closed makes no new Agent nobody would close.
    if (this.#closed) return Promise.resolve(this.#notSent('Sluice is shutting down; will retry'));
    const target = this.#target(request.url);
    if (!target) return Promise.resolve(this.#notSent(`${request.url} names the built-in receiver, which is not listening yet; will retry`));
    const startedAt = this.#now();
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 10) / 10;
    return new Promise<SendResult>((resolve) => {
      let controller: Dispatcher.DispatchController | undefined;
      let settled = false;
      let status = 0;
      let headers: Record<string, string | string[]> | null = null;
      const chunks: Buffer[] = [];
      let size = 0;
      const succeed = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const ok = status >= 200 && status < 300;
        resolve({
          startedAt,
          durationMs: elapsed(),
          status,
          responseHeaders: headers,
          responseBody: capText(chunks, size, MAX_RESPONSE_BODY_BYTES),
          errorCode: ok ? null : 'http',
          errorMessage: ok ? null : describeStatus(status),
          ok,
          retryable: status >= 500 || status === 408 || status === 429,
        });
      };
      const fail = (error: unknown, timedOut: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const { code, message, retryable } = classifyError(error, timedOut, this.#timeoutMs, `${target.origin}${target.path}`);
        resolve({ startedAt, durationMs: elapsed(), status: null, responseHeaders: null, responseBody: null, errorCode: code, errorMessage: message, ok: false, retryable });
      };
      // Our own deadline for the whole request, connecting included: undici's connect timeout does
      // not cover a TLS handshake that never finishes. A request still queued when it fires is
      // aborted as soon as undici starts it, so nothing is sent after we reported a timeout.
      const timer = setTimeout(() => {
        const error = new Error('timeout');
        error.name = 'TimeoutError';
        controller?.abort(error);
        fail(error, true);
      }, this.#timeoutMs);
      // Keep a few bytes past the limit to find where the last whole UTF-8 character ends.
      const keep = MAX_RESPONSE_BODY_BYTES + 4;
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (settled) c.abort(new Error('timeout'));
        },
        onResponseStart(_c, statusCode, responseHeaders) {
          status = statusCode;
          // undici's own object, made for this response: kept as it is (JSON drops undefined values).
          headers = responseHeaders as Record<string, string | string[]>;
        },
        onResponseData(c, chunk) {
          if (size >= keep) return;
          chunks.push(size + chunk.length > keep ? chunk.subarray(0, keep - size) : chunk);
          size = Math.min(size + chunk.length, keep);
          if (size >= keep) {
            // Enough: the rest is not read (the connection is dropped rather than drained).
            succeed();
            c.abort(new Error('response body over the capture limit'));
          }
        },
        onResponseEnd() {
          succeed();
        },
        onResponseError(_c, error) {
          fail(error, false);
        },
      };
      try {
        this.#agent(request.caCert).dispatch({ origin: target.origin, path: target.path, method: 'POST', headers: request.headers, body: request.body }, handler);
      } catch (error) {
        fail(error, false);
      }
    });
  }

  /**
   * Origin and path of a webhook URL, parsed once: the same few URLs are posted to again and again (a
   * symbolic one's address is the receiver's, fixed while it listens). Null: the receiver has none yet.
   */
  #target(url: string): { origin: string; path: string } | null {
    let target = this.#targets.get(url);
    if (!target) {
      const resolved = this.#resolve(url);
      if (resolved === null) return null;
      const parsed = new URL(resolved);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.#targets.size > 1000) this.#targets.clear();
      this.#targets.set(url, target);
    }
    return target;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#agents.values()].map((agent) => agent.close()));
    this.#agents.clear();
  }

  /** An attempt that sent nothing and is worth another round. */
  #notSent(errorMessage: string): SendResult {
    return { startedAt: this.#now(), durationMs: 0, status: null, responseHeaders: null, responseBody: null, errorCode: 'connect', errorMessage, ok: false, retryable: true };
  }

  #agent(caCert: string | undefined): Agent {
    // Keyed by the PEM text itself: hashing it on every request would be work on the hot path.
    const key = caCert ?? '';
    let agent = this.#agents.get(key);
    if (!agent) {
      agent = new AgentClass!({
        // As many as a destination may have in flight (options.concurrency ≤ 256): a request
        // waiting for a connection would spend its 5 s in undici's queue, never sent.
        connections: 256,
        keepAliveTimeout: 30_000,
        connect: {
          timeout: this.#timeoutMs,
          // The system's trust store, plus this webhook's own CA when it has one.
          ...(caCert ? { ca: [...process.getBuiltinModule('node:tls').rootCertificates, caCert] } : {}),
        },
      });
      this.#agents.set(key, agent);
    }
    return agent;
  }
}

/** The captured body's first `limit` bytes as text, cut at a character boundary. */
function capText(chunks: Buffer[], size: number, limit: number): string {
  return utf8Prefix(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), limit).toString('utf8');
}

/** A destination's webhook that answered 410 Gone is disabled (the delivery engine's #heard): said so in its attempt. */
export const GONE_DISABLES = 'the receiver answered 410 Gone: Sluice stops sending to this URL until it is re-enabled or the destination is edited';

function describeStatus(status: number): string {
  if (status === 410) return 'the receiver answered 410 Gone; a 4xx is final, the request will not be retried';
  if (status >= 300 && status < 400) return `the receiver answered ${status} (a redirect); Sluice does not follow redirects — use the final URL`;
  if (status === 408 || status === 429) return `the receiver answered ${status}; will retry`;
  if (status >= 500) return `the receiver answered ${status}; will retry`;
  return `the receiver answered ${status}; a 4xx is final, the request will not be retried`;
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_NOT_YET_VALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
/** undici's own timeouts (its HeadersTimeoutError and BodyTimeoutError), should one ever fire before ours. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Turns a failed request into an error code and a sentence with the fix. */
export function classifyError(
  error: unknown,
  timedOut: boolean,
  timeoutMs: number,
  url: string,
): { code: AttemptErrorCode; message: string; retryable: boolean } {
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err.code ?? err.cause?.code ?? '';
  const origin = safeOrigin(url);
  if (timedOut || err.name === 'TimeoutError' || TIMEOUT_CODES.has(code)) {
    return { code: 'timeout', message: `${origin} did not answer within ${timeoutMs / 1000} s; will retry`, retryable: true };
  }
  if (CONNECT_CODES.has(code)) {
    const why = code === 'ECONNREFUSED' ? 'refused the connection (is the receiver running?)' : `could not be reached (${code})`;
    return { code: 'connect', message: `${origin} ${why}; will retry`, retryable: true };
  }
  // A connection dropped during the TLS handshake says "TLS" in its message but is a reset.
  if (RESET_CODES.has(code)) {
    return { code: 'reset', message: `${origin} closed the connection before answering; will retry`, retryable: true };
  }
  if (TLS_CODES.has(code) || /certificate/i.test(err.message ?? '')) {
    const detail =
      code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'SELF_SIGNED_CERT_IN_CHAIN'
        ? 'its certificate is self-signed'
        : code === 'ERR_TLS_CERT_ALTNAME_INVALID'
          ? 'its certificate is for another host name'
          : `its certificate is not trusted (${code || err.message})`;
    return {
      code: 'tls',
      message: `${origin} — ${detail}; nothing was sent. Add its CA under the webhook's TLS settings (caCert).`,
      retryable: false,
    };
  }
  return { code: 'connect', message: `${origin}: ${err.message || code || 'request failed'}; will retry`, retryable: true };
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
