/**
 * A row's outcome: what kind it is (a delivery state, rejected, duplicate or none; the status filter
 * and the list's counts go by it), and how the row words it: the words, the colour (tone) and the
 * full sentence for its tooltip.
 */
import type { DeliveryStatusName, DeliverySummary, MessageSummary } from '../../../shared/contract.ts';
import { isLoopRefusalError } from '../lib/loop-refusal.ts';
import { attemptsWord, errorLabel, finalReason, nextAttemptWords } from './delivery-words.ts';
import { plural } from '../lib/format.ts';

export { countdown, errorLabel } from './delivery-words.ts';

/** What a row says happened: a delivery state, or why there is no delivery. */
export type OutcomeKind = DeliveryStatusName | 'rejected' | 'duplicate' | 'none';
export const OUTCOME_KINDS: readonly OutcomeKind[] = [
  'delivered',
  'retrying',
  'failed',
  'pending',
  'skipped',
  'cancelled',
  'rejected',
  'duplicate',
  'none',
];

/** The row's outcome kind. */
export function outcomeOf(m: Pick<MessageSummary, 'status'> & { delivery: { status: string } | null }): OutcomeKind {
  if (m.status === 'rejected') return 'rejected';
  if (m.status === 'duplicate') return 'duplicate';
  return (m.delivery?.status as DeliveryStatusName | undefined) ?? 'none';
}

export type Tone = 'ok' | 'warn' | 'bad' | 'muted' | 'info';

export interface OutcomeText {
  kind: OutcomeKind;
  /** Short, for the row: "✓ delivered", "⟳ next: attempt 3 in 12 s · last: timeout", "✗ failed: HTTP 400 · not retried (4xx)". */
  label: string;
  /** The whole story, for the tooltip and screen readers. */
  title: string;
  tone: Tone;
}

/**
 * What describeOutcome reads of a row. A delivery card passes its one delivery, which need not say
 * where it goes; `trigger: 'replay'` makes the words say so ("✓ delivered (replayed)").
 */
export type OutcomeSubject = Pick<MessageSummary, 'status' | 'rejectCode' | 'rejectReason' | 'deliveryCount'> & {
  delivery: (Omit<DeliverySummary, 'destinationId' | 'trigger' | 'targetUrl'> & { trigger?: string }) | null;
};

export function describeOutcome(m: OutcomeSubject, now: number): OutcomeText {
  const kind = outcomeOf(m);
  const d = m.delivery;
  const replay = d?.trigger === 'replay';
  const others =
    m.deliveryCount > 1 ? ` (of ${m.deliveryCount} deliveries, the latest to each destination counts; this one is the most telling)` : '';
  switch (kind) {
    case 'rejected': {
      const reason = m.rejectCode ?? 'invalid';
      return { kind, label: `⊘ rejected: ${reason}`, title: `Rejected at ingestion: ${m.rejectReason ?? reason}. It is stored but never delivered.`, tone: 'bad' };
    }
    case 'duplicate':
      return { kind, label: '≡ duplicate', title: 'This source already sent a message with this messageId; it is stored but not delivered again.', tone: 'muted' };
    case 'none':
      return { kind, label: 'stored, no destination', title: 'Stored. No enabled webhook destination is connected to this source.', tone: 'muted' };
    case 'delivered': {
      const after = d && d.attemptCount > 1 ? ` after ${d.attemptCount} attempts` : '';
      return {
        kind,
        label: `✓ delivered${after}${replay ? ' (replayed)' : ''}`,
        title: `${replay ? 'Delivered by a replay' : 'Delivered'}${after}${others}.`,
        tone: 'ok',
      };
    }
    case 'retrying': {
      // "next: attempt 3", never "attempt 3" alone: it is the attempt to come, not the one that failed.
      const next = nextAttemptWords(d ?? { attemptCount: 0, nextAttemptAt: null }, now);
      const error = errorLabel(d?.lastErrorCode ?? null, d?.lastHttpStatus ?? null);
      const failed = attemptsWord(d?.attemptCount ?? 0);
      return {
        kind,
        label: `⟳ ${replay ? 'replay · ' : ''}next: ${next} · last: ${error}`,
        title: `${replay ? 'Retrying a replay' : 'Retrying'}: ${failed} failed, the last with: ${d?.lastError ?? 'unknown error'}. Next: ${next}${others}.`,
        tone: 'warn',
      };
    }
    case 'failed': {
      const code = errorLabel(d?.lastErrorCode ?? null, d?.lastHttpStatus ?? null);
      // Refused by a Sluice's loop guard: the words say it, the tooltip how (the core's sentence).
      const error = isLoopRefusalError(d?.lastError) ? `loop guard (${code})` : code;
      // Failed for good: the words say why it is not tried again (never a time it gives up at).
      const why = d ? finalReason(d) : 'not retried';
      const attempts = d ? ` after ${attemptsWord(d.attemptCount)}` : '';
      return {
        kind,
        label: `✗ ${replay ? 'replay ' : ''}failed: ${error} · ${why}`,
        title: `${replay ? 'A replay failed' : 'Failed'}${attempts}, ${why}: ${d?.lastError ?? 'unknown error'}${others}.`,
        tone: 'bad',
      };
    }
    case 'skipped': {
      const reason = d?.skipReason ?? 'integrations turned webhooks off';
      return { kind, label: `↷ skipped: ${shorten(reason, 40)}`, title: `Skipped: ${reason}.`, tone: 'muted' };
    }
    case 'cancelled':
      return {
        kind,
        label: replay ? '⊗ replay cancelled' : '⊗ cancelled',
        title: `The ${replay ? 'replay' : 'delivery'} was cancelled${d ? ` after ${plural(d.attemptCount, 'attempt')}` : ''}.`,
        tone: 'muted',
      };
    case 'pending':
      return { kind, label: replay ? '… replay queued' : '… queued', title: 'Waiting for its first attempt (a disabled destination, or deliveries held in Settings, keep it waiting).', tone: 'info' };
  }
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Names of the outcome filter's options. */
export const OUTCOME_NAMES: Record<OutcomeKind, string> = {
  delivered: 'Delivered',
  retrying: 'Retrying',
  failed: 'Failed',
  pending: 'Queued',
  skipped: 'Skipped',
  cancelled: 'Cancelled',
  rejected: 'Rejected',
  duplicate: 'Duplicate',
  none: 'No destination',
};
