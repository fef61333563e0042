import type { DeliveryChange } from '../model.ts';

/** A request the log was told about: its number, and how many changes had been logged when it was sent. */
export interface Ticket {
  id: number;
  seq: number;
}

/**
 * The delivery changes seen while a fetch is in flight, numbered. A fetch's rows may predate changes
 * that arrived after it was sent, so those are applied again on top of them (`since`). Changes are
 * kept only while some fetch is in flight, and only as far back as the oldest one still needs.
 */
export class ChangeLog {
  #seq = 0;
  #entries: { seq: number; change: DeliveryChange }[] = [];
  /** request number → the change number when it was sent */
  readonly #inFlight = new Map<number, number>();
  #requests = 0;

  /** A fetch goes out: changes from now on are logged for it. */
  begin(): Ticket {
    const id = ++this.#requests;
    this.#inFlight.set(id, this.#seq);
    return { id, seq: this.#seq };
  }

  /** Its answer has been applied: the changes only it needed are let go. */
  end(id: number): void {
    this.#inFlight.delete(id);
    const oldest = Math.min(...this.#inFlight.values());
    this.#entries = this.#inFlight.size === 0 ? [] : this.#entries.filter((entry) => entry.seq > oldest);
  }

  /** A change seen now: logged while a fetch is in flight (otherwise nothing can predate it). */
  record(change: DeliveryChange): void {
    if (this.#inFlight.size > 0) this.#entries.push({ seq: ++this.#seq, change });
  }

  /** The changes logged after `seq` (a ticket's), oldest first. */
  since(seq: number): DeliveryChange[] {
    return this.#entries.filter((entry) => entry.seq > seq).map((entry) => entry.change);
  }
}
