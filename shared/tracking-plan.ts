/**
 * Tracking plans: what each event should look like, as JSON Schemas, and what a message that does not
 * match gets (its violations). The plan document, the config entry that puts a plan to work on some
 * sources, the violation taxonomy (Segment's and RudderStack's), and what the inspector sees of them.
 * Depends on zod only.
 */
import { z } from 'zod';

/** A JSON Schema (draft-07 is what plans are checked with; `true`/`false` are schemas too). */
export type JsonSchema = boolean | { [keyword: string]: unknown };
export const jsonSchema = z.union([z.boolean(), z.record(z.string(), z.unknown())], {
  error: 'must be a JSON Schema (an object, or true / false)',
});

/**
 * Sluice's own plan format. Every schema is optional except `events` (which may be empty):
 * - `events`: per track event name, the schema of its `properties`;
 * - `identify`, `group`: the schema of their `traits`;
 * - `page`, `screen`: the schema of their `properties`;
 * - `context`: the schema of every message's `context` (batch-level context merged in).
 * Vendor keywords (`labels`, `id`, descriptions, Segment's `$schema` of another draft) are tolerated.
 */
export const trackingPlanSchema = z.looseObject({
  name: z.string().max(200).optional(),
  description: z.string().max(10_000).optional(),
  events: z.record(z.string().min(1).max(1024), jsonSchema).default({}),
  identify: jsonSchema.optional(),
  group: jsonSchema.optional(),
  page: jsonSchema.optional(),
  screen: jsonSchema.optional(),
  context: jsonSchema.optional(),
});
export type TrackingPlan = z.output<typeof trackingPlanSchema>;

/** What to do with a track event the plan does not list. */
export const UNPLANNED_MODES = ['allow', 'flag', 'block'] as const;
export type UnplannedMode = (typeof UNPLANNED_MODES)[number];
/** What to do with a message that breaks the plan. */
export const VIOLATION_MODES = ['flag', 'block'] as const;
export type ViolationMode = (typeof VIOLATION_MODES)[number];

/**
 * A plan put to work (the config's `trackingPlans[]`): which sources it checks (by name; absent:
 * every source), where the plan is (`file`, relative to the config file; Sluice's format, or a
 * Segment Protocols or RudderStack export, recognised by shape), or the plan itself (`plan`, for
 * sluice/testing and tests), and what happens to unplanned events and to violations.
 */
export const trackingPlanConfigSchema = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
    sources: z.array(z.string().min(1)).optional(),
    file: z.string().min(1).optional(),
    plan: trackingPlanSchema.optional(),
    unplanned: z.enum(UNPLANNED_MODES).default('flag'),
    violations: z.enum(VIOLATION_MODES).default('flag'),
    /** A destination (by name) that receives each violation as a `Violation Generated` track event, in Segment's shape. */
    forwardViolationsTo: z.string().min(1).optional(),
  })
  .superRefine((entry, ctx) => {
    if ((entry.file === undefined) === (entry.plan === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['file'], message: 'give exactly one of file (a plan file) or plan (the plan itself)' });
    }
  });
export type TrackingPlanConfig = z.output<typeof trackingPlanConfigSchema>;

/** Segment's and RudderStack's violation taxonomy. */
export const VIOLATION_TYPES = [
  'Unplanned-Event',
  'Required-Missing',
  'Datatype-Mismatch',
  'Additional-Properties',
  'Unknown-Violation',
] as const;
export type ViolationType = (typeof VIOLATION_TYPES)[number];

/** One way a message breaks a plan. */
export interface Violation {
  type: ViolationType;
  /** JSON Pointer into the message: "/properties/price", "/traits/email", "/context/app/version"; "/event" for an unplanned event. */
  path: string;
  /** A sentence a person can act on: 'price must be a number; got the string "12"'. */
  message: string;
  /** The plan's name (the config entry's). */
  plan: string;
}

/** A plan as the inspector sees it. */
export interface TrackingPlanView {
  name: string;
  /** The plan file (absolute); null for a plan given inline. */
  file: string | null;
  /** The format the file was read as. */
  format: 'sluice' | 'segment' | 'rudderstack' | null;
  /** Source names it checks; null: every source. */
  sources: string[] | null;
  unplanned: UnplannedMode;
  violations: ViolationMode;
  forwardViolationsTo: string | null;
  /** A hash of the plan in use; changes with each edit that loads. */
  version: string | null;
  loadedAt: number | null;
  /** Why the file could not be used (the plan loaded before stays in use); null when it loaded. */
  error: string | null;
  /** The plan in use (Sluice's format), or null when none ever loaded. */
  plan: TrackingPlan | null;
}

/**
 * A field an inferred schema found values of more than one JSON type in (null is one): left without a
 * type, for a person to decide (`sluice plan infer`, the inspector's Add to plan).
 */
export interface MixedField {
  /** The message type, and the track event's name (null for other types). */
  type: string;
  event: string | null;
  /** Where in the message: `properties.price`, `traits.address.zip`, `properties.items[].sku`. */
  path: string;
  /** Each type seen there, the most seen first: how many values had it, and the messageId of one message that had it. */
  types: { type: string; count: number; example: string | null }[];
}

/** How often an event (a track event name, or a type: identify, page, ...) was seen and broke the plan. */
export interface PlanEventStat {
  type: string;
  /** The track event's name; null for identify, group, page, screen, alias. */
  event: string | null;
  seen: number;
  violated: number;
  lastSeenAt: number | null;
}

export interface PlanStats {
  /** Each planned event (and each planned type), seen or not. */
  planned: PlanEventStat[];
  /** Track events seen that the plan does not list, the most seen first: at most UNPLANNED_SHOWN. */
  unplanned: PlanEventStat[];
  /** How many unplanned event names were seen in all. */
  unplannedTotal: number;
}

/** plans.stats lists at most this many unplanned events (a client that puts ids in event names makes thousands). */
export const UNPLANNED_SHOWN = 200;

/** Progress of a re-check of stored messages against the plans in use. */
export interface RecheckProgress {
  /** Unique across restarts (the time it started, made unique): a later re-check has a greater id. */
  id: number;
  /** How far it is through the messages stored when it started, by position (message ids), of `total`. */
  done: number;
  total: number;
  /** Messages whose violations changed. */
  changed: number;
  state: 'running' | 'finished' | 'failed';
  error?: string;
}
