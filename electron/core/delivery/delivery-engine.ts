import type { DeliveryChange, EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import type { DeliveriesRepo, DueDelivery } from '../store/deliveries-repo.ts';
import type { CommittedRequest } from '../store/stored-request.ts';
import type { Destination, DestinationsRepo } from '../store/destinations-repo.ts';
import type { MessagesRepo } from '../store/messages-repo.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';
import type { Transformer } from '../transforms/transformer.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import { announceStored, roundChange } from './announce.ts';
import { BodyPrefetch } from './body-prefetch.ts';
import type { BreakerView } from './circuit-breaker.ts';
import { Receivers } from './receivers.ts';
import { dueByDestination, ReadyQueues } from './ready-queues.ts';
import { ResultBatcher } from './result-batcher.ts';
import { kindOf, type Kind } from './kinds/index.ts';
import type { RoundOutcome, RoundParts } from './round.ts';
import type { WebhookSender } from './webhook-sender.ts';

export interface DeliveryEngineOptions {
  deliveries: DeliveriesRepo;
  messages: MessagesRepo;
  destinations: DestinationsRepo;
  /** The store's writer: results are committed there before they are announced. */
  writer: StoreWriter;
  bus: EventBus;
  clock: Clock;
  sender: WebhookSender;
  /** This Sluice's id, for the loop guard (shared/loop-guard.ts). */
  instanceId: string;
  /** Deliveries in flight (sending, or sent and awaiting their commit) at once, over all destinations. */
  maxInFlight?: number;
  random?: () => number;
  /** The sources by id and name: what a destination's filter's `source:` tests (absent: none match by name). */
  sources?: Pick<SourcesRepo, 'list'>;
  /** The transform runtime, started on first use (only a destination with a transform asks). */
  transformer?: () => Transformer;
}

/**
 * Deliveries sent but not yet durably recorded, at most: after a crash, at most this many are sent
 * again (at least once, never lost).
 */
export const DEFAULT_MAX_IN_FLIGHT = 256;

/** Longest sleep between checks for due deliveries; with an injected clock, call kick() after advancing. */
const MAX_SLEEP_MS = 30_000;

/**
 * Sends due deliveries — the lifecycle and scheduling of delivery; what one round does is its
 * destination's kind's (kinds/: a webhooks round posts one message's body to every webhook of the
 * destination at once, a tracking-api round a batch to its API). A round's results (each delivery's
 * new state and its attempts) are committed by the store's writer, in groups
 * (result-batcher.ts), before it is announced. Rows are the queue: ready-queues.ts reads due ones in
 * batches, and body-prefetch.ts has the writer build their bodies ahead; a delivery that was in
 * flight when the process died is still pending or retrying in the store and is sent again on start
 * (at least once). Slots: at most `maxInFlight` deliveries in flight, and a destination's
 * `concurrency` requests at once, shared between destinations in turn.
 */
/** The pause after the `n`th round in a row that failed to run or record: 1 s, doubling, at most a minute. */
export function failurePause(n: number): number {
  return Math.min(60_000, 1_000 * 2 ** Math.min(6, Math.max(0, n - 1)));
}

export class DeliveryEngine {
  readonly #o: DeliveryEngineOptions;
  readonly #maxInFlight: number;
  readonly #round: RoundParts;
  readonly #inFlight = new Set<number>();
  /** Deliveries cancelled while their round was in flight: their result announces the stored state (see #commit). */
  readonly #cancelledInFlight = new Set<number>();
  /** Per destination: its deliveries in #inFlight (they are still due in the store until committed). */
  readonly #inFlightBy = new Map<number, number>();
  /** Per destination: its requests under way (its slots taken). */
  readonly #perDestination = new Map<number, number>();
  readonly #bodies: BodyPrefetch;
  readonly #queues: ReadyQueues;
  readonly #results: ResultBatcher;
  readonly #rounds = new Set<Promise<void>>();
  /** Per webhook URL: whether it is worth a request now (circuit-breaker.ts). */
  readonly #receivers: Receivers;
  #pumpScheduled = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** Held by the user (or a benchmark): rounds in flight finish, no new ones start. */
  #held = false;
  /** After a failed commit, no new rounds until then (real time): the store needs a moment. */
  #pausedUntil = 0;
  /** Rounds failed in a row (most likely the store not recording results): the pause after each doubles. */
  #failuresInARow = 0;

  constructor(options: DeliveryEngineOptions) {
    this.#o = options;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.#round = {
      clock: options.clock,
      sender: options.sender,
      messages: options.messages,
      deliveries: options.deliveries,
      instanceId: options.instanceId,
      random: options.random,
      heard: (destinationId, url, result) => this.#receivers.heard(destinationId, url, result),
      sourceName: (id) => options.sources?.list().find((source) => source.id === id)?.name ?? '',
      transformer: options.transformer,
      runningSince: options.clock.now(),
    };
    this.#bodies = new BodyPrefetch(options.writer, {
      sourceNames: () => (options.sources?.list() ?? []).map((source) => [source.id, source.name]),
      transformer: options.transformer,
    });
    this.#queues = new ReadyQueues(options.deliveries, this.#bodies, {
      has: (id) => this.#inFlight.has(id),
      of: (destinationId) => this.#inFlightBy.get(destinationId) ?? 0,
    });
    this.#results = new ResultBatcher((results) => options.writer.commitResults(results));
    this.#receivers = new Receivers({ destinations: options.destinations, bus: options.bus, clock: options.clock, onClosed: () => this.kick() });
  }

  /** A webhook URL's circuit breaker, as the inspector shows it. */
  breaker(url: string): BreakerView {
    return this.#receivers.view(url);
  }

  /**
   * Closes the breakers of these destinations' URLs (all destinations' when none are named): a person
   * asked to send now (a retry, a replay, a test event, an edit), so the next round tries the receiver.
   */
  tryNow(destinationIds?: readonly number[]): void {
    this.#receivers.reset(destinationIds);
    this.kick();
  }

  /** Looks for due deliveries now (new messages, a settings change, or a test's clock moved). */
  kick(): void {
    this.#queues.forgetReads();
    this.#schedulePump();
  }

  /**
   * Ingestion committed these requests: the pending deliveries they made (their `due`) are queued as
   * they are where a destination's queue holds every due delivery before them; for the other
   * destinations, each is read on from where its last read stopped, not from the top (which would
   * re-read every delivery in flight, on every commit).
   */
  added(committed: readonly CommittedRequest[]): void {
    const due = dueByDestination(committed);
    if (due.size === 0) return;
    const now = this.#o.clock.now();
    // A disabled destination, or one whose receivers are gone or behind an open breaker, is not read
    // while so (see #pump): nothing is queued for it either. Nor while the engine is held or closing: a
    // reset or a clear holds it while it removes deliveries, and the commit's answer can come after the
    // removal (then what it names is gone, and its ids are given again after a reset). Closed, no round
    // would take them and the writer (closed after the engine) would build their bodies for nothing: they
    // stay pending in the store, read at the next start.
    const open = this.#held || this.#closed
      ? () => undefined
      : (id: number) => {
          const destination = this.#o.destinations.byId(id);
          return destination?.enabled && this.#receivers.blockedUntil(destination, now) === undefined ? destination : undefined;
        };
    this.#queues.added(due, open, now);
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

  /**
   * Drops deliveries from the ready queue (they are being cancelled): none of them starts, and no read
   * queues them again, until the returned function is called once their cancel is written or failed.
   */
  forget(deliveryIds: number[]): () => void {
    this.#queues.forget(deliveryIds);
    for (const id of deliveryIds) if (this.#inFlight.has(id)) this.#cancelledInFlight.add(id);
    return () => this.#queues.settled(deliveryIds);
  }

  /**
   * Around a purge: until the returned function is called, rounds read their message from the store
   * (not from what a refill read earlier), and then what was read before is dropped. So no round
   * sends a purged message, not even one starting between the commit and its announcement here.
   */
  purging(): () => void {
    return this.#bodies.purging();
  }

  /**
   * Around a write that removes deliveries (a reset): nothing new starts, the rounds in flight end and
   * are recorded, what was read of the queue and its bodies is dropped, and the breakers start closed;
   * then `write` runs, and the engine reads the store afresh. So no round sends a removed delivery,
   * and no delivery read before stands for a row that reused its id. `keepBreakers` (a clear of some
   * messages, not a reset): the receivers' circuit breakers stay as they are.
   */
  async whileRemoving<T>(write: () => Promise<T>, options: { keepBreakers?: boolean } = {}): Promise<T> {
    const wasHeld = this.#held;
    this.#held = true;
    const purged = this.#bodies.purging();
    try {
      await this.idle();
      for (const destinationId of this.#queues.destinationIds()) this.#queues.drop(destinationId);
      if (!options.keepBreakers) this.#receivers.reset();
      return await write();
    } finally {
      purged();
      this.#held = wasHeld;
      this.kick();
    }
  }

  /** Resolves when the rounds in flight now have ended (not those started later). */
  async roundsEnded(): Promise<void> {
    await Promise.allSettled([...this.#rounds]);
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
    this.#receivers.close();
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
    /** Destinations whose every URL is gone (410) or behind an open breaker: their deliveries wait, unread. */
    const blocked = new Set<number>();
    for (const destination of this.#o.destinations.list()) {
      if (!destination.enabled) continue;
      const blockedUntil = this.#receivers.blockedUntil(destination, now);
      if (blockedUntil !== undefined) {
        blocked.add(destination.id);
        if (blockedUntil !== null) wakeAt = Math.min(wakeAt, blockedUntil);
        continue;
      }
      const heldUntil = this.#queues.refillIfLow(destination, now);
      if (heldUntil !== undefined) wakeAt = Math.min(wakeAt, heldUntil);
    }

    // Start rounds one destination at a time, in turn, so that the free slots are shared.
    const turns: Destination[] = [];
    for (const destinationId of this.#queues.destinationIds()) {
      // Deleted or disabled since its deliveries were read: they are dropped from the queue, not sent.
      const destination = this.#o.destinations.byId(destinationId);
      if (!destination?.enabled) this.#queues.drop(destinationId);
      else if (!blocked.has(destinationId)) turns.push(destination);
    }
    let started = true;
    while (started && this.#inFlight.size < this.#maxInFlight) {
      started = false;
      for (const destination of turns) {
        if (this.#inFlight.size >= this.#maxInFlight) break;
        if ((this.#perDestination.get(destination.id) ?? 0) >= destination.options.concurrency) continue;
        const kind = kindOf(destination);
        const batching = kind.batch(destination);
        if (batching) {
          // A batch per round: all it can take, or fewer once the oldest has waited flushMs for more.
          const { size, flushMs } = batching;
          const batch = this.#queues.takeBatch(destination.id, size, now - flushMs);
          if (typeof batch === 'number') wakeAt = Math.min(wakeAt, batch + flushMs);
          else if (batch) {
            this.#launch(batch, destination, (release) => this.#deliverBatch(batch, destination, kind, release));
            started = true;
          }
          continue;
        }
        const delivery = this.#queues.take(destination.id);
        if (!delivery) continue;
        this.#start(delivery, destination);
        started = true;
      }
    }
    for (const destination of turns) this.#queues.compact(destination.id);
    // Queued deliveries start as rounds finish (each pumps again); a destination whose due rows we
    // all hold is read again when its next one falls due, or on kick().
    if (wakeAt !== Infinity) this.#timer = setTimeout(() => this.kick(), Math.min(Math.max(wakeAt - now, 0), MAX_SLEEP_MS)).unref();
  }

  /**
   * Hands a freed slot straight to the destination's next ready delivery, as a plain request loop
   * would: waiting for the pump (after every other callback of this loop turn) would leave the
   * slot, and the receiver, idle meanwhile.
   */
  #startNext(destinationId: number): void {
    if (this.#closed || this.#held || this.#inFlight.size >= this.#maxInFlight || Date.now() < this.#pausedUntil) return;
    const destination = this.#o.destinations.byId(destinationId);
    if (!destination?.enabled || (this.#perDestination.get(destinationId) ?? 0) >= destination.options.concurrency) return;
    if (kindOf(destination).batch(destination)) return; // batches are the pump's (it waits for them to fill)
    if (this.#receivers.blockedUntil(destination, this.#o.clock.now()) !== undefined) return;
    const delivery = this.#queues.take(destinationId);
    if (delivery) this.#start(delivery, destination);
  }

  #start(delivery: DueDelivery, destination: Destination): void {
    this.#launch([delivery], destination, (releaseSlot) => this.#deliver(delivery, destination, releaseSlot));
  }

  /** Runs a round of these deliveries (one, or a batch) in one of the destination's slots. */
  #launch(deliveries: readonly DueDelivery[], destination: Destination, run: (releaseSlot: () => void) => Promise<void>): void {
    for (const delivery of deliveries) this.#inFlight.add(delivery.id);
    this.#inFlightBy.set(destination.id, (this.#inFlightBy.get(destination.id) ?? 0) + deliveries.length);
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
    const round = run(releaseSlot)
      .catch((error: unknown) => {
        // Most likely the store could not record the result: the delivery is still due in the
        // store and will be sent again (at least once), after a pause rather than in a tight loop —
        // one that doubles while rounds keep failing (1 s, 2 s, … 1 min): a full disk or a damaged
        // store re-sent the same deliveries every second before 2026-12-01, none of them recorded.
        // Rounds that fail during the pause (the rest of the group whose commit failed) do not lengthen it.
        if (Date.now() >= this.#pausedUntil) {
          this.#failuresInARow++;
          this.#pausedUntil = Date.now() + failurePause(this.#failuresInARow);
        }
        this.#queues.readAgain(destination.id);
        console.error(`sluice: delivery ${deliveries[0]!.id}${deliveries.length > 1 ? ` (and ${deliveries.length - 1} more)` : ''}: ${(error as Error).message}`);
      })
      .finally(() => {
        releaseSlot();
        for (const delivery of deliveries) {
          this.#inFlight.delete(delivery.id);
          this.#cancelledInFlight.delete(delivery.id);
        }
        this.#inFlightBy.set(destination.id, (this.#inFlightBy.get(destination.id) ?? deliveries.length) - deliveries.length);
        this.#rounds.delete(round);
        this.#schedulePump();
      });
    this.#rounds.add(round);
  }

  /**
   * One round of the delivery (its destination's kind's), its result committed and announced. A round whose body is
   * ready starts its requests at once, in the same turn as #start.
   */
  async #deliver(delivery: DueDelivery, destination: Destination, releaseSlot: () => void): Promise<void> {
    const pending = this.#bodies.pending(delivery.id);
    if (pending) {
      await pending;
      // The world may have moved meanwhile (the writer can be busy for a while): settings saved (they
      // apply to this attempt), the destination disabled or deleted, the delivery cancelled, the
      // engine held or closing. Then nothing is sent: the delivery stays due in the store and is read
      // again (re-enabling, resuming and a failed cancel all kick; so does the next start).
      const current = this.#o.destinations.byId(destination.id);
      if (!current?.enabled || this.#held || this.#closed || this.#cancelledInFlight.has(delivery.id)) {
        this.#bodies.delete(delivery.id);
        this.#queues.forgetCursor(destination.id);
        return;
      }
      destination = current;
    }
    // A replay to a typed URL goes there, whatever the destination's breakers say (a person asked for it).
    let admitted: Set<string> | undefined;
    if (delivery.targetUrl === null) {
      const now = this.#o.clock.now();
      admitted = this.#receivers.admit(this.#receivers.liveUrls(destination), now);
      if (admitted.size === 0) {
        // Its URLs closed (or went) since the pump looked: left due in the store, read again when one opens.
        this.#bodies.delete(delivery.id);
        this.#queues.forgetCursor(destination.id);
        return;
      }
    }
    let round: RoundOutcome | undefined;
    try {
      [round] = await kindOf(destination).round(this.#round, [delivery], destination, [this.#bodies.take(delivery.id)], releaseSlot, admitted);
    } finally {
      // A probe this round took but did not send (its message was purged or unreadable, or the round
      // failed) is given back: the breaker would otherwise wait for its answer for ever.
      this.#receivers.releaseUnsent(admitted, round?.result.attempts);
    }
    await this.#commit([round!]);
  }

  /**
   * A round of a batch of the destination's deliveries (a kind whose rounds take batches, e.g. a
   * Tracking API's), their results committed and announced. As #deliver, nothing goes when the world
   * moved while bodies were built.
   */
  async #deliverBatch(batch: readonly DueDelivery[], destination: Destination, kind: Kind, releaseSlot: () => void): Promise<void> {
    const pending = batch.flatMap((delivery) => this.#bodies.pending(delivery.id) ?? []);
    if (pending.length > 0) await Promise.all(pending);
    const current = this.#o.destinations.byId(destination.id);
    const urls = this.#receivers.liveUrls(destination);
    const now = this.#o.clock.now();
    const leave = !current?.enabled || kindOf(current) !== kind || this.#held || this.#closed;
    const cancelled = batch.filter((delivery) => this.#cancelledInFlight.has(delivery.id));
    const deliveries = batch.filter((delivery) => !this.#cancelledInFlight.has(delivery.id));
    // A replay to a typed URL goes there, whatever the API's breaker says (a person asked for it).
    const admitted = !leave && deliveries.some((d) => d.targetUrl === null) ? this.#receivers.admit(urls, now) : undefined;
    if (leave || admitted?.size === 0) {
      // Left due in the store, read again (re-enabling, resuming, the breaker closing all kick).
      for (const delivery of batch) this.#bodies.delete(delivery.id);
      this.#queues.forgetCursor(destination.id);
      if (cancelled.length > 0) announceStored(this.#o.deliveries, this.#o.bus, cancelled.map((d) => d.id));
      return;
    }
    const prepared = deliveries.map((delivery) => this.#bodies.take(delivery.id));
    let outcomes: RoundOutcome[] | undefined;
    try {
      outcomes = await kind.round(this.#round, deliveries, current, prepared, releaseSlot, admitted);
    } finally {
      // Only the probes this round took (a round to a typed URL took none: another round's is in flight).
      this.#receivers.releaseUnsent(admitted, outcomes?.flatMap(({ result }) => result.attempts));
    }
    await this.#commit(outcomes);
  }

  /**
   * Records a round's results (in one group), then announces them: one `deliveries.changed` for the
   * round (a forwarded batch's hundred deliveries are one event, not a hundred), and the stored state of
   * those cancelled meanwhile.
   */
  async #commit(outcomes: readonly RoundOutcome[]): Promise<void> {
    await this.#results.addAll(outcomes.map(({ result }) => result));
    this.#failuresInARow = 0; // recorded: the store takes results again (a round that recorded nothing does not say so)
    const changes: DeliveryChange[] = [];
    const cancelled: number[] = [];
    for (const { result, announced: delivery } of outcomes) {
      // Due again (at once, e.g. Retry-After: 0, or later): the last read of due rows did not include it.
      if (result.nextAttemptAt !== null) this.#queues.dueAgain(delivery.destinationId, result.nextAttemptAt, this.#o.clock.now());
      // Cancelled while this round ran: the store kept "cancelled" unless the result got there first.
      // Announce what is stored, never a state the cancel already replaced.
      if (this.#cancelledInFlight.delete(result.deliveryId)) cancelled.push(result.deliveryId);
      else changes.push(roundChange(result, delivery));
    }
    if (changes.length > 0) this.#o.bus.emit('deliveries.changed', changes);
    if (cancelled.length > 0) announceStored(this.#o.deliveries, this.#o.bus, cancelled);
  }
}
