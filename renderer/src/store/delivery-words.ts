/**
 * How one delivery's state is said wherever the inspector shows it (the stream's rows, the detail's
 * Attempts tab, replay cards, delete notifications): words that cannot be misread. A retrying delivery
 * says which attempt comes next and when ("next: attempt 3 in 12 s"); a delivery that failed for good
 * says why it will not be tried again ("not retried (4xx)", "gave up after 4 h of retries") and never
 * shows a time it gives up at; a replay is named apart from the others ("myapp · replay 2 · 14:03:12").
 * Pure, tested in Node.
 */
import type { DeliveryErrorCode, DeliverySummary, DeliveryView, DestinationView } from '../../../shared/contract.ts';
import { isLoopRefusalError } from '../lib/loop-refusal.ts';
import { plural } from '../lib/format.ts';

/** "in 12 s", "in 4 min 05 s", "in 1 h 02 min", or "now". */
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

const REASONS: Readonly<Record<number, string>> = {
  301: 'Moved Permanently',
  302: 'Found',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** "400 Bad Request"; the number alone for a status without a common name. */
export function httpStatusText(status: number): string {
  const reason = REASONS[status];
  return reason ? `${status} ${reason}` : String(status);
}

/** Where a delivery stands — what a change, a summary and a progress entry all carry — as the words below read it. */
export type DeliveryState = Pick<DeliverySummary, 'status' | 'attemptCount' | 'nextAttemptAt' | 'lastError' | 'lastErrorCode' | 'lastHttpStatus'>;

type Failure = Pick<DeliveryState, 'lastError' | 'lastErrorCode' | 'lastHttpStatus' | 'attemptCount'>;

/** The last attempt's failure in words: "400 Bad Request", "timeout", "loop guard (409)". */
export function failureName(d: Failure): string {
  if (isLoopRefusalError(d.lastError)) return `loop guard (${d.lastHttpStatus ?? 409})`;
  switch (d.lastErrorCode) {
    case 'http':
      return d.lastHttpStatus === null ? 'HTTP error' : httpStatusText(d.lastHttpStatus);
    case 'timeout':
      return 'timeout';
    case 'tls':
      return 'TLS certificate not trusted';
    case 'connect':
      return 'could not connect';
    case 'reset':
      return 'connection reset';
    default:
      return d.attemptCount === 0 ? 'not sent' : 'error';
  }
}

/**
 * Why a failed delivery is not tried again: its answer was final (a 4xx other than 408 and 429, a
 * redirect, an untrusted certificate, a loop guard's refusal), or its retries ran out (the 4-hour
 * window, or the round cap). The core's sentence names the cap when that was it.
 */
export function finalReason(d: Failure): string {
  if (d.attemptCount === 0) return 'never sent';
  if (isLoopRefusalError(d.lastError)) return 'not retried';
  const rounds = /gave up after (\d+) rounds/.exec(d.lastError ?? '');
  if (rounds) return `gave up after ${rounds[1]} attempts`;
  if (d.lastErrorCode === null) return 'not retried';
  if (d.lastErrorCode === 'tls') return 'not retried (TLS)';
  if (d.lastErrorCode === 'http' && d.lastHttpStatus !== null) {
    const s = d.lastHttpStatus;
    if (s >= 300 && s < 400) return 'not retried (redirect)';
    if (s >= 400 && s < 500 && s !== 408 && s !== 429) return 'not retried (4xx)';
  }
  return 'gave up after 4 h of retries';
}

/** A failed delivery, for good: "failed: 400 Bad Request — not retried (4xx)". */
export function failedWords(d: Failure): string {
  return `failed: ${failureName(d)} — ${finalReason(d)}`;
}

/** A retrying delivery's next attempt: "attempt 3 in 12 s" (`now` for the countdown). */
export function nextAttemptWords(d: Pick<DeliveryState, 'attemptCount' | 'nextAttemptAt'>, now: number): string {
  return `attempt ${d.attemptCount + 1} ${d.nextAttemptAt === null ? 'soon' : countdown(d.nextAttemptAt - now)}`;
}

/** "1 attempt", "3 attempts". */
export function attemptsWord(n: number): string {
  return plural(n, 'attempt');
}

/** The delivery's state in one line, for the Attempts tab and the replay cards. */
export function stateWords(d: DeliveryState & { skipReason?: string | null }, now: number): string {
  switch (d.status) {
    case 'delivered':
      return d.attemptCount > 1 ? `delivered on attempt ${d.attemptCount}` : 'delivered';
    case 'failed':
      return failedWords(d);
    case 'retrying':
      return `retrying — ${attemptsWord(d.attemptCount)} failed, the last: ${failureName(d)}; next: ${nextAttemptWords(d, now)}`;
    case 'pending':
      return d.attemptCount === 0 ? 'queued: waiting for its first attempt' : `queued: next: attempt ${d.attemptCount + 1}`;
    case 'cancelled':
      return `cancelled after ${attemptsWord(d.attemptCount)}`;
    case 'skipped':
      return `skipped${d.skipReason ? `: ${d.skipReason}` : ''}`;
    default:
      return d.status;
  }
}

type Named = Pick<DeliveryView, 'id' | 'destinationId' | 'trigger' | 'targetUrl' | 'createdAt'>;

const TRIGGER_WORDS: Readonly<Record<string, string>> = { audience: 'audience sync', deletion: 'delete notification', test: 'test event' };

/**
 * A delivery's name among a message's deliveries: its destination's name; a replay adds which replay
 * to that destination it is and when it was made, and the URL it was sent to when one was typed
 * ("myapp · replay 2 · 14:03:12 → http://localhost:3000/hook"), so no two replays read the same.
 */
export function deliveryName(d: Named, all: readonly Named[], destinations: readonly Pick<DestinationView, 'id' | 'name'>[]): string {
  const name = destinations.find((x) => x.id === d.destinationId)?.name ?? `destination ${d.destinationId}`;
  if (d.trigger === 'replay') {
    const n = all.filter((x) => x.trigger === 'replay' && x.destinationId === d.destinationId && x.id <= d.id).length || 1;
    return `${name} · replay ${n} · ${wallClock(d.createdAt)}${d.targetUrl ? ` → ${d.targetUrl}` : ''}`;
  }
  const trigger = TRIGGER_WORDS[d.trigger];
  return trigger ? `${name} (${trigger})` : name;
}

/** "14:03:12", local time. */
function wallClock(at: number): string {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
