import type { AudienceView, Condition, TimeWindow } from '../../../../shared/audiences.ts';
import { formatValue, TRAIT_OPERATOR_LABELS } from './audience-form.ts';

function windowText(within: TimeWindow | undefined): string {
  if (!within) return '';
  const unit = within.amount === 1 ? within.unit.replace(/s$/, '') : within.unit;
  return ` in the last ${within.amount} ${unit}`;
}

function conditionText(c: Condition): string {
  if (c.kind === 'event') return `${c.event} ${c.operator === 'at_least' ? 'at least' : 'at most'} ${c.count}×${windowText(c.within)}`;
  const value = c.value === undefined ? '' : ` ${formatValue(c.value)}`;
  return `${c.trait} ${TRAIT_OPERATOR_LABELS[c.operator]}${value}`;
}

/** The definition in one line: "plan equals "pro" and Order Completed at least 3× in the last 7 days". */
export function describeDefinition(view: Pick<AudienceView, 'rule' | 'computation'>): string {
  if (view.rule) return view.rule.conditions.map(conditionText).join(view.rule.match === 'all' ? ' and ' : ' or ');
  const c = view.computation;
  if (!c) return '';
  return c.kind === 'event_count' ? `count of ${c.event}${windowText(c.within)}` : `last ${c.property} of ${c.event}`;
}
