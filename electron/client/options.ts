import { DEFAULT_HOST, DEFAULT_INGEST_PORT, MAX_BATCH_EVENTS } from '../../shared/limits.ts';
import type { ClientClock } from './clock.ts';
import { systemClock } from './clock.ts';
import { ClientError } from './errors.ts';
import type { BatchResult } from '../../shared/client-state.ts';

/** Sluice's local ingestion endpoint, where the client sends unless told otherwise. */
export const DEFAULT_ENDPOINT = `http://${DEFAULT_HOST}:${DEFAULT_INGEST_PORT}`;

/** Options of {@link Client}; every one has a default. */
export interface ClientOptions {
  /** Base URL of the ingestion endpoint; batches go to `{endpoint}/v1/batch`. Default `http://127.0.0.1:8787` (Sluice). */
  endpoint?: string;
  /** Messages per batch: a batch is sent as soon as this many are queued; `1` sends each message at once. Default 20. */
  flushAt?: number;
  /** The seed's name for `flushAt` (give one or the other). */
  size?: number;
  /** Milliseconds after which queued messages are sent even if fewer than `flushAt`, counted from the last flush. Default 5000. */
  flushAfter?: number;
  /** Most messages waiting in the queue; when full, new messages are dropped (see `onError`, `waitForRoom()`). Default 10,000. */
  maxQueueSize?: number;
  /** Most bytes of serialized messages waiting in the queue, same behaviour. Default 16 MiB. */
  maxQueueBytes?: number;
  /** Most batch requests in progress at once (each holds one connection, retries included). Default 4. */
  maxInFlight?: number;
  /** Retries of a failed request (network error, timeout, 408, 429, 5xx) before its messages count as failed. Default 3. */
  maxRetries?: number;
  /** Backoff of the first retry, in ms; doubles with each retry, with jitter. Default 500. */
  retryDelayMs?: number;
  /** Longest backoff between retries, in ms (a `Retry-After` may ask for more, up to 5 minutes). Default 30,000. */
  maxRetryDelayMs?: number;
  /** Deadline of each request (connect, send, answer), in ms. Default 10,000. */
  timeoutMs?: number;
  /**
   * Called for each failure: a batch that finally failed, messages the endpoint rejected, a message
   * dropped because the queue was full. Default: a process warning (`process.emitWarning`).
   */
  onError?: (error: ClientError) => void;
  /** Called for each batch the endpoint accepted. */
  onSuccess?: (result: BatchResult) => void;
  /** Time source for timestamps, the flush timer, retries and timeouts; tests inject their own. */
  clock?: ClientClock;
}

export interface ResolvedOptions {
  endpoint: URL;
  flushAt: number;
  flushAfter: number;
  maxQueueSize: number;
  maxQueueBytes: number;
  maxInFlight: number;
  maxRetries: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  timeoutMs: number;
  onError: ClientOptions['onError'];
  onSuccess: ClientOptions['onSuccess'];
  clock: ClientClock;
}

/** Fills in defaults and checks every option; throws `ClientError` (`invalid_option`) naming the bad one. */
export function resolveOptions(writeKey: unknown, options: ClientOptions = {}): ResolvedOptions {
  if (typeof writeKey !== 'string' || writeKey.length === 0) {
    throw invalid('writeKey must be a non-empty string (a source\'s write key)');
  }
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  if (options.flushAt !== undefined && options.size !== undefined && options.flushAt !== options.size) {
    throw invalid(`flushAt (${options.flushAt}) and size (${options.size}) are the same setting; give one`);
  }
  const endpoint = parseEndpoint(options.endpoint ?? DEFAULT_ENDPOINT);
  const flushAt = integer('flushAt', options.flushAt ?? options.size, 20, 1, MAX_BATCH_EVENTS);
  const resolved: ResolvedOptions = {
    endpoint,
    flushAt,
    flushAfter: integer('flushAfter', options.flushAfter, 5000, 1, 2 ** 31 - 1),
    maxQueueSize: integer('maxQueueSize', options.maxQueueSize, 10_000, flushAt, Number.MAX_SAFE_INTEGER),
    maxQueueBytes: integer('maxQueueBytes', options.maxQueueBytes, 16 * 1024 * 1024, 1024 * 1024, Number.MAX_SAFE_INTEGER),
    maxInFlight: integer('maxInFlight', options.maxInFlight, 4, 1, 256),
    maxRetries: integer('maxRetries', options.maxRetries, 3, 0, 100),
    retryDelayMs: integer('retryDelayMs', options.retryDelayMs, 500, 0, 2 ** 31 - 1),
    maxRetryDelayMs: integer('maxRetryDelayMs', options.maxRetryDelayMs, 30_000, 0, 2 ** 31 - 1),
    timeoutMs: integer('timeoutMs', options.timeoutMs, 10_000, 1, 2 ** 31 - 1),
    onError: hook('onError', options.onError),
    onSuccess: hook('onSuccess', options.onSuccess),
    clock: options.clock ?? systemClock,
  };
  return resolved;
}

function parseEndpoint(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`endpoint ${JSON.stringify(text)} is not a URL; expected e.g. ${DEFAULT_ENDPOINT}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`endpoint must use http or https, not ${url.protocol.slice(0, -1)}`);
  if (url.username || url.password) throw invalid('endpoint must not carry credentials; the write key is sent as Basic auth');
  if (url.search || url.hash) throw invalid('endpoint must not have a query or fragment');
  return url;
}

function integer(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function hook<T>(name: string, value: T): T {
  if (value !== undefined && typeof value !== 'function') throw invalid(`${name} must be a function`);
  return value;
}

function invalid(message: string): ClientError {
  return new ClientError('invalid_option', message);
}
