/**
 * A "Send test event" run as the editor follows it: sent, then each `deliveries.changed` of its
 * delivery, told as one sentence (with the fix when it failed).
 */
import type { DeliverySummary } from '../../../../shared/contract.ts';
import { deliveryStateOf, type DeliveryChange as Change, type DeliveryState } from '../../store/model.ts';
import { countdown } from '../../store/outcome.ts';
import { isLoopRefusalError, loopExplanation } from '../../lib/loop-refusal.ts';

export type TestRun =
  | { phase: 'sending' }
  | { phase: 'refused'; message: string }
  | ({ phase: 'sent'; deliveryId: number } & DeliveryState);

/** The run once this change (of any delivery) is known; changes older than what the run shows are ignored. */
export function applyChange(run: TestRun, change: Change): TestRun {
  if (run.phase !== 'sent' || change.deliveryId !== run.deliveryId || change.attemptCount < run.attemptCount) return run;
  return { ...run, ...deliveryStateOf(change) };
}

/**
 * The run once its delivery, as read again (`deliveries.get`, e.g. after a reconnect that may have
 * missed changes), is known: the same rules as a live change.
 */
export function applyDelivery(run: TestRun, d: DeliverySummary): TestRun {
  return applyChange(run, { ...d, deliveryId: d.id, messageId: null });
}

export interface Told {
  tone: 'ok' | 'warn' | 'bad' | 'info' | 'muted';
  text: string;
}

/** What "Send test event" does, beside its button: a webhook test, or a real track call forwarded upstream. */
export function testHint(forward: boolean): string {
  return forward
    ? 'Forwards one real track call (“Sluice Test Event”) to this destination’s Tracking API with its write key: it lands in that source like any other event — in production, if that is a production source’s key.'
    : 'Sends one signed track event (“Sluice Test Event”) to this destination’s webhooks only, with its headers and secret.';
}

/** `forward`: the destination is a tracking-api one (its test is a forward to the API, not a webhook). */
export function tell(run: TestRun, now: number, forward = false): Told {
  if (run.phase === 'sending') return { tone: 'info', text: 'Sending a test event…' };
  if (run.phase === 'refused') return { tone: 'bad', text: `The test event was not sent: ${withPeriod(run.message)}` };
  const which = `test delivery #${run.deliveryId}`;
  const attempt = run.attemptCount === 1 ? 'the first attempt' : `attempt ${run.attemptCount}`;
  switch (run.status) {
    case 'delivered':
      return { tone: 'ok', text: `✓ Delivered — ${forward ? 'the Tracking API' : 'a webhook'} answered 2xx on ${attempt} (${which}).` };
    case 'retrying': {
      const when = run.nextAttemptAt === null ? 'soon' : countdown(run.nextAttemptAt - now);
      return { tone: 'warn', text: `⟳ Not delivered yet: ${withPeriod(run.lastError ?? 'the attempt failed')} Next attempt ${when} (${which}).` };
    }
    case 'failed':
      return { tone: 'bad', text: `✗ Failed: ${withPeriod(run.lastError ?? 'the attempt failed')}${fixFor(run, forward)} (${which})` };
    case 'cancelled':
      return { tone: 'muted', text: `Cancelled; nothing more will be sent (${which}).` };
    default:
      return { tone: 'info', text: `Queued; waiting for the first attempt (${which})…` };
  }
}

/**
 * The sender's sentences carry the fix for TLS and redirects. A loop guard's refusal (409) gets its
 * explanation; 410 Gone, where to re-enable the URL; another final 4xx, a word about the receiver (a
 * forward's: the API URL and write key).
 */
function fixFor(run: { lastError: string | null; lastErrorCode: Change['lastErrorCode']; lastHttpStatus: number | null }, forward: boolean): string {
  if (run.lastErrorCode !== 'http' || run.lastHttpStatus === null) return '';
  if (run.lastHttpStatus === 409 && isLoopRefusalError(run.lastError)) return ` ${loopExplanation(/too_many_hops/.test(run.lastError ?? '') ? 'too_many_hops' : 'loop_detected')}`;
  if (run.lastHttpStatus === 410) return ' That URL is now disabled — Re-enable it in Destinations (beside the URL) once the receiver takes requests again.';
  if (run.lastHttpStatus >= 400 && run.lastHttpStatus < 500) {
    return forward ? ' Check the API URL and the write key (a 401 or 403 usually means the key is not one the API knows).' : ' Check the URL’s path and any header the receiver expects (e.g. Authorization).';
  }
  return '';
}

function withPeriod(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
