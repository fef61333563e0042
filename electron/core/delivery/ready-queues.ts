import type { DeliveriesRepo, DueCursor, DueDelivery } from '../store/deliveries-repo.ts';
import type { Destination } from '../store/destinations-repo.ts';
import type { CommittedRequest } from '../store/stored-request.ts';
import type { BodyPrefetch } from './body-prefetch.ts';
import { kindOf } from './kinds/index.ts';

/**
 * Due deliveries a destination may hold in the ready queue: a few rounds' worth per slot, and at
 * least 256 (and two batches of a kind that sends batches), so that a refill (one query, which also re-reads the deliveries in flight: they are
 * due until committed) serves many rounds; refilled once half are gone. Per destination, so that
 * one destination's backlog never takes the queue from the others.
 */
function readyCap(destination: Destination): number {
  return Math.max(destination.options.concurrency * 8, 256, (kindOf(destination).batch(destination)?.size ?? 0) * 2);
}

/** A destination's due deliveries, read from the store but not started yet, in due order. */
interface ReadyQueue {
  items: DueDelivery[];
  head: number;
  /** Items from head still in readyIds (not cancelled). */
  ready: number;
}

/** What the queues ask of the engine about deliveries it has started. */
export interface InFlight {
  has(deliveryId: number): boolean;
  /** How many of this destination's deliveries are in flight (still due in the store until committed). */
  of(destinationId: number): number;
}

/**
 * The delivery engine's ready queues: due deliveries read from the store but not started yet, one
 * FIFO per destination, refilled in batches rather than per round. The rows are the real queue: what
 * is here is only what has been read of it. Reading is kept cheap: a destination whose every due row
 * is held is not read again until its next one falls due, and each read starts after the last one's
 * cursor, until something may have made an earlier row due (forgetReads()). A queued delivery's body is
 * asked of body-prefetch.ts when it is read, and dropped there when the delivery leaves the queue
 * without a round (cancelled, its destination disabled or deleted): the two stay in step through here.
 */
export class ReadyQueues {
  readonly #deliveries: Pick<DeliveriesRepo, 'dueFor' | 'nextDueAfter'>;
  readonly #bodies: BodyPrefetch;
  readonly #inFlight: InFlight;
  readonly #queues = new Map<number, ReadyQueue>();
  /** Queued delivery id → its destination. An id leaving it (cancelled) is skipped when its turn comes. */
  readonly #readyIds = new Map<number, number>();
  /**
   * Destinations whose every due delivery we hold (queued or in flight), as the last read found:
   * reading again before something changes (new deliveries, time passing) would return the same
   * rows, on every round. The value is when its next stored delivery falls due (null: none is
   * stored); forgetReads() forgets them all.
   */
  readonly #heldAll = new Map<number, number | null>();
  /**
   * Per destination, where its last read of due rows stopped. Every due row up to there is ours
   * (queued or in flight) or settled, so the next read starts after it instead of reading them all
   * again — until something may have made an earlier row due: any write outside a round kicks the
   * engine (which forgets every cursor), a round due again at once or a failed commit forgets its own.
   */
  readonly #cursors = new Map<number, DueCursor>();
  /**
   * Deliveries being cancelled: out of the queue, and not queued again by a read until their cancel is
   * written (till then the store still has them due, and a read from a forgotten cursor returns them).
   */
  readonly #cancelling = new Set<number>();

  constructor(deliveries: Pick<DeliveriesRepo, 'dueFor' | 'nextDueAfter'>, bodies: BodyPrefetch, inFlight: InFlight) {
    this.#deliveries = deliveries;
    this.#bodies = bodies;
    this.#inFlight = inFlight;
  }

  /** Something may have made deliveries due (new ones, a settings change, the clock): read every destination again. */
  forgetReads(): void {
    this.#heldAll.clear();
    this.#cursors.clear();
  }

  /**
   * Ingestion stored new deliveries (`due`, by destination: its commits' CommittedRequest.due, every
   * pending delivery they made, due at their arrival). Only the destinations they go to are concerned.
   * Where a destination's queue holds every due delivery (as its last read found) and none stored falls
   * due before the new ones, they are its next due rows: queued as they are, as a read would have queued
   * them (the cursor moves past them, their bodies are asked for), and nothing is read — those reads were
   * a tenth of the main thread's time under fan-out load (docs/benchmarks.md). Otherwise (a read is due
   * anyway, a retry falls due first, the queue is full, the destination is not open: `destinationOf`
   * undefined) the destination is read again, from its cursor: a new row sorts after it (its due time is
   * its arrival, its id the newest) — unless the clock went back (an injected one): then from the top.
   */
  added(due: ReadonlyMap<number, DueDelivery[]>, destinationOf: (id: number) => Destination | undefined, now: number): void {
    for (const [destinationId, fresh] of due) {
      const destination = destinationOf(destinationId);
      if (destination && this.#queueAsRead(destination, fresh, now)) continue;
      this.#heldAll.delete(destinationId);
      const cursor = this.#cursors.get(destinationId);
      if (cursor && fresh.some((delivery) => delivery.nextAttemptAt < cursor.at)) this.#cursors.delete(destinationId);
    }
  }

  /** Queues new deliveries without a read when they are the destination's next due rows, due at `now`; false when a read must find them. */
  #queueAsRead(destination: Destination, fresh: DueDelivery[], now: number): boolean {
    const destinationId = destination.id;
    if (!this.#heldAll.has(destinationId)) return false; // a read is due anyway: it finds them
    const nextAt = this.#heldAll.get(destinationId)!;
    const cursor = this.#cursors.get(destinationId);
    let last = fresh[0]!;
    for (const delivery of fresh) {
      // Each must sort after the last read's end — the cursor's own row is one the read returned: a read
      // between the commit and its answer found it (it does sort after unless an injected clock went back)…
      if (cursor && (delivery.nextAttemptAt < cursor.at || (delivery.nextAttemptAt === cursor.at && delivery.id <= cursor.id))) return false;
      // …be neither queued nor in flight already (the same read), and be due now, as a read at `now` would find it…
      if (this.#readyIds.has(delivery.id) || this.#inFlight.has(delivery.id) || delivery.nextAttemptAt > now) return false;
      if (delivery.nextAttemptAt > last.nextAttemptAt || (delivery.nextAttemptAt === last.nextAttemptAt && delivery.id > last.id)) last = delivery;
    }
    // …and sort before every stored delivery due later (a retry), which a read would have returned first.
    if (nextAt !== null && nextAt <= last.nextAttemptAt) return false;
    if ((this.#queues.get(destinationId)?.ready ?? 0) + fresh.length > readyCap(destination)) return false;
    this.#cursors.set(destinationId, { at: last.nextAttemptAt, id: last.id });
    this.#enqueue(destination, fresh);
    return true;
  }

  /**
   * Reads more of the destination's due deliveries when its queue runs low. Returns when to look
   * again when every due row is held and a later one is stored (its due time), else undefined.
   */
  refillIfLow(destination: Destination, now: number): number | undefined {
    const nextAt = this.#heldAll.get(destination.id);
    if (nextAt !== undefined && nextAt !== null && nextAt <= now) this.#heldAll.delete(destination.id);
    const cap = readyCap(destination);
    if (!this.#heldAll.has(destination.id) && (this.#queues.get(destination.id)?.ready ?? 0) <= cap / 2) {
      this.#refill(destination, cap, now);
    }
    return this.#heldAll.get(destination.id) ?? undefined;
  }

  /** Destinations with a queue. */
  destinationIds(): number[] {
    return [...this.#queues.keys()];
  }

  /** The destination's next delivery that was not cancelled meanwhile, out of its queue. */
  take(destinationId: number): DueDelivery | undefined {
    const queue = this.#queues.get(destinationId);
    if (!queue) return undefined;
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

  /**
   * Up to `max` of the destination's next deliveries (a batch) — or, while fewer are ready
   * and the oldest fell due after `dueBy`, that one's due time (the batch waits to fill until then).
   */
  takeBatch(destinationId: number, max: number, dueBy: number): DueDelivery[] | number | undefined {
    const queue = this.#queues.get(destinationId);
    if (!queue || queue.ready === 0) return undefined;
    if (queue.ready < max) {
      let head = queue.head;
      while (head < queue.items.length && !this.#readyIds.has(queue.items[head]!.id)) head++;
      const oldest = queue.items[head]?.nextAttemptAt;
      if (oldest !== undefined && oldest > dueBy) return oldest;
    }
    const batch: DueDelivery[] = [];
    for (let delivery = this.take(destinationId); delivery; delivery = batch.length < max ? this.take(destinationId) : undefined) batch.push(delivery);
    return batch.length > 0 ? batch : undefined;
  }

  /** Drops an emptied queue, and the taken items of a long one. */
  compact(destinationId: number): void {
    const queue = this.#queues.get(destinationId);
    if (!queue) return;
    if (queue.head >= queue.items.length) this.#queues.delete(destinationId);
    else if (queue.head > 1024) {
      queue.items = queue.items.slice(queue.head);
      queue.head = 0;
    }
  }

  /**
   * Drops the destination's queue (disabled or deleted since its deliveries were read): they are not
   * sent. A disabled destination's stay pending in the store and are read again once it is enabled.
   */
  drop(destinationId: number): void {
    const queue = this.#queues.get(destinationId);
    if (queue) {
      for (let i = queue.head; i < queue.items.length; i++) {
        const id = queue.items[i]!.id;
        this.#readyIds.delete(id);
        this.#bodies.delete(id);
      }
    }
    this.#queues.delete(destinationId);
    this.#heldAll.delete(destinationId); // read again once it is enabled
    this.#cursors.delete(destinationId);
  }

  /** Takes cancelled deliveries out of the queues: only the store's state counts. */
  forget(deliveryIds: readonly number[]): void {
    for (const id of deliveryIds) {
      this.#cancelling.add(id);
      const destinationId = this.#readyIds.get(id);
      if (destinationId === undefined) continue;
      this.#readyIds.delete(id);
      const queue = this.#queues.get(destinationId);
      if (queue) queue.ready--;
    }
  }

  /** Their cancel was written, or failed (then they are due again, read as any due row): reads may queue them. */
  settled(deliveryIds: readonly number[]): void {
    for (const id of deliveryIds) this.#cancelling.delete(id);
  }

  /** A committed round left its delivery due again at `nextAttemptAt`: the last read did not include it. */
  dueAgain(destinationId: number, nextAttemptAt: number, now: number): void {
    const heldUntil = this.#heldAll.get(destinationId);
    if (nextAttemptAt <= now) {
      this.#heldAll.delete(destinationId);
      this.#cursors.delete(destinationId); // its new due time may sort before the cursor
    } else if (heldUntil === null || (heldUntil !== undefined && nextAttemptAt < heldUntil)) {
      this.#heldAll.set(destinationId, nextAttemptAt);
    }
  }

  /** A round failed before its result was stored: the delivery is still due; read the destination again. */
  readAgain(destinationId: number): void {
    this.#heldAll.delete(destinationId);
    this.#cursors.delete(destinationId);
  }

  /**
   * A started delivery was left due without a round (see the engine): the next read starts from the top.
   * Nor is every due delivery held any more (it is neither queued nor in flight): new ones handed over
   * by a commit are not queued ahead of it, but read after it (added()).
   */
  forgetCursor(destinationId: number): void {
    this.#cursors.delete(destinationId);
    this.#heldAll.delete(destinationId);
  }

  /**
   * Reads the destination's due deliveries that are neither running nor already queued, up to its
   * cap. After its cursor, only rows no earlier read reached; without one, the store returns the
   * ones we hold too (they are due until their result is committed), so the read asks for that many more.
   */
  #refill(destination: Destination, cap: number, now: number): void {
    const destinationId = destination.id;
    const cursor = this.#cursors.get(destinationId);
    const limit = cursor ? cap - (this.#queues.get(destinationId)?.ready ?? 0) : cap + this.#inFlight.of(destinationId);
    const due = this.#deliveries.dueFor(destinationId, now, limit, cursor);
    const last = due.at(-1);
    if (last) this.#cursors.set(destinationId, { at: last.nextAttemptAt, id: last.id });
    // We now hold every due delivery of this destination: wait for the next one to fall due.
    if (due.length < limit) this.#heldAll.set(destinationId, this.#deliveries.nextDueAfter(destinationId, now));
    const fresh = due.filter((delivery) => !this.#inFlight.has(delivery.id) && !this.#readyIds.has(delivery.id) && !this.#cancelling.has(delivery.id));
    if (fresh.length > 0) this.#enqueue(destination, fresh);
  }

  /** Puts due deliveries (read, or handed over) at the end of the destination's queue and asks for their bodies. */
  #enqueue(destination: Destination, deliveries: DueDelivery[]): void {
    let queue = this.#queues.get(destination.id);
    if (!queue) this.#queues.set(destination.id, (queue = { items: [], head: 0, ready: 0 }));
    for (const delivery of deliveries) {
      queue.items.push(delivery);
      queue.ready++;
      this.#readyIds.set(delivery.id, destination.id);
    }
    this.#bodies.request(destination, deliveries.filter((delivery) => delivery.bodyOverride === null && delivery.messageId !== null));
  }
}

/**
 * The pending deliveries these commits made (CommittedRequest.due), by destination, as a read of due rows
 * returns them. In id order: each request's are, and a group's requests commit in order.
 */
export function dueByDestination(committed: readonly CommittedRequest[]): Map<number, DueDelivery[]> {
  const out = new Map<number, DueDelivery[]>();
  for (const request of committed) {
    const due = request.due;
    if (!due) continue;
    for (let i = 0; i + 2 < due.length; i += 3) {
      const destinationId = due[i + 2]!;
      let list = out.get(destinationId);
      if (!list) out.set(destinationId, (list = []));
      list.push({
        id: due[i]!, messageId: due[i + 1]!, destinationId, trigger: 'automatic', targetUrl: null, bodyOverride: null,
        attemptCount: 0, firstAttemptAt: null, nextAttemptAt: request.receivedAt, createdAt: request.receivedAt, // the row's created_at
      });
    }
  }
  return out;
}
