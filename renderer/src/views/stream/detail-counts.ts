/**
 * The numbers on the message detail's tabs: each counts what its tab lists. Attempts lists the
 * attempts of the delivery chosen above the tabs, so its number is that delivery's, not a sum over
 * the message's deliveries; Replay lists every replay of the message. The Webhook request tab shows
 * one request (the chosen delivery's) and has no number. Pure, tested in Node.
 */
import type { DeliveryView } from '../../../../shared/contract.ts';
import { plural } from '../../lib/format.ts';

export interface TabCount {
  /** The badge ('' for none). */
  badge: string;
  /** The badge's tooltip: what the number counts. */
  title: string;
}

export function attemptsCount(shown: Pick<DeliveryView, 'attempts'> | null, deliveries: number): TabCount {
  const n = shown?.attempts.length ?? 0;
  const of = deliveries > 1 ? ' shown above' : '';
  return { badge: n > 0 ? String(n) : '', title: `${plural(n, 'attempt')} of the delivery${of}` };
}

export function replaysCount(deliveries: readonly Pick<DeliveryView, 'trigger'>[]): TabCount {
  const n = deliveries.filter((d) => d.trigger === 'replay').length;
  return { badge: n > 0 ? String(n) : '', title: `${plural(n, 'replay')} of this message, to any destination` };
}
