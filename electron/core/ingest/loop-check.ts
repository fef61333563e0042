import { LOOP_HEADER, MAX_HOPS, parseLoopHeader } from '../../../shared/loop-guard.ts';
import { IngestError } from './ingest-error.ts';

const HEADER = LOOP_HEADER.toLowerCase();

/**
 * The loop guard's ingestion side (shared/loop-guard.ts): refuses a request that this Sluice sent
 * itself, or that has passed through more than MAX_HOPS Sluices. A 4xx, so the delivery that sent
 * it fails at once, with this sentence in its attempt, instead of being retried. Returns the Sluices
 * the request passed through (kept with its messages and passed on when they are delivered).
 */
export function checkLoop(headers: Record<string, string | string[] | undefined>, instanceId: string): string[] | undefined {
  const value = headers[HEADER];
  if (value === undefined) return undefined;
  const via = parseLoopHeader(value);
  if (via.includes(instanceId)) {
    throw new IngestError(
      409,
      'loop_detected',
      `this request was sent by this Sluice and came back to it (${LOOP_HEADER}: ${via.join(', ')}): a destination posts to this ingestion endpoint, or forwards to a Sluice that forwards back. It was refused so that messages do not loop; point that destination at a receiver. (Two Sluices made from a copied data folder share an id: delete the setting instance.id in one's store.)`,
    );
  }
  if (via.length > MAX_HOPS) {
    throw new IngestError(409, 'too_many_hops', `this request has passed through more than ${MAX_HOPS} Sluices (${LOOP_HEADER}); it was refused as a probable loop`);
  }
  return via.length > 0 ? via : undefined;
}
