/**
 * Per-URL circuit breakers (as Convoy keeps per endpoint): the policy of when a webhook URL is worth a
 * request. Closed, requests go; after FAILURE_THRESHOLD failures in a row the breaker opens and nothing
 * is sent there; once its cooldown is over it is half-open and lets exactly one request through, the
 * probe: a success closes it, a failure opens it again for twice as long (up to MAX_COOLDOWN_MS). So a
 * dead receiver costs one request per cooldown, not one attempt per message per round. Only failures
 * that say the receiver is not there or not coping count (network errors, timeouts, 5xx, 408, 429);
 * any other answer shows it alive. In memory: a restart starts closed. Mechanism: delivery-engine.ts.
 */
export const FAILURE_THRESHOLD = 5;
export const BASE_COOLDOWN_MS = 30_000;
export const MAX_COOLDOWN_MS = 10 * 60_000;

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerView {
  url: string;
  state: BreakerState;
  /** Failures in a row. */
  failures: number;
  /** When an open breaker lets its probe through. */
  probeAt: number | null;
  lastError: string | null;
}

interface Breaker {
  failures: number;
  /** Set while open: the probe may go from then. */
  probeAt: number | null;
  cooldownMs: number;
  probing: boolean;
  lastError: string | null;
}

export class CircuitBreakers {
  readonly #breakers = new Map<string, Breaker>();
  readonly #onChange: (url: string, state: BreakerState, moved: boolean) => void;

  /**
   * `onChange` hears each move between closed, open and half-open (`moved`), and, while closed, a
   * first failure and a recovery from failures (`moved` false: only what the inspector shows changed).
   */
  constructor(onChange: (url: string, state: BreakerState, moved: boolean) => void = () => {}) {
    this.#onChange = onChange;
  }

  state(url: string, now: number): BreakerState {
    const breaker = this.#breakers.get(url);
    if (!breaker || breaker.probeAt === null) return 'closed';
    return breaker.probing || now >= breaker.probeAt ? 'half-open' : 'open';
  }

  /** Whether a request to `url` could go now (without taking the probe): closed, or open with its probe due and not taken. */
  admissible(url: string, now: number): boolean {
    const breaker = this.#breakers.get(url);
    return !breaker || breaker.probeAt === null || (!breaker.probing && now >= breaker.probeAt);
  }

  /** Takes the right to send to `url` now: true when closed, or when this is the half-open breaker's probe. */
  admit(url: string, now: number): boolean {
    const breaker = this.#breakers.get(url);
    if (!breaker || breaker.probeAt === null) return true;
    if (breaker.probing || now < breaker.probeAt) return false;
    breaker.probing = true;
    this.#onChange(url, 'half-open', true);
    return true;
  }

  /** The earliest time one of these open URLs lets a probe through (null: none is waiting for one). */
  nextProbeAt(urls: readonly string[]): number | null {
    let at: number | null = null;
    for (const url of urls) {
      const breaker = this.#breakers.get(url);
      if (breaker?.probeAt != null && !breaker.probing) at = at === null ? breaker.probeAt : Math.min(at, breaker.probeAt);
    }
    return at;
  }

  /** A request to `url` ended: `failed` when it counts against the receiver (see above). */
  record(url: string, failed: boolean, error: string | null, now: number): void {
    let breaker = this.#breakers.get(url);
    if (!failed) {
      if (!breaker) return;
      const wasOpen = breaker.probeAt !== null;
      this.#breakers.delete(url);
      this.#onChange(url, 'closed', wasOpen);
      return;
    }
    if (!breaker) this.#breakers.set(url, (breaker = { failures: 0, probeAt: null, cooldownMs: BASE_COOLDOWN_MS, probing: false, lastError: null }));
    breaker.failures++;
    breaker.lastError = error;
    if (breaker.failures === 1) this.#onChange(url, 'closed', false);
    if (breaker.probing) {
      // The probe failed: open again, for longer.
      breaker.probing = false;
      breaker.cooldownMs = Math.min(breaker.cooldownMs * 2, MAX_COOLDOWN_MS);
      breaker.probeAt = now + breaker.cooldownMs;
      this.#onChange(url, 'open', true);
    } else if (breaker.probeAt === null && breaker.failures >= FAILURE_THRESHOLD) {
      breaker.probeAt = now + breaker.cooldownMs;
      this.#onChange(url, 'open', true);
    }
  }

  /** A probe that was admitted but not sent (the round had nothing to send): the next one may go. */
  release(url: string): void {
    const breaker = this.#breakers.get(url);
    if (breaker) breaker.probing = false;
  }

  /** Forgets a URL's breaker (its destination was edited: a new start). */
  reset(url: string): void {
    const breaker = this.#breakers.get(url);
    if (breaker && this.#breakers.delete(url)) this.#onChange(url, 'closed', breaker.probeAt !== null);
  }

  view(url: string, now: number): BreakerView {
    const breaker = this.#breakers.get(url);
    return {
      url,
      state: this.state(url, now),
      failures: breaker?.failures ?? 0,
      probeAt: breaker?.probeAt ?? null,
      lastError: breaker?.lastError ?? null,
    };
  }
}
