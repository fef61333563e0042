/**
 * Tracking plan violations in words: the row's badge, and each violation as a note beside its field
 * in the message's JSON tree. Pure, no React, tested in Node.
 */
import type { Violation } from '../../../../shared/tracking-plan.ts';
import type { Annotation } from '../../components/json-pointer.ts';
import { plural } from '../../lib/format.ts';

/** "1 violation", "2 violations". */
export function violationsLabel(count: number): string {
  return plural(count, 'violation');
}

/** The violation type in words, for a tooltip: "Required-Missing" → "required field missing". */
export const VIOLATION_TYPE_WORDS: Record<string, string> = {
  'Unplanned-Event': 'event not in the plan',
  'Required-Missing': 'required field missing',
  'Datatype-Mismatch': 'wrong type or value',
  'Additional-Properties': 'field not in the plan',
  'Unknown-Violation': 'breaks the plan',
};

/** The field a violation is about, from its pointer: "/properties/price" → "properties.price"; "" → "the message". */
export function fieldOf(pointer: string): string {
  if (pointer === '' || pointer === '/') return 'the message';
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** Each violation as a JsonTree annotation on its field. */
export function violationAnnotations(violations: readonly Violation[]): Annotation[] {
  return violations.map((v) => ({
    pointer: v.path,
    text: v.message,
    tag: v.type,
    title: `${v.type} (${VIOLATION_TYPE_WORDS[v.type] ?? 'breaks the plan'}) — plan “${v.plan}”, at ${v.path || '/'}`,
  }));
}

/**
 * The sentence for a message a plan blocked. The core's reason may already say it was blocked
 * ("blocked by the tracking plan "web plan": …"): it is then the sentence's start, not repeated.
 */
export function blockedSentence(reason: string): string {
  const text = reason.trim().replace(/\.$/, '');
  if (/^blocked\b/i.test(text)) return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  return `Blocked by a tracking plan: ${text}.`;
}
