/**
 * The words of a bulk replay's confirmation: which messages (the stream's filters, in words) and how
 * many a dry run found, with what is left out and why. Pure, tested in Node.
 */
import type { ReplayOutcome } from '../../../../shared/contract.ts';
import { plural } from '../../lib/format.ts';
import { TIME_PRESETS, type Filters, type TimeRange } from '../../store/filters.ts';
import { OUTCOME_NAMES } from '../../store/outcome.ts';

export function describeTimeRange(range: TimeRange, formatTime: (ms: number) => string): string | null {
  if (range.kind === 'last') return (TIME_PRESETS.find((p) => p.ms === range.ms)?.label ?? `last ${Math.round(range.ms / 60_000)} min`).toLowerCase();
  if (range.kind === 'between') {
    if (range.from !== null && range.to !== null) return `received ${formatTime(range.from)} – ${formatTime(range.to)}`;
    if (range.from !== null) return `received since ${formatTime(range.from)}`;
    if (range.to !== null) return `received until ${formatTime(range.to)}`;
  }
  return null;
}

/** "type track · event “Order Completed” · failed · search “alice” · last 1 h", or that there is no filter. */
export function describeFilters(filters: Filters, sourceName: (id: number) => string, formatTime: (ms: number) => string): string {
  const parts: string[] = [];
  if (filters.type) parts.push(`type ${filters.type}`);
  if (filters.event) parts.push(`event “${filters.event}”`);
  if (filters.status) parts.push(OUTCOME_NAMES[filters.status].toLowerCase());
  if (filters.plan) parts.push(`breaking the plan “${filters.plan}”`);
  else if (filters.violations) parts.push('with tracking plan violations');
  if (filters.sourceId !== null) parts.push(`source ${sourceName(filters.sourceId)}`);
  if (filters.search.trim()) parts.push(`search “${filters.search.trim()}”`);
  const time = describeTimeRange(filters.time, formatTime);
  if (time) parts.push(time);
  return parts.length ? parts.join(' · ') : 'no filters: every stored message';
}

export interface Confirmation {
  /** The sentence above the button. */
  text: string;
  /** The button's label, with the count ("Replay 12 messages"); null when there is nothing to replay. */
  button: string | null;
}

/** Said when "all failed" found more failed deliveries than one replay takes (ReplayOutcome.truncated). */
export const TRUNCATED_SENTENCE =
  'There are more failed deliveries than one replay takes: this replays the oldest 10,000; replay all failed again afterwards for the rest.';

/**
 * What to replay: the messages matching the stream's filter (the default while a filter is set), or
 * every delivery that is failed now, whatever the filter (the default without one).
 */
export type BulkScope = 'filtered' | 'failed';

export function defaultScope(filtered: boolean): BulkScope {
  return filtered ? 'filtered' : 'failed';
}

/**
 * The sentence above the button, saying which set it is ("the 37 messages matching the current
 * filter", "all 12 failed deliveries, whatever the filter"), and the button.
 * `filtered`: whether a filter is set (without one the filtered set is every stored message).
 */
export function confirmation(outcome: ReplayOutcome, scope: BulkScope = 'filtered', filtered = true): Confirmation {
  const { messages, deliveries, leftOut } = outcome;
  const notes: string[] = [];
  if (leftOut.rejected > 0) notes.push(`${plural(leftOut.rejected, 'rejected message')} left out (rejected messages are never forwarded)`);
  if (leftOut.noDestination > 0) {
    notes.push(`${plural(leftOut.noDestination, 'message')} left out: their source has no enabled destination — choose a destination above to replay them through it`);
  }
  const more = outcome.truncated ? ` ${TRUNCATED_SENTENCE}` : '';
  const tail = (notes.length ? ` ${notes.join('; ')}.` : '') + more;
  if (deliveries === 0) return { text: `Nothing to replay${scope === 'failed' ? ': no delivery is failed now' : ''}.${tail}`, button: null };
  if (scope === 'failed') {
    const what = plural(deliveries, 'failed delivery', 'failed deliveries');
    const of = messages > 0 && messages !== deliveries ? ` (of ${plural(messages, 'message')})` : '';
    return { text: `This replays ${deliveries === 1 ? 'the' : 'all'} ${what}${of}, whatever the filter.${tail}`, button: `Replay ${what}` };
  }
  const what = messages > 0 ? plural(messages, 'message') : plural(deliveries, 'delivery', 'deliveries');
  const how = deliveries === messages ? '' : ` as ${plural(deliveries, 'new delivery', 'new deliveries')}`;
  const which = filtered ? `the ${what} matching the current filter` : `all ${what} stored (no filter is set)`;
  return { text: `This replays ${which}${how}.${tail}`, button: `Replay ${what}` };
}
