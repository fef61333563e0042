// The delivery operations (`delivery.*`, `deliveries.*` of shared/channels/deliveries.ts): holding the
// engine, replays, retries and cancels, and a delivery with its attempts.
import { storedChanges } from '../../delivery/announce.ts';
import { deliveryHoldState, setDeliveriesHeld } from '../../delivery/delivery-hold.ts';
import { replay } from '../../delivery/replay.ts';
import { OperationError } from '../../operation-error.ts';
import { viewWithAttempts } from '../views.ts';
import { serial, type OperationContext, type OperationsOf } from './parts.ts';

type DeliveryChannel =
  | 'delivery.state'
  | 'delivery.hold'
  | 'deliveries.replay'
  | 'deliveries.retryNow'
  | 'deliveries.cancel'
  | 'deliveries.get'
  | 'deliveries.body'
  | 'deliveries.revealHeader'
  | 'deliveries.states';

export function deliveryOperations(p: OperationContext): OperationsOf<DeliveryChannel> {
  const { clock, writer, deliveries } = p;
  // One replay at a time: each plans from the store (e.g. "what is failed now") and writes later, so
  // two planned together would both replay the same deliveries.
  const oneReplay = serial();
  return {
    'delivery.state': () => deliveryHoldState(p),
    'delivery.hold': ({ held }) => setDeliveriesHeld(p, held),
    'deliveries.replay': (request) =>
      oneReplay(() => replay({ messages: p.messages, deliveries, destinations: p.destinations, writer, clock }, request)).then((outcome) =>
        p.sendNow(outcome.deliveryIds, outcome),
      ),
    /** Moves retrying deliveries' next attempt to now. */
    'deliveries.retryNow': ({ ids }) =>
      writer.write({ op: 'retryNow', deliveryIds: ids, now: clock.now() }).then((outcome) => p.sendNow(outcome.changed > 0 ? ids : [], { changed: outcome.changed })),
    'deliveries.cancel': async ({ ids }) => ({ changed: await cancelDeliveries(p, ids) }),
    'deliveries.get': ({ id }) => {
      const found = deliveries.get(id);
      if (!found) throw new OperationError('not_found', `there is no delivery ${id}`);
      return viewWithAttempts(found, deliveries.attempts(id));
    },
    /** A delivery's whole body (a message's detail carries only the start of a big one). */
    'deliveries.body': ({ id }) => {
      const found = deliveries.get(id);
      if (!found) throw new OperationError('not_found', `there is no delivery ${id}`);
      return { body: found.body };
    },
    'deliveries.revealHeader': ({ deliveryId, attemptId, forwarded = false, name }) => {
      // A forwarded request's id may equal an older per-message attempt's of the same delivery: both name it.
      const attempt = deliveries.attempts(deliveryId).find((a) => a.id === attemptId && (a.forwarded === true) === forwarded);
      if (!attempt) throw new OperationError('not_found', `there is no attempt ${attemptId} of delivery ${deliveryId}; it may have been cleared — reload the message`);
      const header = Object.entries(attempt.requestHeaders).find(([key]) => key.toLowerCase() === name.toLowerCase());
      if (!header) throw new OperationError('not_found', `attempt ${attemptId} sent no ${name} header`);
      return { value: header[1] };
    },
    'deliveries.states': ({ ids }) => ({ changes: storedChanges(deliveries, ids) }),
  };
}

/** Cancels pending or retrying deliveries (a request, or a destination's deletion); how many were. */
export function cancelDeliveries(p: OperationContext, ids: number[]): Promise<number> {
  // Out of the ready queue first: none of them may start, nor be read again, while the cancel is
  // being written. (Should the write fail, they are still due in the store and the next refill reads them.)
  const settled = p.delivery.forget(ids);
  return p.writer.write({ op: 'cancel', deliveryIds: ids, now: p.clock.now() }).finally(settled).then(
    (outcome) => {
      if (outcome.changed > 0) p.announce(ids);
      return outcome.changed;
    },
    (error: unknown) => {
      p.delivery.kick(); // not cancelled: they are still due, read them again
      throw error;
    },
  );
}
