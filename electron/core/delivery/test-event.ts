import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import { OperationError } from '../operation-error.ts';
import type { DestinationsRepo } from '../store/destinations-repo.ts';
import { buildBody } from './body.ts';
import { kindOf } from './kinds/index.ts';
import { everyUrlGone } from './receivers.ts';

export interface TestEventDeps {
  destinations: DestinationsRepo;
  writer: StoreWriter;
  clock: Clock;
}

/** The event name a test delivery carries, so a receiver can tell it from real traffic. */
export const TEST_EVENT_NAME = 'Sluice Test Event';

/**
 * "Send test event": one track message, shaped by the destination's body shape, delivered to this
 * destination only (not to the other destinations of its sources) by the delivery engine like any
 * other delivery — signed with its secret, with its headers, retried, its attempts recorded. It is
 * a delivery with trigger `test` and no stored message, so it does not show up in the stream.
 */
export async function sendTestEvent(deps: TestEventDeps, destinationId: number): Promise<{ deliveryId: number; body: string }> {
  const destination = deps.destinations.byId(destinationId);
  if (!destination) throw new OperationError('not_found', `there is no destination ${destinationId}; it may have been removed — reload the list`);
  if (!destination.enabled) {
    // A disabled destination's deliveries wait until it is enabled: the test would never be sent.
    throw new OperationError('destination_disabled', `“${destination.name}” is disabled; enable it and save, then send the test event again`);
  }
  if (everyUrlGone(destination)) {
    // Its deliveries wait until a URL is re-enabled: the test would never be sent.
    throw new OperationError(
      'webhooks_gone',
      `every webhook of “${destination.name}” answered 410 Gone and is disabled; re-enable one (or edit the destination), then send the test event again`,
    );
  }
  const now = deps.clock.now();
  const message = {
    type: 'track',
    messageId: `sluice-test-${randomUUID()}`,
    userId: 'sluice-test-user',
    event: TEST_EVENT_NAME,
    properties: { destination: destination.name, test: true },
    context: { library: { name: 'sluice', version: '1' } },
    timestamp: new Date(now).toISOString(),
  };
  // Built as its kind builds any message's body (a tracking-api destination forwards a real track call
  // upstream); signed when it is sent, as any delivery's body kept with it, so not signed here.
  const { body } = buildBody({ ...kindOf(destination).recipe(destination), sharedSecret: null }, message);
  const outcome = await deps.writer.write({
    op: 'createDeliveries',
    deliveries: [{ messageId: null, destinationId, trigger: 'test', replayOf: null, targetUrl: null, bodyOverride: body, due: now }],
    now,
  });
  return { deliveryId: outcome.ids[0]!, body };
}
