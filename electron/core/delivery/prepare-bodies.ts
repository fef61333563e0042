import type { DatabaseSync } from 'node:sqlite';
import type { Violation } from '../../../shared/tracking-plan.ts';
import { buildBody, type SignedBody } from './body.ts';
import { factsOf, filterMessage } from './shaping.ts';
import type { BodiesRequest, PreparedBodies } from '../writer/protocol.ts';
import { MessagesRepo, normalizedMessage, viaOf } from '../store/messages-repo.ts';

/**
 * Builds the bodies of queued deliveries, as the engine would when it sends them, with the same
 * builder (body.ts) and the recipe the engine sent: read the message, normalize, filter (the
 * destination's filters, when it has any: shaping.ts), build, sign. Run in the store's writer thread,
 * which has time to spare while the engine's thread is busy with HTTP: on two cores this is what lets
 * the engine keep its receivers busy. For a destination with a transform it answers the filtered
 * messages too (the engine has them transformed, in a batch; an event returned unchanged is sent with
 * the body built here). The engine uses a body only while
 * the destination's body shape, secret, filters and transform are still the ones it was built with,
 * and never across a purge (body-prefetch.ts).
 */
export function bodiesPreparer(db: DatabaseSync): (request: BodiesRequest) => PreparedBodies {
  const messages = new MessagesRepo(db);
  return ({ messageIds, filters, sourceNames, messagesOnly, ...recipe }) => {
    const payloads = messages.payloads(messageIds);
    const names = new Map(sourceNames ?? []);
    const bodies: (string | null)[] = [];
    const signatures: (string | null)[] = [];
    const vias: (string | null)[] = [];
    // Only for a destination with filters or a transform: the others' answers are as before.
    const dropped: (string | null)[] | undefined = filters?.length ? [] : undefined;
    const shapings: (string | null)[] | undefined = dropped ? [] : undefined;
    const kept: (Record<string, unknown> | null)[] | undefined = messagesOnly ? [] : undefined;
    for (const id of messageIds) {
      const payload = payloads.get(id);
      vias.push(payload ? viaOf(payload) : null);
      let built: SignedBody | null = null;
      let drop: string | null = null;
      let shaping: string | null = null;
      let message: Record<string, unknown> | null = null;
      try {
        message = payload ? normalizedMessage(payload) : null;
        if (message && payload && dropped) {
          const violations = payload.violations ? (JSON.parse(payload.violations) as Violation[]) : null;
          const filtered = filterMessage({ filters }, message, factsOf(names.get(payload.source_id) ?? '', payload.origin, violations));
          if (filtered.kind === 'dropped') [drop, message] = [filtered.reason, null];
          else if (filtered.kind === 'failed') message = null; // left to the round, which fails it saying why
          else [message, shaping] = [filtered.message, filtered.shaping];
        }
        // Built for a transform's destination too: an event the transform returns unchanged is sent with it.
        if (message) built = buildBody(recipe, message);
      } catch {
        // Left to the engine's round, which fails that delivery with the reason; the others are built.
        message = null;
      }
      bodies.push(built?.body ?? null);
      signatures.push(built?.signature ?? null);
      dropped?.push(drop);
      shapings?.push(shaping);
      kept?.push(message);
    }
    return { bodies, signatures, vias, ...(dropped ? { dropped, shapings } : {}), ...(kept ? { messages: kept } : {}) };
  };
}
