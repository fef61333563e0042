/**
 * The contract's destination channels (`destinations.*`): the list with each receiver's health, saving
 * and deleting one, its secrets on request, a test event, a webhook re-enabled after 410 Gone.
 * Composed into shared/contract.ts.
 */
import { z } from 'zod';
import {
  checkDestination,
  destinationFieldsSchema,
  type DestinationKind,
  type DestinationOptions,
  type SigningScheme,
  type TrackingApiConfig,
  type WebhookConfig,
} from '../settings.ts';
import type { DestinationFilter, DestinationTransform } from '../destination-filters.ts';
import { recordId as id } from './record-id.ts';

export const destinationRequestSchemas = {
  'destinations.list': z.strictObject({}),
  /**
   * With `id`: edits that destination, whose name may change (its deliveries stay). Without: creates
   * one. A name another destination has is refused (`name_taken`, an issue on `name`).
   */
  'destinations.save': destinationFieldsSchema.extend({ id: id.optional() }).superRefine(checkDestination),
  /**
   * Deletes a destination: its pending and retrying deliveries are cancelled; delivered and failed ones
   * and their attempts stay readable. `dryRun` only counts the deliveries it would cancel.
   */
  'destinations.delete': z.strictObject({ id, dryRun: z.boolean().default(false) }),
  'destinations.revealSecret': z.strictObject({ id }),
  /** One signed test track message to this destination's webhooks, through the delivery engine; watch its `deliveries.changed`. */
  'destinations.sendTest': z.strictObject({ id }),
  /** Sends to a webhook URL that answered 410 Gone again. */
  'destinations.reenableUrl': z.strictObject({ id, url: z.string().min(1).max(4096) }),
} as const;

export interface DestinationResponses {
  'destinations.list': { destinations: DestinationView[] };
  'destinations.save': DestinationView;
  /** The stored credentials: the shared secret, the Standard Webhooks secrets, a tracking-api destination's write key. */
  'destinations.revealSecret': { secret: string | null; signingSecrets: string[]; writeKey: string | null };
  /** `deleted` is false for a dry run; `cancelledDeliveries`: cancelled, or that a deletion would cancel. */
  'destinations.delete': { deleted: boolean; cancelledDeliveries: number };
  /** The test delivery's id and the body it sends. */
  'destinations.sendTest': { deliveryId: number; body: string };
  'destinations.reenableUrl': DestinationView;
}

/** A destination as the UI sees it: the secret masked unless revealed on request. */
export interface DestinationView {
  id: number;
  name: string;
  enabled: boolean;
  sourceIds: number[];
  webhooks: WebhookConfig[];
  hasSecret: boolean;
  /** "••••••••" when there is one: no character of it (Reveal reads it). */
  maskedSecret: string | null;
  signing: SigningScheme;
  /** The Standard Webhooks secrets, masked the same way ("••••••••" each, in order); empty when there are none. */
  maskedSigningSecrets: string[];
  options: DestinationOptions;
  /** Webhooks (the seed's signed POSTs), or a Tracking API that messages are forwarded to unchanged. */
  kind: DestinationKind;
  /** A tracking-api destination's API, its write key masked; null for a webhooks destination. */
  trackingApi: TrackingApiView | null;
  /**
   * Each webhook's receiver as the engine sees it, in the order of `webhooks`; for a tracking-api
   * destination, its one URL (`trackingApi.batchUrl`).
   */
  health: WebhookHealth[];
  /** What it gets of each message, in order (shared/destination-filters.ts); empty: everything. */
  filters: DestinationFilter[];
  /** The user's function run on each message (its file absolute), or null. */
  transform: DestinationTransform | null;
  /**
   * The config file that declares it (applied by name at every start), or null: such a destination is
   * edited in the inspector until the next start, but not renamed (it would come back beside the copy).
   */
  fromConfig?: string | null;
}

/** Where a tracking-api destination forwards, as the UI sees it: the write key masked like the shared secret. */
export type TrackingApiView = Omit<TrackingApiConfig, 'writeKey'> & {
  /** Where its requests go: `<url>/v1/batch`, or `url` itself when it ends so. */
  batchUrl: string;
  /** "••••••••": no character of it (Reveal reads it). */
  maskedWriteKey: string;
};

/**
 * A webhook URL's state: its circuit breaker (closed: requests go; open: none until `probeAt`;
 * half-open: one probe under way) and whether it answered 410 Gone (nothing is sent there until it is
 * re-enabled or the destination is edited).
 */
export interface WebhookHealth {
  url: string;
  breaker: 'closed' | 'open' | 'half-open';
  /** Failures in a row (network errors, timeouts, 5xx, 408, 429). */
  failures: number;
  probeAt: number | null;
  lastError: string | null;
  gone: { at: number; reason: string } | null;
}
