/**
 * What the Replay tab sends and says for a destination, without React: a webhooks destination's body
 * in its body shape, signed by its scheme; a tracking-api destination's message as it is forwarded
 * (the 'forward' shape: an edited replay body goes upstream as it is, so it must be a message), to its
 * Tracking API, unsigned.
 */
import type { DeliveryView, DestinationView } from '../../../../shared/contract.ts';
import { webhookBody, type BodyShape, type WebhookBody } from '../../../../shared/webhook-body.ts';

type Destination = Pick<DestinationView, 'name' | 'kind' | 'options' | 'signing' | 'hasSecret' | 'maskedSigningSecrets' | 'webhooks' | 'trackingApi'>;

/** What a destination does to a message before it is sent: its filters and its transform. */
type Shaping = Pick<DestinationView, 'name' | 'filters' | 'transform'>;

/** The body shape a replay through the destination is built in. */
export function replayShape(destination: Pick<DestinationView, 'kind' | 'options'>): BodyShape {
  return isForward(destination) ? 'forward' : destination.options.bodyShape;
}

/** The body a replay of `message` through the destination sends (before any edit). */
export function replayBody(message: Record<string, unknown>, destination: Pick<DestinationView, 'kind' | 'options'>): WebhookBody {
  return webhookBody(message, replayShape(destination));
}

/** How the replay is signed (or why not), in a sentence; `edited`: the body was changed, so it is signed anew. */
export function signingHint(destination: Destination, edited: boolean): string {
  const { name } = destination;
  if (isForward(destination)) {
    return `Forwarded as it is to ${name}’s Tracking API with its write key (Basic auth); a forward is not signed${edited ? ', so the edited body must still be a whole message' : ''}.`;
  }
  const x = destination.signing !== 'standard' && destination.hasSecret;
  const standard = destination.signing !== 'segment' && destination.maskedSigningSecrets.length > 0;
  const resigned = edited ? ', so the edited body is re-signed' : '';
  if (x && standard) return `The core signs it with ${name}’s secrets (X-Signature and webhook-signature)${resigned}.`;
  if (x) return `The core signs it with ${name}’s shared secret (X-Signature)${resigned}.`;
  if (standard) {
    const secrets = destination.maskedSigningSecrets.length > 1 ? 'Standard Webhooks secrets' : 'Standard Webhooks secret';
    return `The core signs it with ${name}’s ${secrets} (webhook-id, webhook-timestamp, webhook-signature)${resigned}.`;
  }
  return destination.signing === 'segment'
    ? `${name} has no shared secret: it is sent without X-Signature.`
    : `${name} has no Standard Webhooks secret: it is sent unsigned.`;
}

/** "Send to" the destination's own receivers: its label and the URL(s) it names. */
export function ownTarget(destination: Destination): { label: string; urls: string } {
  if (isForward(destination)) return { label: `${destination.name}’s Tracking API`, urls: destination.trackingApi?.batchUrl ?? 'no API URL' };
  return { label: `${destination.name}’s webhooks`, urls: destination.webhooks.map((w) => w.url).join(', ') || 'no webhook URL' };
}

/** Where a delivery went: its typed URL, else its destination's webhooks or Tracking API batch URL; '—' when none is known. */
export function deliveryTarget(delivery: Pick<DeliveryView, 'targetUrl'>, destination: Destination | undefined): string {
  if (delivery.targetUrl) return delivery.targetUrl;
  if (!destination) return '—';
  if (isForward(destination)) return destination.trackingApi?.batchUrl ?? '—';
  return destination.webhooks.map((w) => w.url).join(', ') || '—';
}

/** A tracking-api destination's replays are forwards (the stream's request-shown.ts asks the same; replay/ stays below stream/). */
function isForward(destination: Pick<DestinationView, 'kind'> | undefined): boolean {
  return destination?.kind === 'tracking-api';
}

/**
 * What the body shown is, beside its heading: the destination's body for the message, which is what it
 * sends unless its filters or transform change it — an unedited replay runs them (until 2026-12-01 this
 * said "exactly what it sends" either way).
 */
export function bodyCaption(destination: Shaping | undefined): string {
  if (!destination) return '— what the destination sends for this message';
  const shaped = shapedBy(destination);
  if (shaped === null) return `— exactly what ${destination.name} sends for this message`;
  return `— ${destination.name}’s body for this message before its ${shaped}, which a replay of it as it is runs`;
}

/**
 * What happens to an edited body: sent as edited — the destination's filters do not run on it (a drop or
 * a field they would take out is sent), its transform only when asked (`transform`).
 */
export function editedNote(destination: Shaping | undefined, transform: boolean): string {
  if (!destination) return 'The edited body is sent instead of the mapped one.';
  const filters = destination.filters.length > 0 ? ` ${destination.name}’s filters do not run on it: what they would drop or take out is sent.` : '';
  if (!destination.transform) return `The edited body is sent instead of the mapped one.${filters}`;
  return transform
    ? `The edited body goes through ${destination.name}’s transform, and what it returns is sent.${filters}`
    : `The edited body is sent as it is, past ${destination.name}’s transform.${filters}`;
}

function shapedBy(destination: Shaping): string | null {
  const filters = destination.filters.length > 0;
  if (filters && destination.transform) return 'filters and transform';
  if (filters) return destination.filters.length === 1 ? 'filter' : 'filters';
  return destination.transform ? 'transform' : null;
}
