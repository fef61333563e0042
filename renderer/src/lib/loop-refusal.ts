/**
 * An attempt refused by a Sluice's loop guard (shared/loop-guard.ts): the receiver answered 409 with
 * `loop_detected` (the request had already passed through that Sluice: a destination posts back into
 * Sluice) or `too_many_hops` (more than MAX_HOPS Sluices). The attempts timeline, the delivery's error
 * and the stream's row say so in words, with the fix.
 */
import { MAX_HOPS } from '../../../shared/loop-guard.ts';

export type LoopRefusal = 'loop_detected' | 'too_many_hops';

/** The loop guard's code in an attempt's answer, or null when it was some other answer. */
export function loopRefusalOf(attempt: { responseStatus: number | null; responseBody: string | null }): LoopRefusal | null {
  if (attempt.responseStatus !== 409 || !attempt.responseBody) return null;
  try {
    const code = (JSON.parse(attempt.responseBody) as { error?: { code?: unknown } } | null)?.error?.code;
    return code === 'loop_detected' || code === 'too_many_hops' ? code : null;
  } catch {
    return null;
  }
}

/** Whether a delivery's error sentence is the loop guard's (the core words a refusal "refused by the loop guard (409 loop_detected): …"). */
export function isLoopRefusalError(error: string | null | undefined): boolean {
  return !!error && /refused by the loop guard|\b(loop_detected|too_many_hops)\b/.test(error);
}

/** What happened and what to do, in two sentences. */
export function loopExplanation(code: LoopRefusal): string {
  const what =
    code === 'loop_detected'
      ? 'Refused by the loop guard: the receiver is a Sluice this request had already passed through (its own id was in the Sluice-Loop header), so this destination posts messages back round in a loop.'
      : `Refused by the loop guard: the message had already passed through more than ${MAX_HOPS} Sluices (the Sluice-Loop header), which looks like Sluices forwarding to each other in a loop.`;
  return `${what} It is not retried. Point the destination elsewhere — at a receiver, not at a Sluice's ingestion endpoint that leads back here; when two Sluices forward to each other, one of the two must stop forwarding to the other.`;
}
