import type { DatabaseSync } from 'node:sqlite';
import { buildBody, type SignedBody } from './body.ts';
import type { BodiesRequest, PreparedBodies } from '../writer/protocol.ts';
import { MessagesRepo, normalizedMessage, viaOf } from '../store/messages-repo.ts';

/**
 * Builds the bodies of queued deliveries, as the engine would when it sends them, with the same
 * builder (body.ts) and the recipe the engine sent: read the message, normalize, build, sign. Run in the store's writer thread, which has time to
 * spare while the engine's thread is busy with HTTP: on two cores this is what lets the engine keep
 * its receivers busy. The engine uses a body only while the destination's body shape and secret are
 * still the ones it was built with, and never across a purge (body-prefetch.ts).
 */
export function bodiesPreparer(db: DatabaseSync): (request: BodiesRequest) => PreparedBodies {
  const messages = new MessagesRepo(db);
  return ({ messageIds, ...recipe }) => {
    const payloads = messages.payloads(messageIds);
    const bodies: (string | null)[] = [];
    const signatures: (string | null)[] = [];
    const vias: (string | null)[] = [];
    for (const id of messageIds) {
      const payload = payloads.get(id);
      vias.push(payload ? viaOf(payload) : null);
      let built: SignedBody | null = null;
      try {
        const message = payload ? normalizedMessage(payload) : null;
        built = message ? buildBody(recipe, message) : null;
      } catch {
        // Left to the engine's round, which fails that delivery with the reason; the others are built.
      }
      bodies.push(built?.body ?? null);
      signatures.push(built?.signature ?? null);
    }
    return { bodies, signatures, vias };
  };
}
