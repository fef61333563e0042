/**
 * When to try a failed delivery again (DESIGN.md §5.4): about 5 s, 15 s, 1 min, 5 min, 15 min,
 * 30 min, then hourly, each ±20 % so that many failures do not retry in lockstep; never past the
 * deadline, 4 hours after the first attempt. A receiver's `Retry-After` can only lengthen a wait,
 * never shorten it: `Retry-After: 0` (or a date in the past) once made a retry loop of ~2,700
 * requests/s. The schedule makes about 11 rounds in 4 hours; MAX_ROUNDS bounds them whatever happens.
 */
export const RETRY_DELAYS_MS = [5_000, 15_000, 60_000, 300_000, 900_000, 1_800_000] as const;
export const HOURLY_MS = 3_600_000;
export const RETRY_WINDOW_MS = 4 * HOURLY_MS;
export const JITTER = 0.2;
/** Rounds one delivery may make (each posts to every webhook of its destination once); then it fails. */
export const MAX_ROUNDS = 12;

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

/**
 * The time of the next attempt, or null when the 4-hour window is over or MAX_ROUNDS were made (the
 * delivery fails). The wait is the schedule's (with jitter), or the receiver's Retry-After when longer.
 */
export function nextAttemptAt(input: RetryInput): number | null {
  const deadline = input.firstAttemptAt + RETRY_WINDOW_MS;
  if (input.now >= deadline || input.rounds >= MAX_ROUNDS) return null;
  const base = RETRY_DELAYS_MS[input.rounds - 1] ?? HOURLY_MS;
  const random = input.random ?? Math.random;
  const scheduled = base * (1 + (random() * 2 - 1) * JITTER);
  const delay = input.retryAfterMs !== undefined && input.retryAfterMs > scheduled ? input.retryAfterMs : scheduled;
  // The last attempt is made at the deadline itself rather than skipped.
  return Math.min(Math.round(input.now + delay), deadline);
}

/** Why a retryable delivery stopped: the window or the round cap (see nextAttemptAt). */
export function gaveUpReason(rounds: number): string {
  return rounds >= MAX_ROUNDS ? `gave up after ${MAX_ROUNDS} rounds` : 'gave up: the 4-hour retry window is over';
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
