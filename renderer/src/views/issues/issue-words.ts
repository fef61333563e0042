/**
 * Issues in words (IssuesView.tsx, RetrySearchButton.tsx): what went wrong, a group's counts, a bulk
 * retry's progress. Pure (no React, no DOM).
 */
import type { IssueErrorKind, IssueRetryProgress, IssueView } from '../../../../shared/contract.ts';
import { formatCount, plural } from '../../lib/format.ts';

const KIND_WORDS: Record<IssueErrorKind, string> = {
  timeout: 'Timed out',
  connection_refused: 'Connection refused',
  connection_reset: 'Connection reset',
  dns: 'Host name not found',
  tls: 'TLS or certificate',
  http_4xx: 'Refused (4xx)',
  http_5xx: 'Server error (5xx)',
  transform: 'Transform failed',
  too_large: 'Body too large',
  other: 'Other error',
};

/** "Server error (5xx)", "Timed out", … */
export function kindWords(kind: IssueErrorKind): string {
  return KIND_WORDS[kind] ?? kind;
}

/** "HTTP 503", or "no answer" when nothing answered. */
export function statusWords(status: number | null): string {
  return status === null ? 'no answer' : `HTTP ${status}`;
}

/** "3 failed · 2 retrying · 12 seen", or "closed · 12 seen". */
export function countWords(issue: IssueView): string {
  const seen = `${formatCount(issue.seen)} seen`;
  if (issue.open === 0) return `closed · ${seen}`;
  const parts: string[] = [];
  if (issue.failed > 0) parts.push(`${formatCount(issue.failed)} failed`);
  if (issue.retrying > 0) parts.push(`${formatCount(issue.retrying)} retrying`);
  return [...parts, seen].join(' · ');
}

/** A retry's progress in a sentence: "Retrying: 120 of 500 looked at, 118 sent again, 2 no longer failing". */
export function progressWords(p: IssueRetryProgress): string {
  const again = `${formatCount(p.retried)} sent again`;
  const skipped = p.skipped > 0 ? `, ${formatCount(p.skipped)} no longer failing or replayed since` : '';
  if (p.state === 'counting') return `Counting the deliveries to retry: ${formatCount(p.total)} so far.`;
  if (p.state === 'running') return `Retrying: ${formatCount(p.done)} of ${plural(p.total, 'delivery', 'deliveries')} looked at, ${again}${skipped}.`;
  if (p.state === 'finished') {
    return p.total === 0 ? 'Nothing to retry: no failed or retrying delivery.' : `Retried ${plural(p.total, 'delivery', 'deliveries')}: ${again}${skipped}. Their outcome shows as they are sent.`;
  }
  if (p.state === 'cancelled') return `Stopped after ${formatCount(p.done)} of ${formatCount(p.total)}: ${again}${skipped}; the rest left as they were.`;
  return `The retry failed after ${formatCount(p.done)} of ${formatCount(p.total)}: ${p.error ?? 'no reason given'}.`;
}

/** The progress bar's fraction (0–1); a job with nothing to do is whole. */
export function progressFraction(p: IssueRetryProgress): number {
  return p.total === 0 ? 1 : Math.min(1, p.done / p.total);
}
