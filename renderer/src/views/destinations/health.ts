/**
 * A receiver's health (a webhook URL's, or a Tracking API's batch URL) in words, from the destination
 * view's `health` (the engine's circuit breaker and 410 Gone): what the list and the editor show beside
 * the URL. Without React, so it can be tested in Node.
 */
import type { DestinationView, WebhookHealth } from '../../../../shared/contract.ts';
import { absoluteTime, plural } from '../../lib/format.ts';
import { countdown } from '../../store/outcome.ts';

export interface HealthWords {
  tone: 'bad' | 'warn';
  /** The short line: "receiver down — next probe in 25 s". */
  text: string;
  /** What else there is to know: the failures and the last error, or the 410's reason. */
  detail: string;
  /** The URL answered 410 Gone: it is sent nothing until re-enabled. */
  gone: boolean;
}

/** The line for one URL at `now`; null while its breaker is closed with no failure (nothing to say). */
export function healthWords(health: WebhookHealth, now: number): HealthWords | null {
  if (health.gone) {
    return {
      tone: 'bad',
      text: 'disabled: answered 410 Gone',
      detail: `${health.gone.reason} (since ${absoluteTime(health.gone.at)})`,
      gone: true,
    };
  }
  const failures = `${plural(health.failures, 'failure')} in a row`;
  const detail = health.lastError ? `${failures}; the last: ${health.lastError}` : failures;
  if (health.breaker === 'open') {
    const next = health.probeAt === null ? 'soon' : countdown(health.probeAt - now);
    return { tone: 'bad', text: `receiver down — next probe ${next === 'now' ? 'due now' : next}`, detail, gone: false };
  }
  if (health.breaker === 'half-open') return { tone: 'warn', text: 'probing — one request tests the receiver', detail, gone: false };
  if (health.failures > 0) return { tone: 'warn', text: failures, detail, gone: false };
  return null;
}

/** A destination's health for one URL (as the editor's cards and the list match them). */
export function healthOf(destination: DestinationView | null | undefined, url: string): WebhookHealth | undefined {
  return destination?.health?.find((h) => h.url === url);
}

/** "example.com/hook": a URL as short as a list row can say it. */
export function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return url;
  }
}

/** What the list says a destination sends to: "forwards to api.segment.io", one webhook's host, or "3 webhooks". */
export function targetOf(d: Pick<DestinationView, 'kind' | 'trackingApi' | 'webhooks'>): string {
  if (d.kind === 'tracking-api' && d.trackingApi) return `forwards to ${hostOf(d.trackingApi.url)}`;
  return d.webhooks.length === 1 ? hostOf(d.webhooks[0]!.url) : `${d.webhooks.length} webhooks`;
}
