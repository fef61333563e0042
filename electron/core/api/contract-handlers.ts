// The contract's handlers: each channel of shared/contract.ts runs the operation of the same name
// (operations/), and invoke() validates a request and turns every failure into a typed result. Hosts
// (the IPC bridge, the WebSocket) only route to these.
import { requestSchemas, type Channel, type Result } from '../../../shared/contract.ts';
import { describeIssues } from '../../../shared/settings.ts';
import { QueryError } from '../../../shared/message-query.ts';
import { issuesOf, OperationError } from '../operation-error.ts';
import type { CoreCommands, Operations } from './operations/index.ts';

/** Each channel's handler: its operation (operations/), under the channel's own name. */
export type Handlers = Operations;

/** What the core says a failure of its store is (a damaged store, a full disk), or null. */
type StoreFailureOf = CoreCommands['storeFailureOf'];

/** The contract's handlers: the core's operations (and what the core says a store failure is). */
export function createHandlers(core: { readonly operations: Operations; readonly storeFailureOf: StoreFailureOf }): Handlers {
  return withStoreFailures(core.storeFailureOf, core.operations);
}

/**
 * Each handler, with a damaged store or a full disk refused as store_damaged / disk_full in the
 * sentence ingestion answers (the file, what is wrong, the fix), not as a bare internal_error: the
 * contract's one answer to a store failure.
 */
function withStoreFailures(storeFailureOf: StoreFailureOf, handlers: Handlers): Handlers {
  const wrapped = {} as Record<Channel, (request: unknown) => Promise<unknown>>;
  for (const [channel, handler] of Object.entries(handlers) as [Channel, (request: unknown) => unknown][]) {
    wrapped[channel] = async (request) => {
      try {
        return await handler(request);
      } catch (error) {
        const failure = error instanceof OperationError ? null : storeFailureOf(error);
        throw failure ? new OperationError(failure.code, failure.message) : error;
      }
    };
  }
  return wrapped as unknown as Handlers;
}

/**
 * Validates and runs one call: an unknown channel, an invalid request, a refused operation and an
 * unexpected failure all come back as `{ok: false, error: {code, message}}`.
 */
export async function invoke(handlers: Handlers, channel: string, request: unknown): Promise<Result<unknown>> {
  // Callers pass what a frame or an IPC message said: a channel that is not a string is no channel.
  if (typeof channel !== 'string' || !Object.hasOwn(requestSchemas, channel)) {
    const name = typeof channel === 'string' ? `"${channel.slice(0, 100)}"` : `of type ${typeof channel}`;
    return { ok: false, error: { code: 'unknown_channel', message: `no channel ${name}` } };
  }
  const schema = requestSchemas[channel as Channel];
  const parsed = schema.safeParse(request ?? {});
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid_request', message: describeIssues(parsed.error).join('; '), issues: issuesOf(parsed.error) } };
  }
  try {
    const handler = handlers[channel as Channel] as (request: unknown) => unknown;
    return { ok: true, value: await handler(parsed.data) };
  } catch (error) {
    if (error instanceof OperationError) {
      return { ok: false, error: { code: error.code, message: error.message, ...(error.issues ? { issues: error.issues } : {}) } };
    }
    if (error instanceof QueryError) return { ok: false, error: { code: 'invalid_query', message: `search: ${error.message}`, issues: [{ path: ['search'], message: error.message }] } };
    return { ok: false, error: { code: 'internal_error', message: (error as Error).message } };
  }
}
