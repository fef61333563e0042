/**
 * A destination's filters and transform as its settings name them (issue 28): what each destination
 * gets — dropped, sampled, reduced to some fields, reshaped by the user's own function. Plain zod and
 * the query language's parser (shared/message-query.ts); the core applies them
 * (electron/core/transforms/), the inspector edits and previews them.
 */
import { z } from 'zod';
import { parseQuery, QueryError } from './message-query.ts';

/** Filters a destination may have (each is tested on every message it would get). */
export const MAX_FILTERS = 20;
/** Field paths an allowFields / blockFields filter may name. */
export const MAX_FILTER_FIELDS = 100;

/** A field path of a message, dot-separated from its root ("properties.price", "context.ip"). */
const fieldPath = z
  .string()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters')
  .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, 'must be a field path such as properties.price or context.ip');

/**
 * A query in Sluice's query language, checked as the search box checks it — without `status:` or
 * `delivery:`, the outcomes of deliveries: a filter decides before there is one.
 */
export const filterQuerySchema = z.string().max(1000, 'must be at most 1,000 characters').superRefine((query, ctx) => {
  let clauses;
  try {
    clauses = parseQuery(query);
  } catch (error) {
    if (error instanceof QueryError) ctx.addIssue({ code: 'custom', message: `${error.message} (at character ${error.at + 1})` });
    else throw error;
    return;
  }
  const outcome = clauses.find((c) => c.kind === 'column' && (c.field === 'status' || c.field === 'delivery'));
  if (outcome?.kind === 'column') {
    ctx.addIssue({
      code: 'custom',
      message: `${outcome.field}: is the outcome of the message's deliveries, not known before this one is made, so a filter cannot test it: filter on the message instead (type:, event:, properties.…, source:, violations:)`,
    });
  }
  if (clauses.some((c) => c.kind === 'column' && c.field === 'pinned')) {
    ctx.addIssue({
      code: 'custom',
      message:
        'pinned: is whether you pinned the message in the inspector, which you do after it arrives, so a filter cannot test it: filter on the message instead (type:, event:, properties.…, source:, violations:)',
    });
  }
});

/**
 * Fields an allowFields filter always keeps and a blockFields filter may not name: what makes the
 * message a message of its type (its type, ids, times, and the track event, page/screen name, group's
 * groupId, alias's previousId) — a destination must still get a valid message.
 */
export const ALWAYS_KEPT_FIELDS = [
  'type',
  'messageId',
  'timestamp',
  'originalTimestamp',
  'receivedAt',
  'sentAt',
  'userId',
  'anonymousId',
  'event',
  'name',
  'groupId',
  'previousId',
] as const;
const ALWAYS_KEPT: ReadonlySet<string> = new Set(ALWAYS_KEPT_FIELDS);

/**
 * One filter: when the message matches `if` (empty: every message), the action — `drop` it, keep a
 * `sample` of it (0–1, the same messages every time: decided by the messageId), or send only
 * `allowFields` / everything but `blockFields`. Filters run in order; the first drop or sample-out
 * decides; field filters all apply.
 */
export const destinationFilterSchema = z
  .strictObject({
    if: filterQuerySchema,
    drop: z.literal(true, { error: 'drop must be true' }).optional(),
    sample: z.number({ error: 'sample must be a number from 0 to 1' }).min(0, 'sample must be from 0 to 1').max(1, 'sample must be from 0 to 1').optional(),
    allowFields: z.array(fieldPath).min(1, 'name at least one field').max(MAX_FILTER_FIELDS).optional(),
    blockFields: z.array(fieldPath).min(1, 'name at least one field').max(MAX_FILTER_FIELDS).optional(),
  })
  .superRefine((filter, ctx) => {
    const actions = (['drop', 'sample', 'allowFields', 'blockFields'] as const).filter((a) => filter[a] !== undefined);
    if (actions.length !== 1) {
      ctx.addIssue({ code: 'custom', message: `give exactly one of drop, sample, allowFields or blockFields${actions.length ? ` (it has ${actions.join(' and ')})` : ''}` });
    }
    filter.blockFields?.forEach((path, i) => {
      if (ALWAYS_KEPT.has(path)) {
        ctx.addIssue({
          code: 'custom',
          path: ['blockFields', i],
          message: `${path} is always sent (a destination must get a valid message): block the fields beside it instead, e.g. properties or context.ip`,
        });
      }
    });
  });
export type DestinationFilter = z.infer<typeof destinationFilterSchema>;

/**
 * The one sentence that says what filter `index` (from 0; the sentence counts from 1) did to a message:
 * "dropped by filter 2 (if: type:identify)", "sampled out by filter 1 (sample 0.1)", "kept by filter 1
 * (sample 0.1)", "fields filtered by filter 3 (allowFields properties.price, context.ip)". Deliveries,
 * the HTTP API and the inspector's preview all say it so.
 */
export function filterDecisionText(index: number, filter: DestinationFilter, effect: 'dropped' | 'kept' | 'fields'): string {
  const query = filter.if.trim();
  const when = query ? `if: ${query}` : 'every message';
  const n = index + 1;
  if (filter.sample !== undefined) {
    return `${effect === 'kept' ? 'kept' : 'sampled out'} by filter ${n} (sample ${filter.sample}${query ? `, if: ${query}` : ''})`;
  }
  const fields = filter.allowFields ?? filter.blockFields;
  if (fields) {
    const named = fields.length > 5 ? `${fields.slice(0, 5).join(', ')} and ${fields.length - 5} more` : fields.join(', ');
    return `fields filtered by filter ${n} (${filter.allowFields ? 'allowFields' : 'blockFields'} ${named}${query ? `, if: ${query}` : ''})`;
  }
  return `dropped by filter ${n} (${when})`;
}

export const destinationFiltersSchema = z.array(destinationFilterSchema).max(MAX_FILTERS, `at most ${MAX_FILTERS} filters per destination`);

/** The longest a transform may run per call, and its default (ms). */
export const TRANSFORM_TIMEOUT = { min: 10, max: 30_000, default: 1_000 } as const;
/** A transform worker's heap (MB), and its default. */
export const TRANSFORM_MEMORY_MB = { min: 16, max: 1_024, default: 64 } as const;
/** The largest transform source (bytes of UTF-8) the inspector saves. */
export const MAX_TRANSFORM_SOURCE = 512 * 1024;

/**
 * A destination's transform: `file`, a JavaScript file (relative to the config file in a config;
 * absolute once loaded; the inspector's edits are kept in the data folder), with handlers named as
 * Segment's insert functions (onTrack, onIdentify, …, onEvent as the fallback).
 */
export const destinationTransformSchema = z.strictObject({
  file: z.string().min(1, 'must not be empty').max(4096),
  /** Per call, in ms: a call still running then is stopped and its delivery fails, saying so. */
  timeoutMs: z.number().int().min(TRANSFORM_TIMEOUT.min).max(TRANSFORM_TIMEOUT.max).default(TRANSFORM_TIMEOUT.default),
  /** Settings handed to every call (`{ settings }`): the function's own configuration. */
  settings: z.record(z.string(), z.unknown()).default({}),
});
export type DestinationTransform = z.infer<typeof destinationTransformSchema>;
