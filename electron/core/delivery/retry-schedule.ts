/**
 * When to try a failed delivery again (DESIGN.md §5.4): about 5 s, 15 s, 1 min, 5 min, 15 min,
 * 30 min, then hourly, each ±20 % so that many failures do not retry in lockstep; `Retry-After`
 * when the receiver sends one; never past the deadline, 4 hours after the first attempt.
 */
export const RETRY_DELAYS_MS = [5_000, 15_000, 60_000, 300_000, 900_000, 1_800_000] as const;
export const HOURLY_MS = 3_600_000;
export const RETRY_WINDOW_MS = 4 * HOURLY_MS;
export const JITTER = 0.2;

export interface RetryInput {
  /** Rounds already made, including the one that just failed (1 after the first attempt). */
  rounds: number;
  firstAttemptAt: number;
  now: number;
  /** The receiver's Retry-After, in ms from now, when it sent one. */
  retryAfterMs?: number | undefined;
  /** A number in [0, 1); injected so tests are exact. */
  random?: () => number;
}

/** The time of the next attempt, or null when the 4-hour window is over (the delivery fails). */
export function nextAttemptAt(input: RetryInput): number | null {
  const deadline = input.firstAttemptAt + RETRY_WINDOW_MS;
  if (input.now >= deadline) return null;
  let delay: number;
  if (input.retryAfterMs !== undefined) {
    delay = Math.max(0, input.retryAfterMs);
  } else {
    const base = RETRY_DELAYS_MS[input.rounds - 1] ?? HOURLY_MS;
    const random = input.random ?? Math.random;
    delay = base * (1 + (random() * 2 - 1) * JITTER);
  }
  // The last attempt is made at the deadline itself rather than skipped.
  return Math.min(Math.round(input.now + delay), deadline);
}

/** Retry-After as ms from `now`: either delay-seconds or an HTTP date. Undefined when absent or invalid. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates only (RFC 9110: IMF-fixdate, RFC 850, asctime — all GMT); Date.parse alone would
  // also read "1.5" or "-5" as dates and turn them into "retry now".
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(/GMT$/i.test(text) ? text : `${text} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
