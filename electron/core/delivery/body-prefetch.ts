import type { DueDelivery } from '../store/deliveries-repo.ts';
import type { Destination } from '../store/destinations-repo.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import type { Transformer } from '../transforms/transformer.ts';
import type { PreparedBody } from './body.ts';
import { kindOf } from './kinds/index.ts';
import { shapeKey, transformAll, type Filtered, type Shaped } from './shaping.ts';

/** What the prefetch needs besides the writer: the source names a filter tests, the transform runtime. */
export interface PrefetchParts {
  sourceNames?: () => [number, string][];
  transformer?: () => Transformer;
}

/**
 * Queued deliveries' bodies, built ahead by the store's writer thread (prepare-bodies.ts) with the
 * recipe of their destination's kind (kinds/), by the same builder as a round's (body.ts), so that a
 * round finds its body ready instead of reading, mapping and signing its message on the engine's
 * thread. A body asked for before a purge ended is never used: the purge may have removed its message.
 */
export class BodyPrefetch {
  readonly #writer: Pick<StoreWriter, 'prepareBodies'>;
  /** Each queued delivery's body — or the promise of it while the writer works. */
  readonly #bodies = new Map<number, PreparedBody | Promise<void>>();
  /** Purges under way (see purging()). */
  #purges = 0;
  /** Moves at each purge's start and end: bodies asked for before then are not used. */
  #generation = 0;

  readonly #parts: PrefetchParts;

  constructor(writer: Pick<StoreWriter, 'prepareBodies'>, parts: PrefetchParts = {}) {
    this.#writer = writer;
    this.#parts = parts;
  }

  /**
   * Asks the writer thread for these deliveries' bodies. Those it cannot build (message gone) and
   * those asked for before a purge's end are left out: their rounds build (or fail) them.
   */
  request(destination: Destination, deliveries: DueDelivery[]): void {
    if (deliveries.length === 0) return;
    const generation = this.#generation;
    const recipe = kindOf(destination).recipe(destination);
    const key = shapeKey(destination);
    const filters = destination.filters?.length ? { filters: destination.filters, sourceNames: this.#parts.sourceNames?.() ?? [] } : {};
    // A transform's batch: the writer answers the filtered messages, the runtime transforms them in one call.
    const transformer = destination.transform ? this.#parts.transformer?.() : undefined;
    if (destination.transform && !transformer) return; // no runtime: the rounds fail them, saying so
    const pending: Promise<void> = this.#writer
      .prepareBodies({ messageIds: deliveries.map((delivery) => delivery.messageId!), ...recipe, ...filters, ...(transformer ? { messagesOnly: true } : {}) })
      .then(async (prepared) => {
        let shaped: (Shaped | undefined)[];
        if (!prepared) shaped = [];
        else if (transformer) {
          // Gone or unreadable messages (null, not dropped) are left to their rounds.
          const filtered: Filtered[] = [];
          const at: number[] = [];
          deliveries.forEach((_, i) => {
            const dropped = prepared.dropped?.[i] ?? null;
            const message = prepared.messages?.[i] ?? null;
            if (dropped !== null) filtered.push({ kind: 'dropped', reason: dropped });
            else if (message !== null) {
              const body = prepared.bodies[i] ?? null;
              const built = body === null ? undefined : { body, signature: prepared.signatures[i] ?? null };
              filtered.push({ kind: 'kept', message, shaping: prepared.shapings?.[i] ?? null, ...(built ? { built } : {}) });
            }
            else return;
            at.push(i);
          });
          // A runtime failing as a whole leaves them to their rounds (which fail, and are sent again).
          const outcomes = await transformAll(transformer, destination, recipe, filtered).catch(() => []);
          shaped = [];
          at.forEach((i, k) => (shaped[i] = outcomes[k]));
        } else {
          shaped = deliveries.map((_, i): Shaped | undefined => {
            const dropped = prepared.dropped?.[i] ?? null;
            if (dropped !== null) return { kind: 'skip', reason: dropped, run: null };
            const body = prepared.bodies[i] ?? null;
            return body === null ? undefined : { kind: 'send', bodies: [{ body, signature: prepared.signatures[i] ?? null }], shaping: prepared.shapings?.[i] ?? null, run: null };
          });
        }
        deliveries.forEach((delivery, i) => {
          if (this.#bodies.get(delivery.id) !== pending) return; // sent, cancelled or dropped meanwhile
          const done = shaped[i];
          if (done === undefined || generation !== this.#generation) this.#bodies.delete(delivery.id);
          else this.#bodies.set(delivery.id, { shaped: done, via: prepared!.vias[i] ?? null, shapeKey: key, ...recipe });
        });
      });
    for (const delivery of deliveries) this.#bodies.set(delivery.id, pending);
  }

  /** The delivery left the queue without a round (cancelled, its destination disabled or deleted). */
  delete(deliveryId: number): void {
    this.#bodies.delete(deliveryId);
  }

  /**
   * While the writer is still building the delivery's body, the promise of it: a round waits for it
   * (a few ms at most) rather than build the body twice.
   */
  pending(deliveryId: number): Promise<void> | undefined {
    const body = this.#bodies.get(deliveryId);
    return body instanceof Promise ? body : undefined;
  }

  /**
   * Takes the delivery's body out: undefined when none was built, when it is still being built, or
   * while a purge is under way (the round then reads its message from the store). Decided here, at
   * the moment the body leaves, so a purge cannot end between this check and the body's use.
   */
  take(deliveryId: number): PreparedBody | undefined {
    const body = this.#bodies.get(deliveryId);
    this.#bodies.delete(deliveryId);
    return body instanceof Promise || this.#purges > 0 ? undefined : body;
  }

  /**
   * Around a purge: until the returned function is called, rounds read their message from the store
   * (not from what a refill read earlier), and then what was read before is dropped.
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
}
