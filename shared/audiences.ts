/**
 * Audiences and computed traits (seed §6.3): what they are made of, validated here for the core, the
 * `--config` file and the inspector's rule builder alike.
 *
 * An audience is a rule over what Sluice stored for each user of a source — the user's latest traits
 * (merged over their identify calls, later values win) and the track events they performed. A
 * computed trait is a named value per user (an event count, or the last value of an event property).
 * Both are synced as identify messages carrying `traits: {<property>: value}`.
 */
import { z } from 'zod';
import { propertyName } from './audience-property.ts';

export const AUDIENCE_KINDS = ['audience', 'computed_trait'] as const;
export type AudienceKind = (typeof AUDIENCE_KINDS)[number];

export const TRAIT_OPERATORS = ['equals', 'not_equals', 'exists', 'not_exists', 'contains', 'greater_than', 'less_than'] as const;
export type TraitOperator = (typeof TRAIT_OPERATORS)[number];
export const EVENT_OPERATORS = ['at_least', 'at_most'] as const;
export type EventOperator = (typeof EVENT_OPERATORS)[number];
export const WINDOW_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const;
export type WindowUnit = (typeof WINDOW_UNITS)[number];
export const SYNC_MODES = ['demo', 'realistic'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

const UNIT_MS: Record<WindowUnit, number> = { seconds: 1000, minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** Demo mode's default and bounds for the time between syncs. */
export const DEFAULT_INTERVAL_SECONDS = 30;
export const MIN_INTERVAL_SECONDS = 5;
export const MAX_INTERVAL_SECONDS = 86_400;
export const MAX_CONDITIONS = 20;
/** Destinations one audience may choose. */
export const MAX_AUDIENCE_DESTINATIONS = 50;

/** Realistic mode, as the seed says: the first sync six or more hours after creation, then every two to three hours. */
export const REALISTIC_FIRST_SYNC_MS = 6 * 3_600_000;
/** The first realistic sync falls somewhere in [6 h, 6 h + this). */
export const REALISTIC_FIRST_SYNC_SPREAD_MS = 3_600_000;
export const REALISTIC_LATER_MIN_MS = 2 * 3_600_000;
export const REALISTIC_LATER_MAX_MS = 3 * 3_600_000;

const traitName = z.string().trim().min(1, 'name the trait, e.g. plan').max(200, 'must be at most 200 characters');
const eventName = z.string().trim().min(1, 'name the event, e.g. Order Completed').max(200, 'must be at most 200 characters');

export const windowSchema = z.strictObject({
  amount: z.number().int('must be a whole number').min(1, 'must be at least 1').max(100_000, 'must be at most 100,000'),
  unit: z.enum(WINDOW_UNITS),
});
export type TimeWindow = z.infer<typeof windowSchema>;

export function windowMs(window: TimeWindow): number {
  return window.amount * UNIT_MS[window.unit];
}

export const traitConditionSchema = z
  .strictObject({
    kind: z.literal('trait'),
    trait: traitName,
    operator: z.enum(TRAIT_OPERATORS),
    /** Compared with the trait's latest value: a string matches only a string, a number only a number. */
    value: z.union([z.string().max(1000, 'must be at most 1,000 characters'), z.number().finite(), z.boolean()]).optional(),
  })
  .superRefine((c, ctx) => {
    const issue = (message: string) => ctx.addIssue({ code: 'custom', path: ['value'], message });
    switch (c.operator) {
      case 'exists':
      case 'not_exists':
        if (c.value !== undefined) issue(`"${c.operator}" takes no value; remove it`);
        return;
      case 'equals':
      case 'not_equals':
        if (c.value === undefined) issue('give the value to compare with');
        return;
      case 'contains':
        if (typeof c.value !== 'string' || c.value === '') issue('"contains" needs the text to look for');
        return;
      case 'greater_than':
      case 'less_than':
        if (typeof c.value !== 'number') issue(`"${c.operator}" compares numbers: give a number`);
    }
  });
export type TraitCondition = z.infer<typeof traitConditionSchema>;

export const eventConditionSchema = z
  .strictObject({
    kind: z.literal('event'),
    event: eventName,
    operator: z.enum(EVENT_OPERATORS),
    count: z.number().int('must be a whole number').min(0, 'must not be negative').max(1_000_000, 'must be at most 1,000,000'),
    /** Only events in the last amount×unit count (by the event's timestamp); none = all time. */
    within: windowSchema.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.operator === 'at_least' && c.count === 0) {
      ctx.addIssue({ code: 'custom', path: ['count'], message: '"at least 0 times" matches every user; use at least 1' });
    }
  });
export type EventCondition = z.infer<typeof eventConditionSchema>;

export const conditionSchema = z.discriminatedUnion('kind', [traitConditionSchema, eventConditionSchema], {
  error: () => 'kind must be "trait" or "event"',
});
export type Condition = z.infer<typeof conditionSchema>;

export const ruleSchema = z.strictObject({
  /** all: every condition holds; any: at least one does. */
  match: z.enum(['all', 'any']).default('all'),
  conditions: z
    .array(conditionSchema)
    .min(1, 'add at least one condition')
    .max(MAX_CONDITIONS, `at most ${MAX_CONDITIONS} conditions`),
});
export type AudienceRule = z.infer<typeof ruleSchema>;

export const computationSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      /** How many times the user performed the event (within the window): a number, 0 once they no longer have any. */
      kind: z.literal('event_count'),
      event: eventName,
      within: windowSchema.optional(),
    }),
    z.strictObject({
      /** The value the property had on the user's latest event that carried it; null once there is none. */
      kind: z.literal('last_property'),
      event: eventName,
      property: z.string().trim().min(1, 'name the property, e.g. plan').max(200, 'must be at most 200 characters'),
    }),
  ],
  { error: () => 'kind must be "event_count" or "last_property"' },
);
export type Computation = z.infer<typeof computationSchema>;

const audienceName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .refine((name) => propertyName(name) !== '', {
    message: 'needs at least one letter or digit: the trait it sends is named after it (snake_case)',
  });

/** Fields an audience and a computed trait share, wherever they are declared. */
const definitionFields = {
  name: audienceName,
  kind: z.enum(AUDIENCE_KINDS).default('audience'),
  /** For an audience. */
  rule: ruleSchema.optional(),
  /** For a computed trait. */
  computation: computationSchema.optional(),
  mode: z.enum(SYNC_MODES).default('demo'),
  /** Demo mode: seconds between syncs. */
  intervalSeconds: z
    .number()
    .int('must be a whole number of seconds')
    .min(MIN_INTERVAL_SECONDS, `must be at least ${MIN_INTERVAL_SECONDS} seconds`)
    .max(MAX_INTERVAL_SECONDS, `must be at most ${MAX_INTERVAL_SECONDS} seconds (a day)`)
    .default(DEFAULT_INTERVAL_SECONDS),
};

function needsItsDefinition(d: { kind: AudienceKind; rule?: unknown; computation?: unknown }, ctx: z.RefinementCtx): void {
  if (d.kind === 'audience') {
    if (d.rule === undefined) ctx.addIssue({ code: 'custom', path: ['rule'], message: 'an audience needs a rule' });
    if (d.computation !== undefined) ctx.addIssue({ code: 'custom', path: ['computation'], message: 'only a computed trait has a computation' });
  } else {
    if (d.computation === undefined) ctx.addIssue({ code: 'custom', path: ['computation'], message: 'a computed trait needs a computation' });
    if (d.rule !== undefined) ctx.addIssue({ code: 'custom', path: ['rule'], message: 'only an audience has a rule' });
  }
}

/** Each destination once: a list that names one twice is refused where it repeats. */
function listedOnce<T>(list: readonly T[] | null | undefined, ctx: z.RefinementCtx, path: string, what: (item: T) => string): void {
  list?.forEach((item, i) => {
    if (list.indexOf(item) !== i) ctx.addIssue({ code: 'custom', path: [path, i], message: `${what(item)} is listed twice` });
  });
}

/**
 * An audience as the inspector saves it (the source by id; `id` to edit an existing one).
 * `destinationIds`: the destinations its syncs go to, enabled ones only, whether or not they are
 * connected to the source; null (the default, and every audience from before the choice existed):
 * the enabled destinations connected to the source, as they are at each sync.
 */
export const audienceInputSchema = z
  .strictObject({
    id: z.number().int().positive().optional(),
    sourceId: z.number().int().positive(),
    ...definitionFields,
    destinationIds: z
      .array(z.number().int().positive())
      .max(MAX_AUDIENCE_DESTINATIONS, `at most ${MAX_AUDIENCE_DESTINATIONS} destinations`)
      .nullable()
      .default(null),
  })
  .superRefine((d, ctx) => {
    needsItsDefinition(d, ctx);
    listedOnce(d.destinationIds, ctx, 'destinationIds', (id) => `destination ${id}`);
  });
export type AudienceInput = z.infer<typeof audienceInputSchema>;

/**
 * An audience in the `--config` file (the source by name); created or updated by name on start.
 * `destinations`: names of declared destinations its syncs go to; absent: the source's destinations.
 */
export const audienceConfigSchema = z
  .strictObject({
    source: z.string().trim().min(1, 'name the source, e.g. web').max(100),
    ...definitionFields,
    destinations: z
      .array(z.string().trim().min(1, 'name the destination, e.g. hooks').max(100))
      .max(MAX_AUDIENCE_DESTINATIONS, `at most ${MAX_AUDIENCE_DESTINATIONS} destinations`)
      .optional(),
  })
  .superRefine((d, ctx) => {
    needsItsDefinition(d, ctx);
    listedOnce(d.destinations, ctx, 'destinations', (name) => `"${name}"`);
  });
export type AudienceConfig = z.infer<typeof audienceConfigSchema>;

/** What a preview evaluates: a definition not saved yet (or an edit of `audienceId`, to count who would join and leave). */
export const audiencePreviewSchema = z
  .strictObject({
    audienceId: z.number().int().positive().optional(),
    sourceId: z.number().int().positive(),
    kind: z.enum(AUDIENCE_KINDS).default('audience'),
    rule: ruleSchema.optional(),
    computation: computationSchema.optional(),
    sampleSize: z.number().int().min(0).max(100).default(10),
  })
  .superRefine(needsItsDefinition);
export type AudiencePreviewRequest = z.infer<typeof audiencePreviewSchema>;

/** An audience or computed trait as the inspector lists it. */
export interface AudienceView {
  id: number;
  name: string;
  kind: AudienceKind;
  sourceId: number;
  /** The trait its identifies carry: snake_case of the name. */
  property: string;
  rule: AudienceRule | null;
  computation: Computation | null;
  mode: SyncMode;
  intervalSeconds: number;
  /**
   * The destinations its syncs go to (the enabled ones among them); null: the enabled destinations
   * connected to its source, as they are at each sync.
   */
  destinationIds: number[] | null;
  createdAt: number;
  updatedAt: number;
  lastSyncAt: number | null;
  nextSyncAt: number | null;
  /** Members (users with a value, for a computed trait) as of the last sync. */
  members: number;
  /** Why the last attempt to sync failed, until a sync succeeds. */
  lastError: string | null;
}

/** One sync: when, who joined and left, and how its identify messages fared. */
export interface AudienceSyncView {
  id: number;
  audienceId: number;
  at: number;
  reason: 'scheduled' | 'manual';
  /** Nothing had been synced before: every member was sent. */
  initial: boolean;
  property: string;
  members: number;
  /** Computed traits: users whose value is new or changed. */
  joined: number;
  /** Computed traits: users who no longer have a value. */
  left: number;
  /** Identify messages stored (joined + left). */
  messages: number;
  deliveries: number;
  /** Deliveries of this sync's messages by status, now. */
  deliveryStatus: Partial<Record<string, number>>;
  durationMs: number;
}

export interface AudienceSyncMessageView {
  /** The stored message's id (open it in the stream). */
  id: number;
  userId: string;
  value: unknown;
  change: 'joined' | 'left' | 'changed';
  /** The most telling of its deliveries (one per destination), or null when no destination was connected. */
  delivery: { status: string; attemptCount: number; nextAttemptAt: number | null; lastError: string | null } | null;
  deliveryCount: number;
}

export interface AudienceMemberView {
  userId: string;
  value: unknown;
  since: number;
}

export interface AudiencePreviewView {
  members: number;
  sample: { userId: string; value: unknown }[];
  /** For an edit: users the next sync would send (joined or changed) and who would leave. */
  joining: number | null;
  leaving: number | null;
  /** Users of the source (with a stored message carrying a userId). */
  users: number;
  durationMs: number;
}

/** On a stream row: which audience sync a message was sent by. */
export interface AudienceMessageTag {
  audienceId: number;
  audienceName: string | null;
  kind: AudienceKind;
  property: string;
  value: unknown;
  change: 'joined' | 'left' | 'changed';
}
