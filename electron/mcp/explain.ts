// explain_violation's words: each violation a stored message carries, with the plan's rule it broke
// (the schema at that place of the plan, cut short) and what to change — the call or the plan.
// Pure: it reads the message (GET /api/v1/messages/by-id/{id}) and the plans in use (GET /api/v1/plans).
import type { JsonSchema, TrackingPlan, TrackingPlanView, Violation } from '../../shared/tracking-plan.ts';

/** Characters of a rule shown, at most (a schema can be large; the place that matters is small). */
const RULE_CHARS = 1_500;
/** Planned event names listed for an unplanned event, at most. */
const LISTED_EVENTS = 30;

export interface Explained {
  type: Violation['type'];
  plan: string;
  /** The JSON Pointer into the message. */
  path: string;
  /** What is wrong, as the relay said it. */
  sentence: string;
  /** The plan's rule at that place: a JSON Schema (fragment), or the events the plan lists. */
  rule: unknown;
  /** What to change. */
  fix: string;
  /** The plan's file, to edit; null for a plan given inline. */
  planFile: string | null;
}

/** The stored message: its `type` and `event` say which of the plan's schemas checked it. */
type Subject = Readonly<Record<string, unknown>>;

export function explainViolations(message: Subject, violations: readonly Violation[], plans: readonly TrackingPlanView[]): Explained[] {
  return violations.map((v) => {
    const view = plans.find((p) => p.name === v.plan);
    const where = view ? (view.file ?? `the config's inline plan "${v.plan}"`) : `the plan "${v.plan}" (no longer in use)`;
    const field = fieldName(v.path);
    const base = { type: v.type, plan: v.plan, path: v.path, sentence: v.message, planFile: view?.file ?? null };
    const plan = view?.plan ?? null;
    if (v.type === 'Unplanned-Event') {
      const events = Object.keys(plan?.events ?? {});
      return {
        ...base,
        rule: { plannedEvents: events.slice(0, LISTED_EVENTS), ...(events.length > LISTED_EVENTS ? { more: events.length - LISTED_EVENTS } : {}) },
        fix: `send an event the plan lists (check the name's spelling and case), or add ${JSON.stringify(message.event)} to the plan's "events" in ${where} (the inspector's Tracking plans view adds it from stored examples)`,
      };
    }
    const section = plan ? sectionSchema(plan, message, v.path) : undefined;
    const segments = v.path.split('/').slice(2).map(unescape);
    switch (v.type) {
      case 'Required-Missing': {
        const parent = schemaAt(section, segments.slice(0, -1));
        return {
          ...base,
          rule: clip({ required: parent?.required, [field]: schemaAt(section, segments) ?? 'any value' }),
          fix: `send ${field} with this call, or, if it is optional, take "${segments.at(-1)}" out of "required" in ${where}`,
        };
      }
      case 'Additional-Properties': {
        const parent = schemaAt(section, segments.slice(0, -1));
        return {
          ...base,
          rule: clip({ properties: Object.keys((parent?.properties as object | undefined) ?? {}), additionalProperties: parent?.additionalProperties ?? false }),
          fix: `leave ${field} out of this call, or add "${segments.at(-1)}" to "properties" in ${where}`,
        };
      }
      case 'Datatype-Mismatch':
        return { ...base, rule: clip(schemaAt(section, segments) ?? null), fix: `send ${field} as the rule's "type", or change the rule in ${where} if the new type is meant` };
      default:
        return { ...base, rule: clip(schemaAt(section, segments) ?? null), fix: `make ${field || 'the message'} fit the rule shown, or change the rule in ${where}` };
    }
  });
}

/** The schema the plan holds for the part of the message a path is in (the event's, a type's, or the context's). */
function sectionSchema(plan: TrackingPlan, message: Subject, pointer: string): JsonSchema | undefined {
  if (pointer.startsWith('/context')) return plan.context as JsonSchema | undefined;
  const { type, event } = message;
  switch (type) {
    case 'track':
      return typeof event === 'string' ? (plan.events?.[event] as JsonSchema | undefined) : undefined;
    case 'identify':
    case 'group':
    case 'page':
    case 'screen':
      return plan[type] as JsonSchema | undefined;
    default:
      return undefined;
  }
}

/** The schema that checks the value at these segments (through `properties`, and `items` for an array's index); undefined where the plan says nothing. */
function schemaAt(schema: JsonSchema | undefined, segments: string[]): Record<string, unknown> | undefined {
  let here = schema as Record<string, unknown> | undefined;
  for (const segment of segments) {
    if (!here || typeof here !== 'object') return undefined;
    const properties = here.properties as Record<string, Record<string, unknown>> | undefined;
    if (properties && Object.hasOwn(properties, segment)) here = properties[segment];
    else if (/^\d+$/.test(segment) && here.items && typeof here.items === 'object') here = here.items as Record<string, unknown>;
    else return undefined;
  }
  return here;
}

/** A pointer's field as a person reads it: properties.items[0].sku. */
function fieldName(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map(unescape)
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join('');
}

function unescape(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function clip(rule: unknown): unknown {
  const text = JSON.stringify(rule);
  return text === undefined || text.length <= RULE_CHARS ? rule : `${text.slice(0, RULE_CHARS)}… (the rule is ${text.length} characters; the whole is in the plan)`;
}
