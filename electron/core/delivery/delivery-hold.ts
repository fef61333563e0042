/**
 * Holding deliveries from the inspector: the engine stops starting rounds (those under way finish)
 * and every window is told. In memory on purpose: a restart always resumes delivery, so a forgotten
 * hold cannot silently keep a relay from sending.
 */
import type { DeliveryHoldState } from '../../../shared/contract.ts';
import type { EventBus } from '../bus/event-bus.ts';
import type { DeliveriesRepo } from '../store/deliveries-repo.ts';
import type { DeliveryEngine } from './delivery-engine.ts';

export interface HoldParts {
  delivery: Pick<DeliveryEngine, 'held' | 'setHeld'>;
  deliveries: Pick<DeliveriesRepo, 'waitingCount'>;
  bus: EventBus;
}

export function deliveryHoldState(core: HoldParts): DeliveryHoldState {
  return { held: core.delivery.held, waiting: core.deliveries.waitingCount() };
}

/** Holds or releases; announces `delivery.held` only when that changes something. */
export function setDeliveriesHeld(core: HoldParts, held: boolean): DeliveryHoldState {
  if (core.delivery.held !== held) {
    core.delivery.setHeld(held);
    core.bus.emit('delivery.held', { held });
  }
  return deliveryHoldState(core);
}
