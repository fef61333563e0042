import type { DatabaseSync } from 'node:sqlite';
import { signBody } from '../signature/signature.ts';
import { webhookBody } from '../../../shared/webhook-body.ts';
import type { BodiesRequest, PreparedBodies } from '../writer/protocol.ts';
import { MessagesRepo, normalizedMessage, viaOf } from '../store/messages-repo.ts';

/**
 * Builds the webhook bodies of queued deliveries, as the engine would when it sends them: read the
 * message, normalize, map, stringify, sign. Run in the store's writer thread, which has time to
 * spare while the engine's thread is busy with HTTP: on two cores this is what lets the engine keep
 * its receivers busy. The engine uses a body only while the destination's body shape and secret are
 * still the ones it was built with, and never across a purge (body-prefetch.ts).
 */
export function bodiesPreparer(db: DatabaseSync): (request: BodiesRequest) => PreparedBodies {
  const messages = new MessagesRepo(db);
  return ({ messageIds, bodyShape, sharedSecret }) => {
    const payloads = messages.payloads(messageIds);
    const bodies: (string | null)[] = [];
    const signatures: (string | null)[] = [];
    const vias: (string | null)[] = [];
    for (const id of messageIds) {
      const payload = payloads.get(id);
      vias.push(payload ? viaOf(payload) : null);
      let body: string | null = null;
      try {
        const message = payload ? normalizedMessage(payload) : null;
        body = message ? JSON.stringify(webhookBody(message, bodyShape)) : null;
      } catch {
        // Left to the engine's round, which fails that delivery with the reason; the others are built.
      }
      bodies.push(body);
      signatures.push(body !== null && sharedSecret ? signBody(body, sharedSecret) : null);
    }
    return { bodies, signatures, vias };
  };
}
