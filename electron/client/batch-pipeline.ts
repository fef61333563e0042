// The client's machine (client.ts holds its public calls): the queue's sequence numbers (what flush()
// waits for), the batches in flight with their retries, the flush timer and the waiters. One class on
// purpose, of about 450 lines: those share their state, and splitting the machine would pass it
// around. Its parts live beside it: the queue (message-queue.ts), batch bodies (batch-splitter.ts),
// the HTTP side (batch-sender.ts), backoff, options, message building, state notifications
// (queue-state.ts) and the debug log.
import type { MessageType } from '../../shared/message-rules.ts';
import { MAX_BATCH_EVENTS, SEGMENT_MAX_REQUEST_BYTES } from '../../shared/limits.ts';
import { backoffDelay } from './backoff.ts';
import { BatchBody, BodyBuffers, ENVELOPE_BYTES, nextBatch } from './batch-splitter.ts';
import { BatchSender, type AttemptResult } from './batch-sender.ts';
import type { ClientClock } from './clock.ts';
import { createDebugLog, type DebugLog } from './debug-log.ts';
import { ClientError, type ClientErrorCode } from './errors.ts';
import { buildMessage, isoTime, type ParamsByType } from './message-builder.ts';
import { MessageQueue } from './message-queue.ts';
import type { ResolvedOptions } from './options.ts';
import type { BatchResult, ClientState, LastResult, StateListener } from '../../shared/client-state.ts';
import { StateNotifier } from './queue-state.ts';

/** Why a batch left the queue (shown by `DEBUG=analytics`). */
type FlushReason = 'count' | 'bytes' | 'timer' | 'flush' | 'close';

interface InFlightBatch {
  readonly id: number;
  /** Sequence number of its first message; its messages are the next `body.count` numbers. */
  readonly firstSeq: number;
  readonly body: BatchBody;
  attempts: number;
  /** Ends a retry delay early (close with a timeout). */
  wake: (() => void) | null;
}

const RESOLVED: Promise<void> = Promise.resolve();

/** What a Client runs on: everything but the public calls' checks and documentation. */
export class BatchPipeline {
  readonly #options: ResolvedOptions;
  readonly #clock: ClientClock;
  readonly #queue: MessageQueue;
  readonly #sender: BatchSender;
  readonly #debug: DebugLog;
  readonly #notifier: StateNotifier;
  readonly #inFlight = new Set<InFlightBatch>();
  readonly #bodyBuffers: BodyBuffers;
  #inFlightMessages = 0;
  #batchIds = 0;
  /** Messages with a sequence number below this are sent now, however few (timer, flush, close). */
  #flushTarget = 0;
  #flushReason: FlushReason = 'flush';
  #timer: unknown = undefined;
  #timerDueAt: number | null = null;
  #flushWaiters: { target: number; resolve: () => void }[] = [];
  #roomWaiters: (() => void)[] = [];
  #closing: Promise<void> | null = null;
  #closed = false;
  /** Set when close() gives up: nothing more is sent or retried. */
  #aborted = false;
  #sent = 0;
  #failed = 0;
  #dropped = 0;
  #lastResult: LastResult | null = null;
  /** The default error handler warns once per run of dropped messages, not once per message. */
  #dropWarned = false;

  constructor(writeKey: string, options: ResolvedOptions) {
    this.#options = options;
    this.#clock = this.#options.clock;
    this.#queue = new MessageQueue(this.#options.maxQueueSize, this.#options.maxQueueBytes);
    this.#bodyBuffers = new BodyBuffers(this.#options.maxInFlight);
    this.#sender = new BatchSender({
      endpoint: this.#options.endpoint,
      writeKey,
      timeoutMs: this.#options.timeoutMs,
      connections: this.#options.maxInFlight,
      clock: this.#clock,
    });
    this.#debug = createDebugLog(process.env.DEBUG, undefined, () => this.#clock.now());
    this.#notifier = new StateNotifier(
      () => this.state,
      (error) => warn(`a state listener threw: ${(error as Error)?.message ?? error}`),
    );
    this.#debug?.('client', {
      url: this.#sender.url,
      flushAt: this.#options.flushAt,
      flushAfter: this.#options.flushAfter,
      maxQueueSize: this.#options.maxQueueSize,
      maxInFlight: this.#options.maxInFlight,
    });
  }

  // What Client's public calls do (documented there).

  flush(): Promise<void> {
    if (this.#closed) {
      return Promise.reject(new ClientError('client_closed', 'flush() after close(): the client is closed (close() already flushed)'));
    }
    return this.#flushAll('flush');
  }

  /** Closes once: a second call returns the first call's promise. `timeoutMs` as close() checked it. */
  close(timeoutMs: number | undefined): Promise<void> {
    if (!this.#closing) {
      this.#closed = true;
      this.#closing = this.#close(timeoutMs);
    }
    return this.#closing;
  }

  get hasRoom(): boolean {
    return this.#queue.hasRoom;
  }

  waitForRoom(): Promise<void> {
    if (this.#queue.hasRoom) return RESOLVED;
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  get state(): ClientState {
    const now = this.#clock.now();
    return {
      queued: this.#queue.length,
      queuedBytes: this.#queue.bytes,
      nextFlushAt: this.#timerDueAt,
      nextFlushInMs: this.#timerDueAt === null ? null : Math.max(0, this.#timerDueAt - now),
      inFlightBatches: this.#inFlight.size,
      inFlightMessages: this.#inFlightMessages,
      sent: this.#sent,
      failed: this.#failed,
      dropped: this.#dropped,
      lastResult: this.#lastResult,
      closed: this.#closed,
    };
  }

  subscribe(listener: StateListener): () => void {
    return this.#notifier.subscribe(listener);
  }

  /** The message calls: queued (true), dropped because the queue is full (false), or a ClientError thrown. */
  enqueue<T extends MessageType>(type: T, params: ParamsByType[T]): boolean {
    if (this.#closed) throw new ClientError('client_closed', `${type}: the client is closed; messages cannot be queued after close()`);
    const message = buildMessage(type, params, this.#clock.now());
    const queue = this.#queue;
    if (!queue.accepts(message.bytes)) {
      this.#dropped++;
      this.#debug?.('drop', { type, messageId: message.id, queued: queue.length, queuedBytes: queue.bytes, reason: 'queue full' });
      this.#report(
        new ClientError(
          'queue_full',
          `${type} dropped: the queue is full (${queue.length} messages, ${queue.bytes} bytes); wait for room with waitForRoom() or raise maxQueueSize/maxQueueBytes`,
          { messageIds: [message.id] },
        ),
      );
      this.#notifier.changed();
      return false;
    }
    queue.push(message.json, message.bytes);
    this.#debug?.('queue', { type, messageId: message.id, bytes: message.bytes, queued: queue.length });
    // A full batch is due: send it if a request slot is free (else it goes when one frees up).
    const due = queue.length >= this.#options.flushAt || queue.bytes + ENVELOPE_BYTES + queue.length > SEGMENT_MAX_REQUEST_BYTES;
    if (due && this.#inFlight.size < this.#options.maxInFlight) this.#pump();
    else this.#armTimer();
    this.#notifier.changed();
    return true;
  }

  // ---------------------------------------------------------------------------------------------

  /** Sends batches while there are free slots and batches due (full ones, or any covered by a flush). */
  #pump(): void {
    const queue = this.#queue;
    const { flushAt, maxInFlight } = this.#options;
    let took = false;
    while (this.#inFlight.size < maxInFlight && queue.length > 0 && !this.#aborted) {
      const batch = nextBatch(queue, flushAt);
      const forced = queue.headSeq < this.#flushTarget;
      if (!batch.full && !forced) break;
      const reason: FlushReason = batch.full ? (batch.count === Math.min(flushAt, MAX_BATCH_EVENTS) ? 'count' : 'bytes') : this.#flushReason;
      const firstSeq = queue.headSeq;
      this.#start(new BatchBody(queue, batch.count, this.#bodyBuffers), firstSeq, reason);
      took = true;
    }
    if (took) {
      // The timer counts from the first message queued after a flush: one left queued by this flush
      // (it did not fit, or no slot was free) keeps the timer it started, so it waits no longer than
      // flushAfter for its turn.
      if (queue.length === 0) this.#stopTimer();
      this.#wakeRoomWaiters();
    }
    this.#armTimer();
  }

  #start(body: BatchBody, firstSeq: number, reason: FlushReason): void {
    const batch: InFlightBatch = { id: ++this.#batchIds, firstSeq, body, attempts: 0, wake: null };
    this.#inFlight.add(batch);
    this.#inFlightMessages += body.count;
    this.#debug?.('flush', {
      reason,
      batch: batch.id,
      messages: body.count,
      bytes: body.body.length,
      queued: this.#queue.length,
      inFlight: this.#inFlight.size,
    });
    this.#notifier.changed();
    void this.#send(batch);
  }

  /** Sends one batch, retrying as allowed, then reports and frees its slot. Never rejects. */
  async #send(batch: InFlightBatch): Promise<void> {
    const { maxRetries, retryDelayMs, maxRetryDelayMs } = this.#options;
    const started = performance.now();
    let result: AttemptResult | undefined;
    try {
      for (;;) {
        batch.attempts++;
        batch.body.stamp(isoTime(this.#clock.now()));
        this.#debug?.('request', { batch: batch.id, attempt: batch.attempts, url: this.#sender.url, messages: batch.body.count, bytes: batch.body.body.length });
        result = await this.#sender.send(batch.body.body);
        this.#debug?.('response', {
          batch: batch.id,
          attempt: batch.attempts,
          status: result.status ?? undefined,
          error: result.errorCode ?? undefined,
          ms: Math.round(result.durationMs),
          rejected: result.rejected.length || undefined,
          message: result.errorMessage ?? undefined,
        });
        if (result.ok || !result.retryable || batch.attempts > maxRetries || this.#aborted) break;
        const delay = result.retryAfterMs ?? backoffDelay(batch.attempts, { baseMs: retryDelayMs, maxMs: maxRetryDelayMs });
        this.#debug?.('retry', {
          batch: batch.id,
          attempt: batch.attempts + 1,
          inMs: delay,
          after: result.status ?? result.errorCode,
          retryAfter: result.retryAfterMs === undefined ? undefined : true,
        });
        await this.#sleep(delay, batch);
        if (this.#aborted) break;
      }
    } catch (error) {
      // Not expected (the sender reports every outcome); kept so a bug cannot leave a batch in flight.
      result = failure('network_error', `unexpected error: ${(error as Error)?.message ?? error}`);
    }
    if (this.#aborted && !result?.ok) result = failure('aborted', 'the client was closed before the batch was accepted');
    this.#settle(batch, result ?? failure('aborted', 'not sent'), performance.now() - started);
  }

  #settle(batch: InFlightBatch, result: AttemptResult, durationMs: number): void {
    const { body } = batch;
    const count = body.count;
    this.#inFlight.delete(batch);
    this.#inFlightMessages -= count;
    const at = this.#clock.now();
    if (result.ok) {
      const valid = result.rejected.filter((r) => r.index >= 0 && r.index < count);
      const rejectedIds = valid.length > 0 ? body.messageIds(valid.map((r) => r.index)) : [];
      const rejected = valid.map((r, i) => ({ index: r.index, code: r.code, message: r.message, messageId: rejectedIds[i]! }));
      this.#sent += count - rejected.length;
      this.#failed += rejected.length;
      this.#lastResult = { ok: true, at, messages: count, status: result.status, attempts: batch.attempts, durationMs, error: null };
      const { onSuccess } = this.#options;
      if (onSuccess) {
        const success: BatchResult = {
          count,
          messageIds: body.messageIds(),
          status: result.status!,
          attempts: batch.attempts,
          durationMs,
          bytes: body.body.length,
          rejected,
        };
        this.#call('onSuccess', () => onSuccess(success));
      }
      if (rejected.length > 0) {
        const first = rejected[0]!;
        this.#report(
          new ClientError('rejected', `the endpoint rejected ${rejected.length} of ${count} messages (first: ${first.code}: ${first.message})`, {
            messageIds: rejected.map((r) => r.messageId),
            status: result.status!,
            attempts: batch.attempts,
          }),
        );
      }
    } else {
      const code = result.errorCode ?? 'http_error';
      const retried = batch.attempts > 1 ? ` after ${batch.attempts} attempts` : '';
      const error = new ClientError(code, `batch of ${count} messages failed${retried}: ${result.errorMessage ?? code}`, {
        messageIds: body.messageIds(),
        ...(result.status === null ? {} : { status: result.status }),
        attempts: batch.attempts,
      });
      this.#failed += count;
      this.#lastResult = { ok: false, at, messages: count, status: result.status, attempts: batch.attempts, durationMs, error: { code, message: error.message } };
      this.#report(error);
    }
    // The body's memory goes back to the pool once the endpoint has answered: nothing reads it any more.
    if (result.status !== null) body.release();
    this.#wakeFlushWaiters();
    this.#pump();
    this.#notifier.changed();
  }

  #sleep(ms: number, batch: InFlightBatch): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#clock.setTimeout(() => {
        batch.wake = null;
        resolve();
      }, ms);
      batch.wake = () => {
        this.#clock.clearTimeout(timer);
        batch.wake = null;
        resolve();
      };
    });
  }

  #flushAll(reason: FlushReason): Promise<void> {
    const target = this.#queue.nextSeq;
    if (this.#lowestUnsettled() >= target) return RESOLVED;
    if (this.#flushTarget < target) {
      this.#flushTarget = target;
      this.#flushReason = reason;
    }
    const done = new Promise<void>((resolve) => this.#flushWaiters.push({ target, resolve }));
    this.#pump();
    return done;
  }

  async #close(timeoutMs: number | undefined): Promise<void> {
    this.#debug?.('close', { queued: this.#queue.length, inFlight: this.#inFlight.size, timeoutMs });
    this.#stopTimer();
    this.#notifier.changed();
    const flushed = this.#flushAll('close');
    let timedOut = false;
    if (timeoutMs !== undefined) {
      let timer: unknown;
      const expired = new Promise<boolean>((resolve) => {
        timer = this.#clock.setTimeout(() => resolve(true), timeoutMs);
      });
      timedOut = await Promise.race([flushed.then(() => false), expired]);
      this.#clock.clearTimeout(timer);
      if (timedOut) this.#abort();
    }
    await flushed;
    // Out of time, the connections are dropped, even those still connecting (nothing cuts those short).
    await (timedOut ? this.#sender.destroy() : this.#sender.close());
    this.#debug?.('closed', { sent: this.#sent, failed: this.#failed, dropped: this.#dropped });
    this.#notifier.changed();
  }

  /** close() ran out of time: fail what is queued, cut requests short, end retry delays. */
  #abort(): void {
    this.#aborted = true;
    while (this.#queue.length > 0) {
      const dropped = new BatchBody(this.#queue, Math.min(this.#queue.length, MAX_BATCH_EVENTS));
      this.#failed += dropped.count;
      this.#report(
        new ClientError('aborted', `${dropped.count} queued messages were not sent: close() timed out`, { messageIds: dropped.messageIds() }),
      );
    }
    this.#sender.abortAll();
    for (const batch of this.#inFlight) batch.wake?.();
    this.#wakeFlushWaiters();
    this.#wakeRoomWaiters();
  }

  /** The lowest sequence number not yet accepted or finally failed. */
  #lowestUnsettled(): number {
    let lowest = this.#queue.headSeq; // = nextSeq when the queue is empty
    for (const batch of this.#inFlight) lowest = Math.min(lowest, batch.firstSeq);
    return lowest;
  }

  #wakeFlushWaiters(): void {
    if (this.#flushWaiters.length === 0) return;
    const lowest = this.#lowestUnsettled();
    const waiting: { target: number; resolve: () => void }[] = [];
    for (const waiter of this.#flushWaiters) {
      if (waiter.target <= lowest) waiter.resolve();
      else waiting.push(waiter);
    }
    this.#flushWaiters = waiting;
  }

  #wakeRoomWaiters(): void {
    if (this.#queue.hasRoom) this.#dropWarned = false;
    if (this.#roomWaiters.length === 0 || !this.#queue.belowLowWater) return;
    const waiters = this.#roomWaiters;
    this.#roomWaiters = [];
    for (const resolve of waiters) resolve();
  }

  #armTimer(): void {
    if (this.#timer !== undefined || this.#closed) return;
    // Only messages no flush covers yet need the timer.
    if (this.#queue.nextSeq <= Math.max(this.#flushTarget, this.#queue.headSeq)) return;
    const { flushAfter } = this.#options;
    this.#timerDueAt = this.#clock.now() + flushAfter;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#timerDueAt = null;
      this.#flushTarget = this.#queue.nextSeq;
      this.#flushReason = 'timer';
      this.#pump();
      this.#notifier.changed();
    }, flushAfter);
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDueAt = null;
  }

  #report(error: ClientError): void {
    const { onError } = this.#options;
    if (onError) {
      this.#call('onError', () => onError(error));
      return;
    }
    if (error.code === 'queue_full') {
      if (this.#dropWarned) return;
      this.#dropWarned = true;
      warn(`${error.message} (further drops are counted in client.state.dropped until the queue has room again)`);
      return;
    }
    warn(error.message);
  }

  #call(hook: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      warn(`the ${hook} hook threw: ${(error as Error)?.message ?? error}`);
    }
  }
}

function failure(code: ClientErrorCode & AttemptResult['errorCode'], message: string): AttemptResult {
  return { ok: false, status: null, retryable: false, retryAfterMs: undefined, errorCode: code, errorMessage: message, rejected: [], durationMs: 0 };
}

function warn(message: string): void {
  process.emitWarning(message, { type: 'SluiceClientWarning' });
}
