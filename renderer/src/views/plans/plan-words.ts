/**
 * The Tracking plans view's logic without React: a plan's settings in words, an event's schema in
 * the plan, the stream's filters for "show this event's violations", and a re-check's progress
 * (merged from the call's answer and the `plans.recheck` events, in whatever order they come).
 * Tested in Node.
 */
import type { SourceView } from '../../../../shared/contract.ts';
import type { MessageType } from '../../../../shared/messages.ts';
import type {
  JsonSchema,
  PlanEventStat,
  RecheckProgress,
  TrackingPlan,
  TrackingPlanView,
  UnplannedMode,
  ViolationMode,
} from '../../../../shared/tracking-plan.ts';
import { formatCount, plural } from '../../lib/format.ts';
import { MESSAGE_TYPES, NO_FILTERS, type Filters } from '../../store/filters.ts';

export const FORMAT_NAMES: Record<NonNullable<TrackingPlanView['format']>, string> = {
  sluice: 'Sluice plan',
  segment: 'Segment Protocols export',
  rudderstack: 'RudderStack export',
};

export function unplannedWords(mode: UnplannedMode): string {
  switch (mode) {
    case 'allow':
      return 'allowed: not flagged';
    case 'flag':
      return 'flagged as a violation (Unplanned-Event), delivered';
    case 'block':
      return 'blocked: stored and shown, not delivered';
  }
}

export function violationModeWords(mode: ViolationMode): string {
  return mode === 'block' ? 'blocked: stored and shown, not delivered' : 'flagged, delivered anyway';
}

export function sourcesWords(plan: Pick<TrackingPlanView, 'sources'>): string {
  return plan.sources === null ? 'every source' : plan.sources.length === 0 ? 'no source' : plan.sources.join(', ');
}

/**
 * The vendor format of a plan read from an export, which Sluice never writes to (`plans.addEvent`
 * refuses with plan_read_only); null for a plan that takes additions (Sluice's format, or inline).
 */
export function readOnlyFormat(plan: Pick<TrackingPlanView, 'file' | 'format'>): 'segment' | 'rudderstack' | null {
  return plan.file !== null && plan.format !== null && plan.format !== 'sluice' ? plan.format : null;
}

/** The types a plan may give one schema for (`plans.addEvent` takes them too). */
export const TYPE_SCHEMAS = ['identify', 'group', 'page', 'screen'] as const;
export type TypeSchema = (typeof TYPE_SCHEMAS)[number];

/** "Order Completed", or the type for identify, page, ... */
export function statName(stat: Pick<PlanEventStat, 'type' | 'event'>): string {
  return stat.event ?? stat.type;
}

/** The schema the plan gives an event (a track event's properties, or a type's properties / traits). */
export function schemaOf(plan: TrackingPlan | null, stat: Pick<PlanEventStat, 'type' | 'event'>): JsonSchema | undefined {
  if (!plan) return undefined;
  if (stat.type === 'track') return stat.event === null ? undefined : (Object.hasOwn(plan.events, stat.event) ? plan.events[stat.event] : undefined);
  if ((TYPE_SCHEMAS as readonly string[]).includes(stat.type)) return plan[stat.type as TypeSchema];
  return undefined;
}

/**
 * The stream's filters that show an event's messages: its type and its exact name (the `event`
 * filter; none for identify, group, alias, whose stats are per type), and the plan's source when it
 * checks exactly one. `violated`: only the messages that break this plan (the `plan` filter, which
 * also narrows a plan of several sources to its own); otherwise all of them, of any source when the
 * plan checks several (the stream has no filter for a set of sources).
 */
export function streamFiltersFor(
  stat: Pick<PlanEventStat, 'type' | 'event'>,
  plan: Pick<TrackingPlanView, 'name' | 'sources'>,
  sources: readonly Pick<SourceView, 'id' | 'name'>[],
  violated: boolean,
): Filters {
  const type = (MESSAGE_TYPES as readonly string[]).includes(stat.type) ? (stat.type as MessageType) : null;
  const only = plan.sources?.length === 1 ? sources.find((s) => s.name === plan.sources![0]) : undefined;
  const filters: Filters = { ...NO_FILTERS, type, sourceId: only?.id ?? null };
  if (stat.event !== null) filters.event = stat.event;
  if (violated) filters.plan = plan.name;
  return filters;
}

/**
 * The newer of two views of re-checks: a later job wins (ids are unique and increase, across restarts
 * of the core too); for the same job an ended state is final and otherwise the one further along
 * (events may overtake the call's answer). No news: `current` itself.
 */
export function mergeProgress(current: RecheckProgress | null, incoming: RecheckProgress): RecheckProgress {
  if (!current || incoming.id > current.id) return incoming;
  if (incoming.id < current.id) return current;
  if (current.state !== 'running') return current;
  if (incoming.state !== 'running') return incoming;
  return incoming.done > current.done ? incoming : current;
}

/** How far along, 0–1 (an empty re-check that finished is all the way). */
export function progressFraction(p: RecheckProgress): number {
  if (p.total <= 0) return p.state === 'running' ? 0 : 1;
  return Math.min(1, Math.max(0, p.done / p.total));
}

/** The sentence beside the progress bar. */
export function progressWords(p: RecheckProgress): string {
  const of = `${formatCount(p.done)} of ${plural(p.total, 'message')}`;
  const changed = `${formatCount(p.changed)} changed ${p.changed === 1 ? 'its' : 'their'} violations`;
  switch (p.state) {
    case 'running':
      return `Re-checking… ${of} · ${changed}`;
    case 'finished':
      return `Finished: ${plural(p.total, 'message')} re-checked · ${changed}.`;
    case 'failed':
      return `Failed after ${of}: ${p.error ?? 'unknown error'}. ${changed}; run it again to finish.`;
  }
}

/** The version hash shortened for display. */
export function shortVersion(version: string | null): string {
  if (version === null) return 'none loaded';
  return version.length > 12 ? version.slice(0, 12) : version;
}
