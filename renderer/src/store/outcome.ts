/**
 * A row's outcome: what kind it is (a delivery state, rejected, duplicate or none; the status filter
 * and the list's counts go by it), and how the row words it: the words, the colour (tone) and the
 * full sentence for its tooltip.
 */
import type { DeliveryErrorCode, DeliveryStatusName, DeliverySummary, MessageSummary } from '../../../shared/contract.ts';
import { isLoopRefusalError } from '../lib/loop-refusal.ts';

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
  /** Short, for the row: "✓ delivered", "⟳ retry in 12 s · attempt 3", "✗ failed: timeout". */
  label: string;
  /** The whole story, for the tooltip and screen readers. */
  title: string;
  tone: Tone;
}

/**
 * A short name for a delivery's last error, from the code the core lists with it (the attempt's
 * error code, and the status for `http`); the sentence itself goes in the tooltip.
 */
export function errorLabel(code: DeliveryErrorCode | null, httpStatus: number | null = null): string {
  switch (code) {
    case 'http':
      return httpStatus === null ? 'HTTP error' : `HTTP ${httpStatus}`;
    case 'timeout':
    case 'tls':
    case 'connect':
    case 'reset':
      return code;
    default:
      return 'not sent'; // failed without an attempt (its message was purged): the sentence says why
  }
}

export function countdown(ms: number): string {
  if (ms <= 500) return 'now';
  const s = Math.round(ms / 1000);
  if (s < 60) return `in ${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `in ${m} min ${String(s % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  return `in ${h} h ${String(m % 60).padStart(2, '0')} min`;
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
      return { kind, label: '· stored, no destination', title: 'Stored. No enabled webhook destination is connected to this source.', tone: 'muted' };
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
      const attempt = (d?.attemptCount ?? 0) + 1;
      const when = d?.nextAttemptAt ? countdown(d.nextAttemptAt - now) : 'soon';
      const error = errorLabel(d?.lastErrorCode ?? null, d?.lastHttpStatus ?? null);
      return {
        kind,
        label: `⟳ ${replay ? 'replay: ' : ''}retry ${when} · attempt ${attempt} · ${error}`,
        title: `${replay ? 'Retrying a replay' : 'Retrying'}: attempt ${attempt} ${when}. Last error: ${d?.lastError ?? 'unknown'}${others}.`,
        tone: 'warn',
      };
    }
    case 'failed': {
      const code = errorLabel(d?.lastErrorCode ?? null, d?.lastHttpStatus ?? null);
      // Refused by a Sluice's loop guard: the words say it, the tooltip how (the core's sentence).
      const error = isLoopRefusalError(d?.lastError) ? `loop guard (${code})` : code;
      const attempts = d ? ` after ${d.attemptCount} attempt${d.attemptCount === 1 ? '' : 's'}` : '';
      return {
        kind,
        label: `✗ ${replay ? 'replay ' : ''}failed: ${error}`,
        title: `${replay ? 'A replay failed' : 'Failed'}${attempts}: ${d?.lastError ?? 'unknown error'}${others}.`,
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
        title: `The ${replay ? 'replay' : 'delivery'} was cancelled${d ? ` after ${d.attemptCount} attempts` : ''}.`,
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
