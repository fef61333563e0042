import { useStore } from 'zustand';
import type { Inspector } from '../../store/inspector.ts';
import { useInspector } from '../../store/react.ts';
import { createHoldController, type HoldController, type HoldState } from './delivery-hold.ts';

/** One controller per inspector, made on first use and kept as long as the inspector (the banner is always mounted). */
const controllers = new WeakMap<Inspector, HoldController>();

export function holdControllerOf(inspector: Inspector): HoldController {
  let controller = controllers.get(inspector);
  if (!controller) controllers.set(inspector, (controller = createHoldController(inspector)));
  return controller;
}

export function useDeliveryHold(): HoldState & { setHeld: (held: boolean) => Promise<void> } {
  const controller = holdControllerOf(useInspector());
  const state = useStore(controller.store);
  return { ...state, setHeld: controller.setHeld };
}
