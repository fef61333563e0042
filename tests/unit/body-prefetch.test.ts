// Bodies built ahead for queued deliveries (electron/core/delivery/body-prefetch.ts) are never used
// across a purge: not while one is under way, and not one asked for or built before it ended.
import { describe, expect, it } from 'vitest';
import { BodyPrefetch } from '../../electron/core/delivery/body-prefetch.ts';
import type { DueDelivery } from '../../electron/core/store/deliveries-repo.ts';
import type { Destination } from '../../electron/core/store/destinations-repo.ts';
import type { BodiesRequest, PreparedBodies } from '../../electron/core/writer/protocol.ts';

const destination = { id: 1, sharedSecret: 's', options: { bodyShape: 'seed', concurrency: 4 } } as unknown as Destination;
const due = (id: number) => ({ id, messageId: 100 + id, bodyOverride: null }) as unknown as DueDelivery;

/** A writer whose answers the test releases, building "body <messageId>" for each message. */
function writer() {
  const asked: { request: BodiesRequest; answer: () => void }[] = [];
  return {
    asked,
    prepareBodies(request: BodiesRequest): Promise<PreparedBodies | null> {
      return new Promise((resolve) => {
        asked.push({
          request,
          answer: () => resolve({ bodies: request.messageIds.map((m) => `body ${m}`), signatures: request.messageIds.map((m) => `sig ${m}`), vias: request.messageIds.map(() => null) }),
        });
      });
    },
  };
}

describe('BodyPrefetch', () => {
  it('gives a built body once, with the settings it was built with; none while it is being built', async () => {
    const w = writer();
    const bodies = new BodyPrefetch(w);
    bodies.request(destination, [due(1), due(2)]);
    expect(w.asked[0]!.request).toEqual({ messageIds: [101, 102], bodyShape: 'seed', sharedSecret: 's' });
    const pending = bodies.pending(1);
    expect(pending).toBeInstanceOf(Promise);
    w.asked[0]!.answer();
    await pending;
    expect(bodies.pending(1)).toBeUndefined();
    expect(bodies.take(1)).toEqual({
      shaped: { kind: 'send', bodies: [{ body: 'body 101', signature: 'sig 101' }], shaping: null, run: null },
      via: null, shapeKey: null, bodyShape: 'seed', sharedSecret: 's',
    });
    expect(bodies.take(1)).toBeUndefined(); // taken
    bodies.delete(2);
    expect(bodies.take(2)).toBeUndefined();
  });

  it('gives none while a purge is under way, even one built before it began', async () => {
    const w = writer();
    const bodies = new BodyPrefetch(w);
    bodies.request(destination, [due(1)]);
    w.asked[0]!.answer();
    await bodies.pending(1);
    const done = bodies.purging();
    expect(bodies.take(1)).toBeUndefined();
    done();
  });

  it('drops, when a purge ends, every body built or asked for before it', async () => {
    const w = writer();
    const bodies = new BodyPrefetch(w);
    bodies.request(destination, [due(1)]); // built before the purge
    w.asked[0]!.answer();
    await bodies.pending(1);
    bodies.request(destination, [due(2)]); // asked for before, built during the purge
    const done = bodies.purging();
    const second = bodies.pending(2)!;
    w.asked[1]!.answer();
    await second;
    done();
    expect(bodies.take(1)).toBeUndefined();
    expect(bodies.take(2)).toBeUndefined();
    // Asked for after the purge: used.
    bodies.request(destination, [due(3)]);
    w.asked[2]!.answer();
    await bodies.pending(3);
    expect(bodies.take(3)?.shaped).toEqual({ kind: 'send', bodies: [{ body: 'body 103', signature: 'sig 103' }], shaping: null, run: null });
  });
});
