// The built-in receiver's operations (`receiver.*` of shared/channels/receiver.ts): its inbox, how each
// hook answers, and a source connected to it.
import { receiverHookUrl } from '../../../../shared/receiver-hooks.ts';
import { connectBuiltinReceiver, type SamplesDeps } from '../../composer/samples.ts';
import { saveDestinationConfig } from './destinations.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

export function receiverOperations(p: OperationContext): OperationsOf<'receiver.inbox' | 'receiver.setBehaviour' | 'receiver.connect'> {
  return {
    'receiver.inbox': ({ hook, limit }) => ({
      entries: limit === undefined ? p.receiver.inbox(hook) : p.receiver.inbox(hook).slice(-limit),
      behaviours: p.receiver.behaviours(),
    }),
    'receiver.setBehaviour': ({ hook, behaviour }) => {
      p.receiver.setBehaviour(hook, behaviour);
      return { hook, behaviour };
    },
    'receiver.connect': ({ sourceId }) => ({ destination: connectBuiltinReceiver(receiverDestination(p), sourceId) }),
  };
}

/** The "Built-in receiver" destination's parts (composer/samples.ts), by name: it keeps reaching the receiver after a start on another port. */
export function receiverDestination(p: OperationContext): Omit<SamplesDeps, 'composer'> {
  return {
    sources: p.sources,
    destinations: p.destinations,
    hookUrl: receiverHookUrl,
    saveDestination: (config: unknown) => saveDestinationConfig(p, config),
  };
}
