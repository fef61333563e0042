import type { EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import type { Destination, DestinationsRepo } from '../store/destinations-repo.ts';
import { CircuitBreakers, type BreakerView } from './circuit-breaker.ts';
import { forwardUrl } from './kinds/tracking-api.ts';
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
    const urls = urlsOf(destination);
    if (urls.length === 0) return null;
    if (urls.some((url) => this.#breakers.admissible(url, now))) return undefined;
    return this.#breakers.nextProbeAt(urls);
  }

  /** Takes the right to send to these URLs now (a half-open breaker's probe included); those it may. */
  admit(urls: readonly string[], now: number): Set<string> {
    return new Set(urls.filter((url) => this.#breakers.admit(url, now)));
  }

  /** A destination's webhook URLs that have not answered 410 Gone. */
  liveWebhooks(destination: Destination): string[] {
    return liveWebhooks(destination);
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
    for (const destination of destinations) {
      if (destination?.kind === 'tracking-api') this.#breakers.reset(forwardUrl(destination.trackingApi!.url));
      for (const webhook of destination?.webhooks ?? []) this.#breakers.reset(webhook.url);
    }
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

/** The URLs a destination's rounds post to: its API's batch URL, or its webhooks that have not gone. */
function urlsOf(destination: Destination): string[] {
  return destination.kind === 'tracking-api' ? [forwardUrl(destination.trackingApi!.url)] : liveWebhooks(destination);
}

/** A destination's webhook URLs that have not answered 410 Gone. */
function liveWebhooks(destination: Destination): string[] {
  return destination.webhooks.map((w) => w.url).filter((url) => !destination.gone?.[url]);
}
