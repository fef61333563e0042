import type { DestinationKind } from '../../../../shared/settings.ts';
import type { BodyRecipe } from '../../../../shared/webhook-body.ts';
import type { DueDelivery } from '../../store/deliveries-repo.ts';
import type { Destination } from '../../store/destinations-repo.ts';
import type { PreparedBody } from '../body.ts';
import type { RoundOutcome, RoundParts } from '../round.ts';

/**
 * A kind of destination — what Sluice sends messages to: webhooks (the seed's), a Tracking API, … —
 * as delivery needs to know it. The engine, the body builder, the receivers' breakers, replays, test
 * events and the views ask a destination's kind (index.ts: kindOf) instead of branching on its name;
 * a new kind is one file implementing this, registered in index.ts.
 */
export interface Kind {
  /** Its name, as a destination's settings carry it (shared/settings.ts: DESTINATION_KINDS). */
  readonly name: DestinationKind;
  /** What its bodies are built from — shape and signing secret — for the one body builder (body.ts). */
  recipe(destination: Destination): BodyRecipe;
  /** The URLs its rounds post to, any that answered 410 Gone included: each has a circuit breaker and a health line. */
  urls(destination: Destination): string[];
  /**
   * How its due deliveries go in rounds: null, one a round, started as soon as a slot frees; else
   * batches of up to `size`, a partial one waiting up to `flushMs` for more.
   */
  batch(destination: Destination): { size: number; flushMs: number } | null;
  /**
   * One round: the requests for these deliveries (one, unless batch() says batches) — to `admitted`
   * of its urls() (all when absent), or a replay's typed URL — sent, and what each answer means for
   * each delivery: its result, attempts and next retry. `prepared`: their bodies built ahead, by
   * position; `releaseSlot` is called once the requests have ended.
   */
  round(
    parts: RoundParts,
    deliveries: readonly DueDelivery[],
    destination: Destination,
    prepared: readonly (PreparedBody | undefined)[],
    releaseSlot: () => void,
    admitted?: ReadonlySet<string>,
  ): Promise<RoundOutcome[]>;
  /** Whether a deletion request (seed §1.7) sends it a `delete` notification. */
  readonly takesDeletions: boolean;
  /** Whether a message's `integrations` may leave it out (a forward carries them on, unapplied). */
  readonly obeysIntegrations: boolean;
}
