import { signBody } from './signature.ts';
import { webhookBody } from '../../../shared/webhook-body.ts';
import type { DeliveryChange, EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import type { AttemptRecord, DeliveryResult } from '../store/delivery-types.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import type { DeliveriesRepo, Delivery, DueCursor, DueDelivery } from '../store/deliveries-repo.ts';
import type { Destination, DestinationsRepo } from '../store/destinations-repo.ts';
import type { MessagesRepo } from '../store/messages-repo.ts';
import { announceStored } from './announce.ts';
import { nextAttemptAt, parseRetryAfter, RETRY_WINDOW_MS } from './retry-schedule.ts';
import { USER_AGENT, type SendResult, type WebhookSender } from './webhook-sender.ts';

export interface DeliveryEngineOptions {
  deliveries: DeliveriesRepo;
  messages: MessagesRepo;
  destinations: DestinationsRepo;
  /** The store's writer: results are committed there before they are announced. */
  writer: StoreWriter;
  bus: EventBus;
  clock: Clock;
  sender: WebhookSender;
  /** Deliveries in flight (sending, or sent and awaiting their commit) at once, over all destinations. */
  maxInFlight?: number;
  random?: () => number;
}

/**
 * Deliveries sent but not yet durably recorded, at most: after a crash, at most this many are sent
 * again (at least once, never lost).
 */
export const DEFAULT_MAX_IN_FLIGHT = 256;

/** A group of results is committed after this long, or at this size. */
const COMMIT_GROUP_MS = 5;
const COMMIT_GROUP_MAX = 256;

/** A delivery whose message was purged (or is otherwise gone): failed, nothing sent. */
const PURGED = 'the message is no longer stored (purged?); nothing was sent';

/** Longest sleep between checks for due deliveries; with an injected clock, call kick() after advancing. */
const MAX_SLEEP_MS = 30_000;

/**
 * Due deliveries a destination may hold in the ready queue: a few rounds' worth per slot, and at
 * least 256, so that a refill (one query, which also re-reads the deliveries in flight: they are
 * due until committed) serves many rounds; refilled once half are gone. Per destination, so that
 * one destination's backlog never takes the queue from the others.
 */
function readyCap(destination: Destination): number {
  return Math.max(destination.options.concurrency * 8, 256);
}

/** A queued delivery's webhook body and signature, and the settings they were built with. */
interface PreparedBody {
  body: string;
  signature: string | null;
  bodyShape: Destination['options']['bodyShape'];
  sharedSecret: string | null;
}

/** A destination's due deliveries, read from the store but not started yet, in due order. */
interface ReadyQueue {
  items: DueDelivery[];
  head: number;
  /** Items from head still in #readyIds (not cancelled). */
  ready: number;
}

/**
 * Sends due deliveries: one round posts the message's body to every webhook of the destination at
 * once; any 2xx delivers it (no further rounds); otherwise a retryable failure schedules the next
 * round within the 4-hour window (retry-schedule.ts). Each round's result (the delivery's new state
 * and one attempt per webhook) is committed by the store's writer before it is announced. Rows
 * are the queue: a delivery that was in flight when the process died is still pending or retrying
 * in the store and is sent again on start (at least once).
 */
export class DeliveryEngine {
  readonly #o: DeliveryEngineOptions;
  readonly #maxInFlight: number;
  readonly #inFlight = new Set<number>();
  /** Deliveries cancelled while their round was in flight: their result announces the stored state (see #commit). */
  readonly #cancelledInFlight = new Set<number>();
  /**
   * Due deliveries read from the store but not started yet, one FIFO per destination; refilled in
   * batches, not per round. An id leaving #readyIds (cancelled) is skipped when its turn comes.
   */
  readonly #queues = new Map<number, ReadyQueue>();
  /** Queued delivery id → its destination. */
  readonly #readyIds = new Map<number, number>();
  /** Per destination: its deliveries in #inFlight (they are still due in the store until committed). */
  readonly #inFlightBy = new Map<number, number>();
  /**
   * Queued deliveries' bodies, built by the store's writer thread at refill (prepare-bodies.ts) —
   * or the promise of them while it works. Dropped when messages may have been purged.
   */
  readonly #bodies = new Map<number, PreparedBody | Promise<void>>();
  /** Purges under way (see purging()). */
  #purges = 0;
  /** Moves at each purge's start and end: bodies asked for before then are not used. */
  #generation = 0;
  /**
   * Destinations whose every due delivery we hold (queued or in flight), as the last read found:
   * reading again before something changes (new deliveries, time passing) would return the same
   * rows, on every round. The value is when its next stored delivery falls due (null: none is
   * stored); kick() forgets them all.
   */
  readonly #heldAll = new Map<number, number | null>();
  /**
   * Per destination, where its last read of due rows stopped. Every due row up to there is ours
   * (queued or in flight) or settled, so the next read starts after it instead of reading them all
   * again — until something may have made an earlier row due: any write outside a round kicks
   * (kick() forgets every cursor), a round due again at once or a failed commit forgets its own.
   */
  readonly #cursors = new Map<number, DueCursor>();
  readonly #perDestination = new Map<number, number>();
  readonly #rounds = new Set<Promise<void>>();
  #pumpScheduled = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Held by the user (or a benchmark): rounds in flight finish, no new ones start. */
  #held = false;
  #results: DeliveryResult[] = [];
  /** After a failed commit, no new rounds until then (real time): the store needs a moment. */
  #pausedUntil = 0;
  #resultsCommit: Promise<void> | undefined;
  #flushResults: (() => void) | undefined;

  constructor(options: DeliveryEngineOptions) {
    this.#o = options;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  }

  /** Looks for due deliveries now (new messages, a settings change, or a test's clock moved). */
  kick(): void {
    this.#heldAll.clear();
    this.#cursors.clear();
    this.#schedulePump();
  }

  #schedulePump(): void {
    if (this.#closed || this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /** Holds deliveries (nothing new is sent; rows stay due) or lets them go again. */
  setHeld(held: boolean): void {
    this.#held = held;
    if (!held) this.kick();
  }

  get held(): boolean {
    return this.#held;
  }

  /** Drops deliveries from the ready queue (they were cancelled): only the store's state counts. */
  forget(deliveryIds: number[]): void {
    for (const id of deliveryIds) {
      const destinationId = this.#readyIds.get(id);
      if (destinationId !== undefined) {
        this.#readyIds.delete(id);
        const queue = this.#queues.get(destinationId);
        if (queue) queue.ready--;
      }
      if (this.#inFlight.has(id)) this.#cancelledInFlight.add(id);
    }
  }

  /**
   * Around a purge: until the returned function is called, rounds read their message from the store
   * (not from what a refill read earlier), and then what was read before is dropped. So no round
   * sends a purged message, not even one starting between the commit and its announcement here.
   */
  purging(): () => void {
    this.#purges++;
    this.#generation++;
    return () => {
      for (const [id, body] of this.#bodies) if (!(body instanceof Promise)) this.#bodies.delete(id);
      this.#generation++;
      this.#purges--;
    };
  }

  /** Resolves when nothing is in flight and no pump is pending (for tests and shutdown). */
  async idle(): Promise<void> {
    // A kick just before this call has only scheduled its pump: let it run and start its rounds.
    while (this.#pumpScheduled || this.#rounds.size > 0) {
      if (this.#rounds.size > 0) await Promise.all([...this.#rounds]);
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.idle();
  }

  #pump(): void {
    if (this.#closed || this.#held) return;
    clearTimeout(this.#timer);
    const pause = this.#pausedUntil - Date.now();
    if (pause > 0) {
      this.#timer = setTimeout(() => this.kick(), pause).unref();
      return;
    }
    const now = this.#o.clock.now();
    // Each enabled destination's queue is refilled on its own once it runs low; disabled and
    // deleted destinations are never read (their deliveries stay due in the store).
    let wakeAt = Infinity;
    for (const destination of this.#o.destinations.list()) {
      if (!destination.enabled) continue;
      const nextAt = this.#heldAll.get(destination.id);
      if (nextAt !== undefined && nextAt !== null && nextAt <= now) this.#heldAll.delete(destination.id);
      const cap = readyCap(destination);
      if (!this.#heldAll.has(destination.id) && (this.#queues.get(destination.id)?.ready ?? 0) <= cap / 2) {
        this.#refill(destination, cap, now);
      }
      const heldUntil = this.#heldAll.get(destination.id);
      if (heldUntil !== undefined && heldUntil !== null) wakeAt = Math.min(wakeAt, heldUntil);
    }

    // Start rounds one destination at a time, in turn, so that the free slots are shared.
    const turns: { queue: ReadyQueue; destination: Destination }[] = [];
    for (const [destinationId, queue] of this.#queues) {
      // Deleted or disabled since its deliveries were read: they are dropped from the queue, not sent.
      // A disabled destination's stay pending in the store and are read again once it is enabled.
      const destination = this.#o.destinations.byId(destinationId);
      if (destination?.enabled) turns.push({ queue, destination });
      else this.#drop(destinationId, queue);
    }
    let started = true;
    while (started && this.#inFlight.size < this.#maxInFlight) {
      started = false;
      for (const { queue, destination } of turns) {
        if (this.#inFlight.size >= this.#maxInFlight) break;
        if ((this.#perDestination.get(destination.id) ?? 0) >= destination.options.concurrency) continue;
        const delivery = this.#take(queue);
        if (!delivery) continue;
        this.#start(delivery, destination);
        started = true;
      }
    }
    for (const { queue, destination } of turns) {
      if (queue.head >= queue.items.length) this.#queues.delete(destination.id);
      else if (queue.head > 1024) {
        queue.items = queue.items.slice(queue.head);
        queue.head = 0;
      }
    }
    // Queued deliveries start as rounds finish (each pumps again); a destination whose due rows we
    // all hold is read again when its next one falls due, or on kick().
    if (wakeAt !== Infinity) this.#timer = setTimeout(() => this.kick(), Math.min(Math.max(wakeAt - now, 0), MAX_SLEEP_MS)).unref();
  }

  /** The queue's next delivery that was not cancelled meanwhile, out of the queue. */
  #take(queue: ReadyQueue): DueDelivery | undefined {
    while (queue.head < queue.items.length) {
      const delivery = queue.items[queue.head++]!;
      if (this.#readyIds.delete(delivery.id)) {
        queue.ready--;
        return delivery;
      }
      this.#bodies.delete(delivery.id); // cancelled meanwhile
    }
    return undefined;
  }

  #drop(destinationId: number, queue: ReadyQueue): void {
    for (let i = queue.head; i < queue.items.length; i++) {
      const id = queue.items[i]!.id;
      this.#readyIds.delete(id);
      this.#bodies.delete(id);
    }
    this.#queues.delete(destinationId);
    this.#heldAll.delete(destinationId); // read again once it is enabled
    this.#cursors.delete(destinationId);
  }

  /**
   * Reads the destination's due deliveries that are neither running nor already queued, up to its
   * cap. After its cursor, only rows no earlier read reached; without one, the store returns the
   * ones we hold too (they are due until their result is committed), so the read asks for that many more.
   */
  #refill(destination: Destination, cap: number, now: number): void {
    const destinationId = destination.id;
    let queue = this.#queues.get(destinationId);
    const cursor = this.#cursors.get(destinationId);
    const limit = cursor ? cap - (queue?.ready ?? 0) : cap + (this.#inFlightBy.get(destinationId) ?? 0);
    const due = this.#o.deliveries.dueFor(destinationId, now, limit, cursor);
    const last = due.at(-1);
    if (last) this.#cursors.set(destinationId, { at: last.nextAttemptAt, id: last.id });
    // We now hold every due delivery of this destination: wait for the next one to fall due.
    if (due.length < limit) this.#heldAll.set(destinationId, this.#o.deliveries.nextDueAfter(destinationId, now));
    const fresh = due.filter((delivery) => !this.#inFlight.has(delivery.id) && !this.#readyIds.has(delivery.id));
    if (fresh.length === 0) return;
    if (!queue) this.#queues.set(destinationId, (queue = { items: [], head: 0, ready: 0 }));
    for (const delivery of fresh) {
      queue.items.push(delivery);
      queue.ready++;
      this.#readyIds.set(delivery.id, destinationId);
    }
    this.#prepareBodies(destination, fresh.filter((delivery) => delivery.bodyOverride === null && delivery.messageId !== null));
  }

  /**
   * Asks the writer thread for these deliveries' bodies. Those it cannot build (message gone) and
   * those asked for before a purge's end are left out: their rounds build (or fail) them.
   */
  #prepareBodies(destination: Destination, deliveries: DueDelivery[]): void {
    if (deliveries.length === 0) return;
    const generation = this.#generation;
    const bodyShape = destination.options.bodyShape;
    const sharedSecret = destination.sharedSecret ?? null;
    const pending: Promise<void> = this.#o.writer
      .prepareBodies({ messageIds: deliveries.map((delivery) => delivery.messageId!), bodyShape, sharedSecret })
      .then((prepared) => {
        deliveries.forEach((delivery, i) => {
          if (this.#bodies.get(delivery.id) !== pending) return; // sent, cancelled or dropped meanwhile
          const body = prepared?.bodies[i] ?? null;
          if (body === null || generation !== this.#generation) this.#bodies.delete(delivery.id);
          else this.#bodies.set(delivery.id, { body, signature: prepared!.signatures[i] ?? null, bodyShape, sharedSecret });
        });
      });
    for (const delivery of deliveries) this.#bodies.set(delivery.id, pending);
  }

  /**
   * Hands a freed slot straight to the destination's next ready delivery, as a plain request loop
   * would: waiting for the pump (after every other callback of this loop turn) would leave the
   * slot, and the receiver, idle meanwhile.
   */
  #startNext(destinationId: number): void {
    if (this.#closed || this.#held || this.#inFlight.size >= this.#maxInFlight || Date.now() < this.#pausedUntil) return;
    const queue = this.#queues.get(destinationId);
    if (!queue) return;
    const destination = this.#o.destinations.byId(destinationId);
    if (!destination?.enabled || (this.#perDestination.get(destinationId) ?? 0) >= destination.options.concurrency) return;
    const delivery = this.#take(queue);
    if (delivery) this.#start(delivery, destination);
  }

  #start(delivery: DueDelivery, destination: Destination): void {
    this.#inFlight.add(delivery.id);
    this.#inFlightBy.set(destination.id, (this.#inFlightBy.get(destination.id) ?? 0) + 1);
    this.#perDestination.set(destination.id, (this.#perDestination.get(destination.id) ?? 0) + 1);
    // The destination's slot bounds requests to its receivers: it is freed when the requests end.
    // The delivery stays in #inFlight (never picked twice) until its result is durable.
    let slotHeld = true;
    const releaseSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      this.#perDestination.set(destination.id, (this.#perDestination.get(destination.id) ?? 1) - 1);
      this.#startNext(destination.id);
      this.#schedulePump();
    };
    const round = this.#round(delivery, destination, releaseSlot)
      .catch((error: unknown) => {
        // Most likely the store could not record the result: the delivery is still due in the
        // store and will be sent again (at least once), after a pause rather than in a tight loop.
        this.#pausedUntil = Date.now() + 1_000;
        this.#heldAll.delete(destination.id); // read it again
        this.#cursors.delete(destination.id);
        console.error(`sluice: delivery ${delivery.id}: ${(error as Error).message}`);
      })
      .finally(() => {
        releaseSlot();
        this.#inFlight.delete(delivery.id);
        this.#inFlightBy.set(destination.id, (this.#inFlightBy.get(destination.id) ?? 1) - 1);
        this.#cancelledInFlight.delete(delivery.id);
        this.#rounds.delete(round);
        this.#schedulePump();
      });
    this.#rounds.add(round);
  }

  async #round(delivery: DueDelivery, destination: Destination, releaseSlot: () => void): Promise<void> {
    const { clock, sender } = this.#o;
    // A body the writer is still building is waited for (a few ms at most) rather than built twice.
    let prepared = this.#bodies.get(delivery.id);
    const waited = prepared instanceof Promise;
    if (waited) {
      await prepared;
      prepared = this.#bodies.get(delivery.id);
    }
    this.#bodies.delete(delivery.id);
    if (waited) {
      // The world may have moved meanwhile (the writer can be busy for a while): settings saved (they
      // apply to this attempt), the destination disabled or deleted, the delivery cancelled, the
      // engine held or closing. Then nothing is sent: the delivery stays due in the store and is read
      // again (re-enabling, resuming and a failed cancel all kick; so does the next start).
      const current = this.#o.destinations.byId(destination.id);
      if (!current?.enabled || this.#held || this.#closed || this.#cancelledInFlight.has(delivery.id)) {
        this.#cursors.delete(destination.id);
        return;
      }
      destination = current;
    }
    const startedAt = clock.now();
    const firstAttemptAt = delivery.firstAttemptAt ?? startedAt;
    const deadlineAt = firstAttemptAt + RETRY_WINDOW_MS;
    const attemptCount = delivery.attemptCount + 1;

    // Settings are read at each round, so edits apply to the next attempt: a body prepared with
    // other settings (or before a purge began) is not used.
    const sharedSecret = destination.sharedSecret ?? null;
    let body = delivery.bodyOverride;
    let signature: string | null;
    if (
      body === null &&
      prepared !== undefined &&
      !(prepared instanceof Promise) &&
      this.#purges === 0 &&
      prepared.bodyShape === destination.options.bodyShape &&
      prepared.sharedSecret === sharedSecret
    ) {
      body = prepared.body;
      signature = prepared.signature;
    } else {
      /** Why nothing can be sent, if so; `unreadable` is announced with its message, a purge without. */
      let unsendable: { lastError: string; unreadable: boolean } | null = null;
      if (body === null) {
        // Through the store's link, in one read, not the id read at refill: a purge sets the link to
        // NULL, and the purged message's id may since have been given to a new message (ids are
        // reused once the newest rows are gone), which must not be sent as this delivery.
        let message: Record<string, unknown> | null = null;
        try {
          message = delivery.messageId === null ? null : (this.#o.messages.ofDelivery(delivery.id)?.message ?? null);
          if (!message) unsendable = { lastError: PURGED, unreadable: false };
        } catch (error) {
          // The store failing may pass (the round fails and is retried after a pause); a stored
          // message that cannot be normalized will not get better: fail it rather than retry forever.
          if ((error as { code?: string }).code === 'ERR_SQLITE_ERROR') throw error;
          unsendable = { lastError: `the stored message cannot be read (${(error as Error).message}); nothing was sent`, unreadable: true };
        }
        if (message) body = JSON.stringify(webhookBody(message, destination.options.bodyShape));
      } else if (delivery.messageId !== null && !this.#o.deliveries.hasMessage(delivery.id)) {
        // An edited replay carries its own body, but that is still its message's data: once the
        // message was purged it is not sent (the purge cleared the stored copy too).
        unsendable = { lastError: PURGED, unreadable: false };
      }
      if (unsendable || body === null) {
        await this.#commit(
          {
            deliveryId: delivery.id,
            status: 'failed',
            attemptCount: delivery.attemptCount,
            firstAttemptAt,
            nextAttemptAt: null,
            deadlineAt,
            lastError: unsendable?.lastError ?? PURGED,
            body: null,
            signature: null,
            attempts: [],
          },
          // A purged message is announced as of no message: the id it had may be another message's now.
          unsendable?.unreadable ? delivery : { ...delivery, messageId: null },
        );
        return;
      }
      signature = sharedSecret ? signBody(body, sharedSecret) : null;
    }
    const targets = delivery.targetUrl ? [{ url: delivery.targetUrl, headers: {} }] : destination.webhooks;
    // All of a round's requests start at once; the sender never rejects (failures are results).
    const requests = targets.map((webhook) => {
      const headers: Record<string, string> = {
        'User-Agent': USER_AGENT,
        'Content-Type': 'application/json',
        ...webhook.headers,
        ...(signature ? { 'X-Signature': signature } : {}),
      };
      const caCert = 'caCert' in webhook ? webhook.caCert : undefined;
      return { url: webhook.url, headers, result: sender.send({ url: webhook.url, body, headers, caCert }) };
    });
    const sent: { url: string; headers: Record<string, string>; result: SendResult }[] = [];
    for (const { url, headers, result } of requests) sent.push({ url, headers, result: await result });

    releaseSlot();
    const now = clock.now();
    const delivered = sent.some(({ result }) => result.ok);
    const retryable = !delivered && sent.some(({ result }) => result.retryable);
    const retryAfterMs = maxRetryAfter(sent.map(({ result }) => result), now);
    const next = retryable
      ? nextAttemptAt({ rounds: attemptCount, firstAttemptAt, now, retryAfterMs, ...(this.#o.random ? { random: this.#o.random } : {}) })
      : null;
    const status = delivered ? 'delivered' : next !== null ? 'retrying' : 'failed';
    // The last attempt's error (all of a round's attempts failed unless it delivered): the one the
    // store's summaries pair with its code (DeliveriesRepo.lastErrors).
    const lastAttemptError = sent.findLast(({ result }) => !result.ok)?.result.errorMessage ?? null;
    const lastError = delivered
      ? null
      : retryable && next === null
        ? `${lastAttemptError} — gave up: the 4-hour retry window is over`
        : lastAttemptError;
    const attempts: AttemptRecord[] = sent.map(({ url, headers, result }) => ({
      url,
      startedAt: result.startedAt,
      durationMs: result.durationMs,
      requestHeaders: JSON.stringify(headers),
      responseStatus: result.status,
      responseHeaders: result.responseHeaders ? JSON.stringify(result.responseHeaders) : null,
      responseBody: result.responseBody,
      errorCode: result.errorCode,
      errorMessage: result.errorMessage,
      outcome: result.ok ? 'success' : status === 'retrying' ? 'retry' : 'final',
      retryAt: status === 'retrying' ? next : null,
    }));
    await this.#commit(
      { deliveryId: delivery.id, status, attemptCount, firstAttemptAt, nextAttemptAt: next, deadlineAt, lastError, body, signature, attempts },
      delivery,
    );
  }

  /**
   * Results are committed in groups: every few milliseconds, or sooner when many are waiting. Each
   * hand-over to the writer thread has a fixed cost (and, on two cores, a context switch), so one
   * per round would be a visible share of the engine's time; the requests' slots are already free.
   */
  async #commit(result: DeliveryResult, delivery: DueDelivery): Promise<void> {
    this.#results.push(result);
    if (this.#results.length >= COMMIT_GROUP_MAX) this.#flushResults?.();
    this.#resultsCommit ??= new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#flushResults?.(), COMMIT_GROUP_MS);
      this.#flushResults = () => {
        clearTimeout(timer);
        this.#flushResults = undefined;
        resolve();
      };
    }).then(() => {
      const results = this.#results;
      this.#results = [];
      this.#resultsCommit = undefined;
      return this.#o.writer.commitResults(results);
    });
    await this.#resultsCommit;
    // Due again (at once, e.g. Retry-After: 0, or later): the last read of due rows did not include it.
    if (result.nextAttemptAt !== null) {
      const heldUntil = this.#heldAll.get(delivery.destinationId);
      if (result.nextAttemptAt <= this.#o.clock.now()) {
        this.#heldAll.delete(delivery.destinationId);
        this.#cursors.delete(delivery.destinationId); // its new due time may sort before the cursor
      } else if (heldUntil === null || (heldUntil !== undefined && result.nextAttemptAt < heldUntil)) {
        this.#heldAll.set(delivery.destinationId, result.nextAttemptAt);
      }
    }
    if (this.#cancelledInFlight.delete(result.deliveryId)) {
      // Cancelled while this round ran: the store kept "cancelled" unless the result got there first.
      // Announce what is stored, never a state the cancel already replaced.
      announceStored(this.#o.deliveries, this.#o.bus, [result.deliveryId]);
      return;
    }
    const last = result.status === 'delivered' ? undefined : result.attempts.at(-1);
    this.#o.bus.emit('deliveries.changed', [
      {
        deliveryId: result.deliveryId,
        messageId: delivery.messageId,
        destinationId: delivery.destinationId,
        trigger: delivery.trigger,
        targetUrl: delivery.targetUrl,
        status: result.status,
        attemptCount: result.attemptCount,
        nextAttemptAt: result.nextAttemptAt,
        lastError: result.lastError,
        lastErrorCode: last?.errorCode ?? null,
        lastHttpStatus: last?.errorCode === 'http' ? last.responseStatus : null,
      },
    ]);
  }
}

/** The longest Retry-After among 408, 429 and 5xx answers, in ms from now. */
function maxRetryAfter(results: SendResult[], now: number): number | undefined {
  let max: number | undefined;
  for (const result of results) {
    if (!result.retryable || !result.responseHeaders) continue;
    const ms = parseRetryAfter(result.responseHeaders['retry-after'], now);
    if (ms !== undefined) max = Math.max(max ?? 0, ms);
  }
  return max;
}
