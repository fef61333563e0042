// The client's public calls, each documented: what users of `sluice/client` see. The machine behind
// them (queue, batches in flight, retries, timers, waiters) is batch-pipeline.ts.
import { BatchPipeline } from './batch-pipeline.ts';
import { ClientError } from './errors.ts';
import type { AliasParams, GroupParams, IdentifyParams, PageParams, ScreenParams, TrackParams } from './message-builder.ts';
import { resolveOptions, type ClientOptions } from './options.ts';
import type { ClientState, StateListener } from '../../shared/client-state.ts';

/** The longest delay a timer can hold (2^31 − 1 ms); Node fires longer ones at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Sends analytics messages to a Segment-compatible endpoint (Sluice by default) in batches. Runs on
 * Node.js 20 and later (ES modules and CommonJS); it depends on no package.
 *
 * Message calls (`identify`, `track`, `page`, `screen`, `group`, `alias`) validate the message,
 * serialize it and queue it, synchronously; they never wait for the network. The queue is sent
 * as `POST {endpoint}/v1/batch` requests when `flushAt` messages are queued, `flushAfter` ms after
 * the last flush, on `flush()` and on `close()`. Failed requests are retried with backoff; results
 * go to the `onSuccess`/`onError` hooks, never to an exception or a rejected promise.
 *
 * Call `await client.close()` before your process exits: messages still queued are lost otherwise.
 *
 * @example
 * ```ts
 * import { Client } from 'sluice/client';
 * const client = new Client('wk_web', { onError: (e) => console.error(e.code, e.message) });
 * client.track({ userId: 'u_1', event: 'Order Completed', properties: { revenue: 42 } });
 * await client.close();
 * ```
 */
export class Client {
  readonly #pipeline: BatchPipeline;

  /**
   * @param writeKey - the write key of a source; sent as the Basic auth username.
   * @param options - see {@link ClientOptions}; all optional.
   * @throws {@link ClientError} `invalid_option` when the write key or an option is invalid.
   */
  constructor(writeKey: string, options: ClientOptions = {}) {
    this.#pipeline = new BatchPipeline(writeKey, resolveOptions(writeKey, options));
  }

  /**
   * Queues an identify message: who the user is (`traits`).
   * @returns `true` when queued; `false` when dropped because the queue is full (reported to `onError`).
   * @throws {@link ClientError} when the message is invalid (e.g. `missing_user`), over 32 KB, or the client is closed.
   */
  identify(params: IdentifyParams): boolean {
    return this.#pipeline.enqueue('identify', params);
  }

  /**
   * Queues a track message: the user did `event`.
   * @returns `true` when queued; `false` when dropped because the queue is full (reported to `onError`).
   * @throws {@link ClientError} when the message is invalid (e.g. `missing_event`), over 32 KB, or the client is closed.
   */
  track(params: TrackParams): boolean {
    return this.#pipeline.enqueue('track', params);
  }

  /**
   * Queues a page message: the user viewed a page. The page's `traits` (url, title, referrer, path,
   * custom keys) are sent as the message's `properties`.
   * @returns `true` when queued; `false` when dropped because the queue is full (reported to `onError`).
   * @throws {@link ClientError} when the message is invalid, over 32 KB, or the client is closed.
   */
  page(params: PageParams): boolean {
    return this.#pipeline.enqueue('page', params);
  }

  /**
   * Queues a screen message: the user viewed a screen of a mobile or desktop app.
   * @returns `true` when queued; `false` when dropped because the queue is full (reported to `onError`).
   * @throws {@link ClientError} when the message is invalid, over 32 KB, or the client is closed.
   */
  screen(params: ScreenParams): boolean {
    return this.#pipeline.enqueue('screen', params);
  }

  /**
   * Queues a group message: the user belongs to the group `groupId` (with its `traits`).
   * @returns `true` when queued; `false` when dropped because the queue is full (reported to `onError`).
   * @throws {@link ClientError} when the message is invalid (e.g. `missing_group_id`), over 32 KB, or the client is closed.
   */
  group(params: GroupParams): boolean {
    return this.#pipeline.enqueue('group', params);
  }

  /**
   * Queues an alias message: `previousId` and `userId` are the same user.
   * @returns `true` when queued; `false` when dropped because the queue is full (reported to `onError`).
   * @throws {@link ClientError} when the message is invalid (e.g. `missing_previous_id`), over 32 KB, or the client is closed.
   */
  alias(params: AliasParams): boolean {
    return this.#pipeline.enqueue('alias', params);
  }

  /**
   * Sends everything queued now, without waiting for `flushAt` or `flushAfter`.
   * @returns a promise that resolves once every message queued before the call has been
   * accepted by the endpoint or has finally failed (failures go to `onError`). It never rejects,
   * except when the client is closed (`client_closed`).
   */
  flush(): Promise<void> {
    return this.#pipeline.flush();
  }

  /**
   * Flushes, waits for every batch to be accepted or to finally fail, stops the timers and closes
   * the connections. Message calls and `flush()` made afterwards fail with `client_closed`.
   * Calling it again returns the same promise. Never rejects.
   *
   * @param options.timeoutMs - give up after this long: requests in progress are cut short,
   * connections are dropped, and messages not yet accepted are reported to `onError` as `aborted`.
   * Default (and `Infinity`): wait as long as the retries take.
   * @throws {@link ClientError} `invalid_option` when `timeoutMs` is not a number ≥ 0.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    const { timeoutMs } = options;
    if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0)) {
      throw new ClientError('invalid_option', `close(): timeoutMs must be a number of milliseconds ≥ 0 (or Infinity), not ${String(timeoutMs)}`);
    }
    // Past what a timer can hold (about 24.8 days) it is as good as no deadline; a timer would fire at once.
    return this.#pipeline.close(timeoutMs === undefined || timeoutMs > MAX_TIMER_MS ? undefined : timeoutMs);
  }

  /** True while the queue has room for any valid message: the next message call will queue it. */
  get hasRoom(): boolean {
    return this.#pipeline.hasRoom;
  }

  /**
   * Back-pressure for bulk sends: resolves at once while the queue has room, otherwise once it has
   * drained to half its limits. Use it in loops that produce messages faster than they can be sent:
   * ```ts
   * for (const row of rows) {
   *   if (!client.hasRoom) await client.waitForRoom();
   *   client.track(toEvent(row));
   * }
   * ```
   */
  waitForRoom(): Promise<void> {
    return this.#pipeline.waitForRoom();
  }

  /** A snapshot of the queue: counts, bytes, the next timed flush, batches in flight, the last result. */
  get state(): ClientState {
    return this.#pipeline.state;
  }

  /**
   * Calls `listener` with the current state now and after changes (at most once per turn of the
   * event loop). Returns a function that unsubscribes.
   */
  subscribe(listener: StateListener): () => void {
    return this.#pipeline.subscribe(listener);
  }
}
