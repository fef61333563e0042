// What went wrong with a failed or retrying delivery, as Issues group it (shared/channels/issues.ts):
// its key — the URL, the HTTP status (0: none) and the error kind — from what its last round recorded.
// One classification for the writer (issue-writes.ts, as a round's result is recorded) and for the
// backfill of migration 24 (the SQL function sluice_issue_kind, store/sql-functions.ts).
import type { IssueErrorKind } from '../../../shared/channels/issues.ts';
import type { AttemptRecord, DeliveryResult } from './delivery-types.ts';

/** What a round recorded that says what went wrong: its last failed attempt's, or the round's own error when it sent nothing. */
export interface IssueFacts {
  /** The attempt's error code (attempts.error_code), null when the round sent nothing. */
  errorCode: string | null;
  /** The HTTP status answered (attempts.response_status). */
  status: number | null;
  /** The attempt's error sentence, or the round's (deliveries.last_error) when it sent nothing. */
  message: string | null;
  /** The round ran the destination's transform and sent nothing because of it (deliveries.transform_run). */
  transform: boolean;
}

/** The group a failed or retrying delivery joins: where it went, the status it got (0: none), the kind, and its error. */
export interface IssueKey {
  url: string;
  status: number;
  kind: IssueErrorKind;
  error: string;
  /** When the failed attempt started (the delivery engine's clock); null when the round sent nothing. */
  at: number | null;
}

/**
 * The error kind (webhook-sender.ts classifyError writes the codes and sentences read here): a connect
 * error whose sentence names ENOTFOUND or EAI_AGAIN is `dns`, one that timed out connecting `timeout`,
 * the others `connection_refused`; an HTTP answer is `too_large` (413), `http_4xx` or `http_5xx`
 * (a 3xx redirect, which Sluice does not follow, is `other`). A round that sent nothing failed by its
 * transform (`transform`), by a body too large to send (`too_large`), or otherwise (`other`: e.g. the
 * message was purged).
 */
export function issueKind(facts: IssueFacts): IssueErrorKind {
  const message = facts.message ?? '';
  switch (facts.errorCode) {
    case 'timeout':
      return 'timeout';
    case 'reset':
      return 'connection_reset';
    case 'tls':
      return 'tls';
    case 'connect':
      if (/\b(ENOTFOUND|EAI_AGAIN)\b/.test(message)) return 'dns';
      if (/\bUND_ERR_CONNECT_TIMEOUT\b/.test(message)) return 'timeout';
      return 'connection_refused';
    case 'http': {
      const status = facts.status ?? 0;
      if (status === 413) return 'too_large';
      if (status >= 500) return 'http_5xx';
      if (status >= 400) return 'http_4xx';
      return 'other';
    }
    default:
      if (facts.transform) return 'transform';
      if (/too large|too big/i.test(message)) return 'too_large';
      return 'other';
  }
}

/**
 * The group of a round's result that left its delivery retrying or failed: its last attempt that did
 * not succeed (a round posts to each of its destination's webhooks; a forwarded batch's attempt has its
 * request's URL and answer, and its own error when the API refused this message alone), else — the
 * round sent nothing — its own error with no URL and no status.
 */
export function issueKeyOf(result: DeliveryResult): IssueKey {
  let failed: AttemptRecord | undefined;
  for (let i = result.attempts.length - 1; i >= 0 && !failed; i--) if (result.attempts[i]!.outcome !== 'success') failed = result.attempts[i];
  if (!failed) {
    const message = result.lastError ?? 'failed without an error recorded';
    return { url: '', status: 0, kind: issueKind({ errorCode: null, status: null, message, transform: Boolean(result.transformRun) }), error: message, at: null };
  }
  const facts = { errorCode: failed.errorCode, status: failed.responseStatus, message: failed.errorMessage, transform: false };
  return {
    url: failed.url,
    status: failed.errorCode === 'http' ? (failed.responseStatus ?? 0) : 0,
    kind: issueKind(facts),
    error: failed.errorMessage ?? result.lastError ?? `the receiver answered ${failed.responseStatus}`,
    at: failed.startedAt,
  };
}
