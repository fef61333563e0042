import pkg from '../../../package.json' with { type: 'json' };
import {
  requestSchemas,
  type Channel,
  type DeliverySummary,
  type DeliveryView,
  type DestinationView,
  type MessageSummary,
  type ParsedRequestOf,
  type Responses,
  type Result,
} from '../../../shared/contract.ts';
import { describeIssues } from '../../../shared/settings.ts';
import { sendSamples } from '../composer/samples.ts';
import { deliveryHoldState, setDeliveriesHeld } from '../delivery/delivery-hold.ts';
import type { Core } from '../index.ts';
import { issuesOf, OperationError } from '../operation-error.ts';
import { lastErrorOf, type Attempt, type Delivery, type LastAttempt } from '../store/deliveries-repo.ts';
import type { Destination } from '../store/destinations-repo.ts';
import type { StoredMessage } from '../store/messages-repo.ts';
import { shownDelivery, type LaneDelivery } from '../../../shared/shown-delivery.ts';
import { storedChanges } from '../delivery/announce.ts';

// A JSON import rather than a require relative to this file: the path also holds in the bundled main process.

export type Handlers = { [C in Channel]: (request: ParsedRequestOf<C>) => Responses[C] | Promise<Responses[C]> };


/** How many messages one `messages.list` call with a `delivery` filter reads at most, and per chunk. */
const DELIVERY_SCAN_LIMIT = 20_000;
const DELIVERY_SCAN_CHUNK = 1000;

/** The contract's handlers over a core. Hosts (IPC bridge, WebSocket) only route to these. */
export function createHandlers(core: Core): Handlers {
  const summarize = (messages: StoredMessage[]): MessageSummary[] => {
    const deliveries = core.deliveries.forMessages(messages.map((m) => m.id));
    const tags = core.audiences.repo.tags(messages.filter((m) => m.origin === 'audience').map((m) => m.id));
    const shown = new Map(messages.map((m) => [m.id, mostTelling(deliveries.get(m.id) ?? [])]));
    // The error codes of the shown deliveries that have one, read for the whole page at once.
    const erring = [...shown.values()].flatMap((d) => (d && (d.status === 'retrying' || d.status === 'failed') ? [d.id] : []));
    const lastAttempts = core.deliveries.lastAttempts(erring);
    return messages.map((m) => {
      const own = deliveries.get(m.id) ?? [];
      const audience = tags.get(m.id);
      const d = shown.get(m.id);
      const delivery = d ? summaryOf(d, lastAttempts.get(d.id)) : null;
      return { ...m, delivery, deliveryCount: own.length, ...(audience ? { audience } : {}) };
    });
  };
  return {
    'app.info': () => ({
      // pkg.version, not the whole manifest: the bundler keeps only the fields read this way.
      version: pkg.version,
      ingestUrl: core.ingestUrl,
      receiverUrl: core.receiver.url,
      dataDir: core.dataDir,
      sources: core.sources.list().map(({ id, name, writeKey, kind }) => ({ id, name, writeKey, kind })),
    }),
    'delivery.state': () => deliveryHoldState(core),
    'delivery.hold': ({ held }) => setDeliveriesHeld(core, held),
    'messages.list': (request) => {
      const query = {
        ...(request.type !== undefined ? { type: request.type } : {}),
        ...(request.status !== undefined ? { status: request.status } : {}),
        ...(request.sourceId !== undefined ? { sourceId: request.sourceId } : {}),
        ...(request.search ? { search: request.search } : {}),
        ...(request.from !== undefined ? { from: request.from } : {}),
        ...(request.to !== undefined ? { to: request.to } : {}),
      };
      const page = (beforeId: number | undefined, limit: number) =>
        summarize(core.messages.list({ ...query, limit, ...(beforeId !== undefined ? { beforeId } : {}) }));
      const wanted = request.delivery;
      if (wanted === undefined) {
        const messages = page(request.beforeId, request.limit);
        return { messages, next: messages.length === request.limit ? messages[messages.length - 1]!.id : null };
      }
      // The row's delivery state is derived from its deliveries, so scan older pages until enough
      // match, bounded per call so one request never holds the core for long.
      const messages: MessageSummary[] = [];
      let cursor = request.beforeId;
      for (let scanned = 0; scanned < DELIVERY_SCAN_LIMIT; ) {
        const chunk = page(cursor, DELIVERY_SCAN_CHUNK);
        scanned += chunk.length;
        for (const m of chunk) {
          if ((m.delivery?.status ?? 'none') !== wanted) continue;
          messages.push(m);
          if (messages.length === request.limit) return { messages, next: m.id };
        }
        if (chunk.length < DELIVERY_SCAN_CHUNK) return { messages, next: null };
        cursor = chunk[chunk.length - 1]!.id;
      }
      return { messages, next: cursor ?? null };
    },
    'messages.byIds': ({ ids }) => ({ messages: summarize(core.messages.byIds(ids).reverse()) }),
    'messages.get': ({ id }) => {
      const record = core.messages.get(id);
      if (!record) throw new OperationError('not_found', `there is no message ${id}`);
      const deliveries = core.deliveries.forMessage(id).map((d) => viewWithAttempts(d, core.deliveries.attempts(d.id)));
      const shown = mostTelling(deliveries);
      const audience = record.origin === 'audience' ? core.audiences.repo.tags([id]).get(id) : undefined;
      return {
        ...record,
        delivery: shown ? summaryFields(shown) : null,
        deliveryCount: deliveries.length,
        deliveries,
        ...(audience ? { audience } : {}),
      };
    },
    'deliveries.replay': (request) => core.replay(request),
    'deliveries.retryNow': async ({ ids }) => ({ changed: await core.retryNow(ids) }),
    'deliveries.cancel': async ({ ids }) => ({ changed: await core.cancelDeliveries(ids) }),
    'deliveries.get': ({ id }) => {
      const delivery = core.deliveries.get(id);
      if (!delivery) throw new OperationError('not_found', `there is no delivery ${id}`);
      return viewWithAttempts(delivery, core.deliveries.attempts(id));
    },
    'deliveries.states': ({ ids }) => ({ changes: storedChanges(core.deliveries, ids) }),
    'destinations.list': () => ({ destinations: core.destinations.list().map(destinationView) }),
    'destinations.save': (config) => destinationView(core.saveDestination(config, { ifNameTaken: 'refuse' })),
    'destinations.delete': async ({ id, dryRun }) => {
      const cancelledDeliveries = await core.deleteDestination(id, { dryRun });
      return { deleted: !dryRun, cancelledDeliveries };
    },
    'destinations.revealSecret': ({ id }) => {
      const destination = core.destinations.list().find((d) => d.id === id);
      if (!destination) throw new OperationError('not_found', `there is no destination ${id}`);
      return { secret: destination.sharedSecret ?? null };
    },
    'destinations.sendTest': ({ id }) => core.sendTestEvent(id),
    'deletions.create': (request) => core.requestDeletion(request),
    'deletions.list': ({ limit }) => ({
      requests: core.deletionRequests.recent(limit).map((request) => ({
        ...request,
        deliveries: core.deliveries.forDeletionRequest(request.id).map((d) => viewWithAttempts(d, core.deliveries.attempts(d.id))),
      })),
    }),
    'receiver.inbox': ({ hook, limit }) => ({
      entries: limit === undefined ? core.receiver.inbox(hook) : core.receiver.inbox(hook).slice(-limit),
      behaviours: core.receiver.behaviours(),
    }),
    'receiver.setBehaviour': ({ hook, behaviour }) => {
      core.receiver.setBehaviour(hook, behaviour);
      return { hook, behaviour };
    },
    'composer.send': ({ sourceId, type, fields }) => core.composer.send(sourceId, type, fields),
    'composer.flush': ({ sourceId }) => core.composer.flush(sourceId),
    'composer.state': ({ sourceId }) => core.composer.state(sourceId),
    'audiences.list': () => ({ audiences: core.audiences.list() }),
    'audiences.save': (input) => core.audiences.save(input),
    'audiences.delete': async ({ id }) => {
      await core.audiences.delete(id);
      return { deleted: true };
    },
    'audiences.preview': (request) => core.audiences.preview(request),
    'audiences.syncNow': async ({ id }) => {
      const sync = await core.audiences.syncNow(id);
      return core.audiences.repo.sync(sync.syncId)!;
    },
    'audiences.history': ({ id, limit, beforeId }) => {
      core.audiences.view(id); // not_found for an unknown audience
      const syncs = core.audiences.repo.syncs(id, limit, beforeId);
      return { syncs, next: syncs.length === limit ? syncs[syncs.length - 1]!.id : null };
    },
    'audiences.syncMessages': ({ syncId, afterId, limit }) => {
      const sync = core.audiences.repo.sync(syncId);
      if (!sync) throw new OperationError('not_found', `there is no audience sync ${syncId}; its audience may have been deleted`);
      const messages = core.audiences.repo.syncMessages(syncId, afterId, limit);
      return { sync, messages, next: messages.length === limit ? messages[messages.length - 1]!.id : null };
    },
    'audiences.members': ({ id, search, after, limit }) => {
      core.audiences.view(id);
      const page = core.audiences.repo.members(id, { limit, ...(search ? { search } : {}), ...(after !== undefined ? { after } : {}) });
      return { ...page, next: page.members.length === limit ? page.members[page.members.length - 1]!.userId : null };
    },
    'samples.send': ({ sourceId }) =>
      sendSamples(
        {
          sources: core.sources,
          destinations: core.destinations,
          composer: core.composer,
          hookUrl: (hook) => core.receiver.hookUrl(hook),
          saveDestination: (config) => core.saveDestination(config),
        },
        sourceId,
      ),
  };
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
    return { ok: false, error: { code: 'internal_error', message: (error as Error).message } };
  }
}

/** The delivery a message's row shows: the rule the SQL filter and the renderer share (shared/shown-delivery.ts). */
function mostTelling<D extends LaneDelivery>(deliveries: D[]): D | null {
  return shownDelivery(deliveries);
}

/** `last`: the delivery's newest attempt, which names its error (DeliveriesRepo.lastAttempts). */
function summaryOf(d: Delivery, last: LastAttempt | undefined): DeliverySummary {
  return {
    id: d.id,
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.nextAttemptAt,
    lastError: d.lastError,
    ...lastErrorOf(d, last),
    skipReason: d.skipReason,
    destinationId: d.destinationId,
    trigger: d.trigger,
    targetUrl: d.targetUrl,
  };
}

/** A view's summary part, without the view's own fields. */
function summaryFields(v: DeliveryView): DeliverySummary {
  const { id, status, attemptCount, nextAttemptAt, lastError, lastErrorCode, lastHttpStatus, skipReason, destinationId, trigger, targetUrl } = v;
  return { id, status, attemptCount, nextAttemptAt, lastError, lastErrorCode, lastHttpStatus, skipReason, destinationId, trigger, targetUrl };
}

function viewWithAttempts(d: Delivery, attempts: Attempt[]): DeliveryView {
  return { ...viewOf(d, attempts.at(-1)), attempts };
}

function viewOf(d: Delivery, last: LastAttempt | undefined): Omit<DeliveryView, 'attempts'> {
  return {
    ...summaryOf(d, last),
    replayOf: d.replayOf,
    body: d.body,
    signature: d.signature,
    firstAttemptAt: d.firstAttemptAt,
    deadlineAt: d.deadlineAt,
    createdAt: d.createdAt,
  };
}

export function destinationView(d: Destination): DestinationView {
  return {
    id: d.id,
    name: d.name,
    enabled: d.enabled,
    sourceIds: d.sourceIds,
    webhooks: d.webhooks,
    hasSecret: d.sharedSecret !== undefined,
    maskedSecret: d.sharedSecret ? `${d.sharedSecret.slice(0, Math.min(3, Math.floor(d.sharedSecret.length / 3)))}•••••` : null,
    options: d.options,
  };
}
