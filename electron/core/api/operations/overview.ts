// The delivery overview's operation (`overview.deliveries` of shared/channels/overview.ts): the
// destinations' funnels for a window, counted in the counting thread (store/message-counter.ts,
// store/delivery-funnel.ts), the window measured on the core's clock.
import { OVERVIEW_WINDOWS } from '../../../../shared/channels/overview.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

export function overviewOperations(p: OperationContext): OperationsOf<'overview.deliveries'> {
  return {
    'overview.deliveries': async ({ window }) => {
      const at = p.clock.now();
      const span = OVERVIEW_WINDOWS[window];
      const from = span === null ? null : at - span;
      const destinations = await p.counter.funnels(from, at);
      return { window, from: from === null ? null : new Date(from).toISOString(), at: new Date(at).toISOString(), destinations };
    },
  };
}
