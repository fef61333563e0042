// The destination operations (`destinations.*` of shared/channels/destinations.ts), and the core's own
// save by name (as the config file applies) and its warnings about destinations that loop back.
import { pointsAtIngest, selfLoopWarning } from '../../../../shared/loop-guard.ts';
import { sendTestEvent } from '../../delivery/test-event.ts';
import { deleteDestination, saveDestination, type DestinationSettingsDeps, type SaveOptions } from '../../destinations/destination-settings.ts';
import { OperationError } from '../../operation-error.ts';
import type { Destination } from '../../store/destinations-repo.ts';
import { destinationView } from '../views.ts';
import { cancelDeliveries } from './deliveries.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

type DestinationChannel =
  | 'destinations.list'
  | 'destinations.save'
  | 'destinations.delete'
  | 'destinations.revealSecret'
  | 'destinations.sendTest'
  | 'destinations.reenableUrl';

export function destinationOperations(p: OperationContext): OperationsOf<DestinationChannel> {
  const { delivery, destinations } = p;
  return {
    'destinations.list': () => ({ destinations: destinations.list().map((d) => destinationView(d, (url) => delivery.breaker(url), p.destinationDeclaredIn(d.id))) }),
    // The inspector's save: a new destination never overwrites another of the same name.
    'destinations.save': (config) => {
      const saved = saveDestinationConfig(p, config, { ifNameTaken: 'refuse' });
      return destinationView(saved, undefined, p.destinationDeclaredIn(saved.id));
    },
    /** Deletes a destination, cancelling its pending and retrying deliveries; history stays. */
    'destinations.delete': async ({ id, dryRun }) => {
      const cancelledDeliveries = await deleteDestination(settingsOf(p), id, { dryRun });
      return { deleted: !dryRun, cancelledDeliveries };
    },
    'destinations.revealSecret': ({ id }) => {
      const destination = destinations.byId(id);
      if (!destination) throw new OperationError('not_found', `there is no destination ${id}`);
      return { secret: destination.sharedSecret ?? null, signingSecrets: destination.signingSecrets ?? [], writeKey: destination.trackingApi?.writeKey ?? null };
    },
    /** One signed test track message to this destination's webhooks (a delivery with trigger `test`). */
    'destinations.sendTest': ({ id }) =>
      sendTestEvent({ destinations, writer: p.writer, clock: p.clock }, id).then((result) => p.sendNow([result.deliveryId], result)),
    'destinations.reenableUrl': ({ id, url }) => {
      if (!destinations.reenable(id, url)) {
        const destination = destinations.byId(id);
        if (!destination) throw new OperationError('not_found', `there is no destination ${id}`);
        throw new OperationError('not_gone', `${url} is not a disabled webhook of "${destination.name}"`);
      }
      p.bus.emit('settings.changed', null);
      delivery.tryNow([id]);
      return destinationView(destinations.byId(id)!, (u) => delivery.breaker(u), p.destinationDeclaredIn(id));
    },
  };
}

/**
 * Creates or replaces a destination by name (validated like the config file), or with `id` in the
 * config edits that one, rename included; applies to the next attempt (destinations/destination-settings.ts).
 */
export function saveDestinationConfig(p: OperationContext, config: unknown, options?: SaveOptions): Destination {
  return saveDestination(settingsOf(p), config, options);
}

/** What a host says after start about the settings: webhooks that post to this Sluice's own ingestion endpoint. */
export function configWarnings(p: OperationContext): string[] {
  return p.destinations.list().flatMap((d) => [
    ...d.webhooks.flatMap((w, i) => (pointsAtIngest(w.url, p.ingestUrl) ? [selfLoopWarning(`destination "${d.name}", webhook ${i + 1} (${w.url})`)] : [])),
    ...(d.trackingApi && pointsAtIngest(d.trackingApi.url, p.ingestUrl) ? [selfLoopWarning(`destination "${d.name}" (forwards to ${d.trackingApi.url})`)] : []),
  ]);
}

function settingsOf(p: OperationContext): DestinationSettingsDeps {
  return {
    sources: p.sources,
    destinations: p.destinations,
    writer: p.writer,
    clock: p.clock,
    applied: () => p.settingsApplied(),
    declaredIn: (id) => p.destinationDeclaredIn(id),
    cancelDeliveries: (ids) => cancelDeliveries(p, ids),
  };
}
