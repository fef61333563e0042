/** When to try a failed batch again: exponential backoff with jitter, or the endpoint's `Retry-After`. */

/** A `Retry-After` longer than this is cut to it, so one answer cannot park a batch for hours. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

export interface BackoffSettings {
  /** Delay ceiling of the first retry, in ms; doubles with each retry. */
  baseMs: number;
  /** Largest delay ceiling, in ms. */
  maxMs: number;
}

/**
 * The delay before retry number `retry` (1 for the first retry): the ceiling is
 * `baseMs · 2^(retry − 1)`, capped at `maxMs`, and the delay a random point in its upper half
 * ("equal jitter"), so that clients failing together do not retry in lockstep.
 */
export function backoffDelay(retry: number, settings: BackoffSettings, random: () => number = Math.random): number {
  const ceiling = Math.min(settings.maxMs, settings.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Statuses worth another attempt: 408 Request Timeout, 429 Too Many Requests and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * `Retry-After` as a delay in ms from `now`: delay-seconds (`"2"`, `"0.5"`) or an HTTP date.
 * Undefined when absent or unreadable; capped at {@link MAX_RETRY_AFTER_MS}.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  let ms: number;
  if (/^\d+(?:\.\d+)?$/.test(text)) {
    ms = Number(text) * 1000;
  } else if (/^[A-Za-z]{3}/.test(text)) {
    // HTTP dates only (RFC 9110); Date.parse alone would also read "-5" as a date.
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  } else {
    return undefined;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.round(ms)));
}
