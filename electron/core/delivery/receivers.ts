import type { EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import type { Destination, DestinationsRepo } from '../store/destinations-repo.ts';
import { CircuitBreakers, type BreakerView } from './circuit-breaker.ts';
import { kindOf } from './kinds/index.ts';
import { GONE_DISABLES, type SendResult } from './webhook-sender.ts';

/**
 * Which receivers take a request now, for the delivery engine: each URL's circuit breaker
 * (circuit-breaker.ts, the policy) and the webhooks that answered 410 Gone (kept with their
 * destination), fed by every answer, and announced to the inspector when they change.
 */
export class Receivers {
  readonly #destinations: Pick<DestinationsRepo, 'list' | 'byId' | 'markGone'>;
  readonly #bus: EventBus;
  readonly #clock: Clock;
  readonly #breakers: CircuitBreakers;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  /** `onClosed`: a breaker closed, so what waited for its receiver may go (the engine kicks). */
  constructor(options: { destinations: Pick<DestinationsRepo, 'list' | 'byId' | 'markGone'>; bus: EventBus; clock: Clock; onClosed: () => void }) {
    this.#destinations = options.destinations;
    this.#bus = options.bus;
    this.#clock = options.clock;
    this.#breakers = new CircuitBreakers((_url, state, moved) => {
      // The inspector shows each destination's breakers: it reads the list again — at once when a
      // breaker opens or closes, at most once a second for a count of failures (a flapping receiver).
      if (!moved) return this.#countChanged();
      this.#bus.emit('settings.changed', null);
      if (state === 'closed') options.onClosed();
    });
  }

  /** A URL's circuit breaker, as the inspector shows it. */
  view(url: string): BreakerView {
    return this.#breakers.view(url, this.#clock.now());
  }

  /**
   * When the destination's deliveries may go again, if none may now: undefined when one of its URLs
   * takes a request; the soonest probe of its open breakers; null when there is no time to wait for
   * (every URL answered 410 Gone, or a probe is under way: its end kicks the engine).
   */
  blockedUntil(destination: Destination, now: number): number | null | undefined {
    const urls = liveUrls(destination);
    if (urls.length === 0) return null;
    if (urls.some((url) => this.#breakers.admissible(url, now))) return undefined;
    return this.#breakers.nextProbeAt(urls);
  }

  /** Takes the right to send to these URLs now (a half-open breaker's probe included); those it may. */
  admit(urls: readonly string[], now: number): Set<string> {
    return new Set(urls.filter((url) => this.#breakers.admit(url, now)));
  }

  /** The URLs a destination's rounds post to (its kind's) that have not answered 410 Gone. */
  liveUrls(destination: Destination): string[] {
    return liveUrls(destination);
  }

  /** What a request's answer says about its receiver: its URL's breaker, and 410 Gone. */
  heard(destinationId: number, url: string, result: SendResult): void {
    const now = this.#clock.now();
    // Worth another round (network errors, timeouts, 5xx, 408, 429) is what counts against a receiver.
    this.#breakers.record(url, !result.ok && result.retryable, result.errorMessage, now);
    if (result.status === 410 && this.#destinations.markGone(destinationId, url, GONE_DISABLES, now)) {
      this.#bus.emit('settings.changed', null);
    }
  }

  /** Gives back the probes of admitted URLs that got no request (see CircuitBreakers.release). */
  releaseUnsent(admitted: ReadonlySet<string> | undefined, attempts: readonly { url: string }[] | undefined): void {
    if (!admitted) return;
    for (const url of admitted) if (!attempts?.some((attempt) => attempt.url === url)) this.#breakers.release(url);
  }

  /** Closes the breakers of these destinations' URLs (all destinations' when none are named). */
  reset(destinationIds?: readonly number[]): void {
    const destinations = destinationIds ? destinationIds.map((id) => this.#destinations.byId(id)) : this.#destinations.list();
    for (const destination of destinations) for (const url of destination ? kindOf(destination).urls(destination) : []) this.#breakers.reset(url);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  /** Announces a change of a receiver's failure count, at most once a second. */
  #countChanged(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      if (!this.#closed) this.#bus.emit('settings.changed', null);
    }, 1_000).unref();
  }
}

/** The URLs a destination's rounds post to (its kind's: its webhooks, its API's batch URL) that have not answered 410 Gone. */
function liveUrls(destination: Destination): string[] {
  return kindOf(destination).urls(destination).filter((url) => !destination.gone?.[url]);
}

/**
 * Whether every URL the destination posts to answered 410 Gone: its deliveries (a replay's, a test
 * event's) would wait until one is re-enabled or the destination is edited.
 */
export function everyUrlGone(destination: Destination): boolean {
  const urls = kindOf(destination).urls(destination);
  return urls.length > 0 && urls.every((url) => destination.gone?.[url]);
}
