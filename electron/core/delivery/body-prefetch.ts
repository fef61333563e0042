import type { DueDelivery } from '../store/deliveries-repo.ts';
import type { Destination } from '../store/destinations-repo.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import type { PreparedBody } from './body.ts';
import { kindOf } from './kinds/index.ts';

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

  constructor(writer: Pick<StoreWriter, 'prepareBodies'>) {
    this.#writer = writer;
  }

  /**
   * Asks the writer thread for these deliveries' bodies. Those it cannot build (message gone) and
   * those asked for before a purge's end are left out: their rounds build (or fail) them.
   */
  request(destination: Destination, deliveries: DueDelivery[]): void {
    if (deliveries.length === 0) return;
    const generation = this.#generation;
    const recipe = kindOf(destination).recipe(destination);
    const pending: Promise<void> = this.#writer
      .prepareBodies({ messageIds: deliveries.map((delivery) => delivery.messageId!), ...recipe })
      .then((prepared) => {
        deliveries.forEach((delivery, i) => {
          if (this.#bodies.get(delivery.id) !== pending) return; // sent, cancelled or dropped meanwhile
          const body = prepared?.bodies[i] ?? null;
          if (body === null || generation !== this.#generation) this.#bodies.delete(delivery.id);
          else this.#bodies.set(delivery.id, { body, signature: prepared!.signatures[i] ?? null, via: prepared!.vias[i] ?? null, ...recipe });
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
