/**
 * The contract's channel of the delivery overview (`overview.deliveries`): per destination, for a
 * window of time, what became of the messages routed to it — received, skipped (by a tracking plan,
 * its filters, its transform, the message's integrations; with each reason's count), attempted, and
 * delivered, retrying, failed (and pending, cancelled). Each step is a `delivery:"name:step"` query
 * (shared/message-query.ts deliveryStepQuery) that lists exactly its messages in the stream. Counted
 * off the core's thread (store/delivery-funnel.ts in count-worker.ts). Composed into shared/contract.ts.
 */
import { z } from 'zod';
import type { SkipKind } from '../message-query.ts';

/** The windows the overview counts over (received within the last …), and `all`. */
export const OVERVIEW_WINDOWS = { '10m': 600_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 604_800_000, all: null } as const;
export type OverviewWindow = keyof typeof OVERVIEW_WINDOWS;
/** The most skip reasons listed per destination (the most frequent); the kinds' counts hold them all. */
export const OVERVIEW_REASONS = 20;

/** One destination's funnel: counts of its automatic deliveries (one per message its sources routed to it) made in the window. */
export interface DestinationFunnel {
  id: number;
  name: string;
  enabled: boolean;
  /** Messages routed to it: every count below is a part of this one. */
  received: number;
  /** Not sent, by the kind of reason; `total` their sum. */
  skipped: Record<SkipKind | 'other', number> & { total: number };
  /** The reasons of the skipped ones, the most frequent first (at most OVERVIEW_REASONS). */
  reasons: { reason: string; kind: SkipKind | 'other'; count: number }[];
  /** Waiting for their first attempt (or held). */
  pending: number;
  cancelled: number;
  /** delivered + retrying + failed. */
  attempted: number;
  delivered: number;
  retrying: number;
  failed: number;
}

export interface DeliveryOverview {
  window: OverviewWindow;
  /** The window's start (ISO 8601), null for `all`; and the moment counted: the stream's time range for a step is from–at. */
  from: string | null;
  at: string;
  destinations: DestinationFunnel[];
}

export const overviewRequestSchemas = {
  /** The delivery overview of every destination for a window (default 24h). */
  'overview.deliveries': z.strictObject({
    window: z.enum(Object.keys(OVERVIEW_WINDOWS) as [OverviewWindow, ...OverviewWindow[]], { error: `window must be one of ${Object.keys(OVERVIEW_WINDOWS).join(', ')}` }).default('24h'),
  }),
} as const;

export interface OverviewResponses {
  'overview.deliveries': DeliveryOverview;
}
