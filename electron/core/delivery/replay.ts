import { REPLAY_FILTER_MAX, replayRequestSchema, type ReplayOutcome, type ReplayRequest } from '../../../shared/channels/deliveries.ts';
import { describeIssues } from '../../../shared/settings.ts';
import { currentDeliveries } from '../../../shared/shown-delivery.ts';
import type { Clock } from '../clock.ts';
import type { NewDelivery } from '../store/delivery-types.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import { OperationError } from '../operation-error.ts';
import type { DeliveriesRepo } from '../store/deliveries-repo.ts';
import type { Destination, DestinationsRepo } from '../store/destinations-repo.ts';
import type { MessagesRepo } from '../store/messages-repo.ts';
import { everyUrlGone } from './receivers.ts';

export interface ReplayDeps {
  messages: MessagesRepo;
  deliveries: DeliveriesRepo;
  destinations: DestinationsRepo;
  writer: StoreWriter;
  clock: Clock;
}

/**
 * Replays messages as new deliveries (trigger "replay", linked to the delivery they repeat), each
 * with its own attempts: one message, a filtered set, or every delivery that is failed now; through a
 * destination's webhooks or to a URL given for this replay; optionally with an edited body, which
 * is signed like any other. Listed messages must all be replayable; a filter's rejected messages
 * and messages without an enabled destination are left out and counted. A dry run only counts.
 */
export async function replay(deps: ReplayDeps, input: unknown): Promise<ReplayOutcome> {
  const parsed = replayRequestSchema.safeParse(input);
  if (!parsed.success) throw new OperationError('invalid_replay', describeIssues(parsed.error).join('; '));
  const request: ReplayRequest = parsed.data;
  const now = deps.clock.now();
  const destinations = deps.destinations.list();
  let chosen: Destination | undefined;
  if (request.destinationId !== undefined) {
    chosen = destinations.find((d) => d.id === request.destinationId);
    if (!chosen) throw new OperationError('unknown_destination', `there is no destination ${request.destinationId}`);
  }
  const bodyOverride = request.body ? JSON.stringify(request.body) : null;
  // An edited body is the body the destination receives (what the inspector shows and edits): sent as it
  // is, unless the request asks for it to go through the destination's transform (skipTransform: false).
  const transformBody = bodyOverride !== null && request.skipTransform === false;
  const targetUrl = request.targetUrl ?? null;
  const planned: NewDelivery[] = [];
  const leftOut = { rejected: 0, noDestination: 0 };

  let truncated = false;

  if (request.allFailed) {
    // What is failed now: a delivery a later replay or retry has delivered (or is still sending) is
    // not, so running "all failed" twice sends nothing twice. The store leaves out other destinations'
    // (when one is chosen) and deleted destinations' failures before its limit (DeliveriesRepo.failedNow).
    const failedNow = deps.deliveries.failedNow(chosen ? { destinationId: chosen.id } : {});
    truncated = failedNow.truncated;
    for (const failed of failedNow.deliveries) {
      planned.push({
        messageId: failed.messageId,
        destinationId: failed.destinationId,
        trigger: 'replay',
        replayOf: failed.id,
        targetUrl,
        bodyOverride: failed.bodyOverride,
        ...(failed.transformBody ? { transformBody: true } : {}),
        due: now,
        deletionRequestId: failed.deletionRequestId,
      });
    }
  } else {
    const ids = request.messageIds ?? deps.messages.findIds(request.filter!, REPLAY_FILTER_MAX + 1);
    if (ids.length > REPLAY_FILTER_MAX) {
      throw new OperationError(
        'too_many',
        `more than ${REPLAY_FILTER_MAX.toLocaleString('en')} messages match; replay at most ${REPLAY_FILTER_MAX.toLocaleString('en')} at a time — narrow the filters, e.g. with a time range`,
      );
    }
    for (const id of ids) {
      const message = deps.messages.byIds([id])[0];
      if (!message) throw new OperationError('unknown_message', `there is no message ${id}`);
      if (message.status === 'rejected') {
        if (request.messageIds) throw new OperationError('not_replayable', `message ${id} was rejected (${message.rejectReason}); fix it and send it again`);
        leftOut.rejected++;
        continue;
      }
      const through = chosen ? [chosen] : destinations.filter((d) => d.enabled && d.sourceIds.includes(message.sourceId));
      if (through.length === 0) {
        if (request.filter) {
          leftOut.noDestination++;
          continue;
        }
        throw new OperationError(
          'no_destination',
          `message ${id}'s source has no enabled destination; choose one (destinationId) to sign and shape the replay`,
        );
      }
      const previous = deps.deliveries.forMessage(id);
      for (const destination of through) {
        // It repeats the delivery that stands for this destination now (shared/shown-delivery.ts).
        const [repeated] = currentDeliveries(previous.filter((d) => d.destinationId === destination.id));
        planned.push({
          messageId: id,
          messageKey: message.messageId,
          destinationId: destination.id,
          trigger: 'replay',
          replayOf: repeated?.id ?? null,
          targetUrl,
          bodyOverride,
          ...(transformBody ? { transformBody } : {}),
          due: now,
        });
      }
    }
  }
  const counts = {
    messages: new Set(planned.flatMap((d) => (d.messageId === null ? [] : [d.messageId]))).size,
    deliveries: planned.length,
    leftOut,
    // Only the oldest FAILED_NOW_MAX were replayed: running it again replays the next ones.
    ...(truncated ? { truncated: true as const } : {}),
  };
  // A destination whose every webhook answered 410 Gone sends nothing (its deliveries wait until one is
  // re-enabled, a typed URL's too): a replay through it would only wait. Said now, with the way out.
  const gone = new Set(planned.map((d) => d.destinationId));
  for (const id of gone) {
    const destination = deps.destinations.byId(id);
    if (destination && everyUrlGone(destination)) {
      throw new OperationError(
        'webhooks_gone',
        `every webhook of “${destination.name}” answered 410 Gone and is disabled; re-enable one in Destinations (or edit the destination), then replay`,
      );
    }
  }
  if (planned.length === 0 || request.dryRun) return { deliveryIds: [], ...counts };
  const outcome = await deps.writer.write({ op: 'createDeliveries', deliveries: planned, now });
  return { deliveryIds: outcome.ids, ...counts };
}
