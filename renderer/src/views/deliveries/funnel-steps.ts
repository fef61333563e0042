// The delivery overview's steps as the view lays them out: each a line of the funnel with its count
// and the query (delivery:"name:step") that opens its messages in the stream. Plain TypeScript.
import type { DestinationFunnel } from '../../../../shared/channels/overview.ts';
import type { DeliveryStep, SkipKind } from '../../../../shared/message-query.ts';

export interface FunnelLine {
  step: DeliveryStep;
  label: string;
  count: number;
  /** 0: a step of the funnel; 1: a part of the step above; 2: a part of that. */
  depth: 0 | 1 | 2;
  tone: 'plain' | 'ok' | 'warn' | 'bad' | 'muted';
}

const SKIP_LABELS: Record<SkipKind | 'other', string> = {
  plan: 'blocked by a tracking plan',
  filter: "dropped by the destination's filters",
  transform: 'dropped by its transform',
  integrations: "integrations turned webhooks off",
  other: 'other reasons',
};

export const skipLabel = (kind: SkipKind | 'other') => SKIP_LABELS[kind];

/** The lines of a funnel, top to bottom; a skip kind or an optional state with no message is left out. */
export function funnelLines(f: DestinationFunnel): FunnelLine[] {
  const lines: FunnelLine[] = [{ step: 'received', label: 'Received from its sources', count: f.received, depth: 0, tone: 'plain' }];
  lines.push({ step: 'skipped', label: 'Filtered or blocked (not sent)', count: f.skipped.total, depth: 1, tone: f.skipped.total ? 'muted' : 'plain' });
  for (const kind of ['plan', 'filter', 'transform', 'integrations', 'other'] as const) {
    if (f.skipped[kind] > 0) lines.push({ step: `skipped-${kind}`, label: SKIP_LABELS[kind], count: f.skipped[kind], depth: 2, tone: 'muted' });
  }
  if (f.pending > 0) lines.push({ step: 'pending', label: 'Waiting for a first attempt', count: f.pending, depth: 1, tone: 'plain' });
  if (f.cancelled > 0) lines.push({ step: 'cancelled', label: 'Cancelled', count: f.cancelled, depth: 1, tone: 'muted' });
  lines.push({ step: 'attempted', label: 'Attempted', count: f.attempted, depth: 1, tone: 'plain' });
  lines.push({ step: 'delivered', label: 'Delivered', count: f.delivered, depth: 2, tone: f.delivered ? 'ok' : 'plain' });
  lines.push({ step: 'retrying', label: 'Retrying', count: f.retrying, depth: 2, tone: f.retrying ? 'warn' : 'plain' });
  lines.push({ step: 'failed', label: 'Failed', count: f.failed, depth: 2, tone: f.failed ? 'bad' : 'plain' });
  return lines;
}
