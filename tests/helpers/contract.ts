// Calls a contract channel through the real handlers (request validation included), as the hosts do.
import { invoke, type Handlers } from '../../electron/core/api/contract-handlers.ts';
import type { Channel, Responses } from '../../shared/contract.ts';

/** The channel's answer; a failed call throws with its code and message, so the test says what went wrong. */
export async function callOk<C extends Channel>(handlers: Handlers, channel: C, request: unknown): Promise<Responses[C]> {
  const result = await invoke(handlers, channel, request);
  if (!result.ok) throw new Error(`${channel} failed: ${result.error.code}: ${result.error.message}`);
  return result.value as Responses[C];
}
