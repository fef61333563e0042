import { webhookBody, type BodyRecipe } from '../../../shared/webhook-body.ts';
import { signBody } from '../signature/signature.ts';

/** A body as a delivery sends it, and its X-Signature (null when its destination does not sign). */
export interface SignedBody {
  body: string;
  signature: string | null;
}

/** What a message is sent as, or why it is not: the outcome of a destination's filters and transform. */
export type Shaped =
  /** One body, or several (a transform's fan-out), in order; `run`: the transform's (JSON), null without one. */
  | { kind: 'send'; bodies: SignedBody[]; shaping: string | null; run: string | null }
  /** A filter or the transform dropped it: the delivery is `skipped` with this reason, nothing sent. */
  | { kind: 'skip'; reason: string; run: string | null }
  /** The transform threw RetryError: retried on the delivery's schedule. */
  | { kind: 'retry'; error: string; shaping: string; run: string }
  /** The transform failed (threw, timed out, ran out of memory, returned what JSON cannot carry, would not load): failed, not retried. */
  | { kind: 'fail'; error: string; shaping: string; run: string | null };

/**
 * A queued delivery's body built ahead (body-prefetch.ts), with the recipe it was built with — or what
 * its destination's filters and transform made of it instead (shaping.ts: skipped, retried, failed).
 */
export interface PreparedBody extends BodyRecipe {
  /** The Sluices its message passed through before this one (see shared/loop-guard.ts). */
  via: string | null;
  /** The filters and transform it was shaped with (shaping.ts shapeKey); null: neither. */
  shapeKey: string | null;
  shaped: Shaped;
}

/**
 * THE body builder: every body a destination is sent goes through here — a round's, a replay's, an
 * edited replay's, a test event's, a deletion notification's, and those the writer thread builds
 * ahead (prepare-bodies.ts). From a normalized message, shaped as the recipe says
 * (shared/webhook-body.ts), or a body already made (an edited replay's, a test event's, a
 * deletion notification's, kept with its delivery), which is sent as it is; then signed with the
 * recipe's secret. The recipe is the destination kind's (kinds/); a destination's own filters and
 * transform (shaping.ts) decide which messages — or events — come here.
 */
export function buildBody(recipe: BodyRecipe, from: Record<string, unknown> | string): SignedBody {
  const body = typeof from === 'string' ? from : JSON.stringify(webhookBody(from, recipe.bodyShape));
  return { body, signature: recipe.sharedSecret ? signBody(body, recipe.sharedSecret) : null };
}

/** Whether a body built with `built` is the one `now` builds (same shape, same secret). */
export function sameRecipe(built: BodyRecipe, now: BodyRecipe): boolean {
  return built.bodyShape === now.bodyShape && built.sharedSecret === now.sharedSecret;
}
