/** How a delete notification (a delivery with no message) reads in the deletions view. */
import type { DeliveryView } from '../../../../shared/contract.ts';
import { errorLabel, type Tone } from '../../store/outcome.ts';
import { finalReason, nextAttemptWords } from '../../store/delivery-words.ts';
import { plural } from '../../lib/format.ts';

export interface NotificationText {
  label: string;
  tone: Tone;
  /** The last attempt's answer: "HTTP 200 in 12 ms", "timeout", or null before the first attempt. */
  lastAnswer: string | null;
}

export function describeNotification(d: DeliveryView, now: number): NotificationText {
  const last = d.attempts.at(-1);
  const lastAnswer = last
    ? last.responseStatus !== null
      ? `HTTP ${last.responseStatus} in ${Math.round(last.durationMs)} ms`
      : (last.errorCode ?? 'error')
    : null;
  const attempts = plural(d.attemptCount, 'attempt');
  switch (d.status) {
    case 'delivered':
      return { label: d.attemptCount > 1 ? `✓ delivered after ${attempts}` : '✓ delivered', tone: 'ok', lastAnswer };
    case 'retrying':
      return {
        label: `⟳ next: ${nextAttemptWords(d, now)} · last: ${errorLabel(d.lastErrorCode, d.lastHttpStatus)}`,
        tone: 'warn',
        lastAnswer,
      };
    case 'failed':
      return { label: `✗ failed after ${attempts}: ${errorLabel(d.lastErrorCode, d.lastHttpStatus)} · ${finalReason(d)}`, tone: 'bad', lastAnswer };
    case 'cancelled':
      return { label: '⊗ cancelled', tone: 'muted', lastAnswer };
    case 'skipped':
      return { label: `↷ skipped${d.skipReason ? `: ${d.skipReason}` : ''}`, tone: 'muted', lastAnswer };
    case 'in_flight':
      return { label: '↗ sending', tone: 'info', lastAnswer };
    default:
      return { label: '… queued', tone: 'info', lastAnswer };
  }
}
