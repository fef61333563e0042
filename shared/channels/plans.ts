/**
 * The contract's tracking-plan channels (`plans.*`): the plans in use (shared/tracking-plan.ts), their
 * figures, an event added from stored examples, a re-check. Composed into shared/contract.ts.
 */
import { z } from 'zod';
import type { CoverageReport } from '../plan-coverage.ts';
import { jsonSchema, type JsonSchema, type MixedField, type PlanStats, type RecheckProgress, type TrackingPlanView, type Violation } from '../tracking-plan.ts';

export const planRequestSchemas = {
  /** The plans in use, with their files and load errors. */
  'plans.list': z.strictObject({}),
  /** How often each planned and unplanned event was seen, and violated, among stored messages of the plan's sources. */
  'plans.stats': z.strictObject({ name: z.string().min(1).max(100) }),
  /**
   * Coverage of the plans in use (all of them, or the one named): each planned event seen, seen with
   * violations or never seen, and the unplanned events seen, among stored messages of each plan's
   * sources, from the counts the store keeps (shared/plan-coverage.ts).
   */
  'plans.coverage': z.strictObject({ name: z.string().min(1).max(100).optional() }),
  /**
   * Adds an event to the plan, its schema inferred from stored examples (the newest 200), and writes
   * the plan file. `type` track needs `event`; identify, group, page and screen set that type's schema.
   * `dryRun`: only infers it, writing nothing (what the inspector shows before it asks); `schema`: the
   * schema to add instead of inferring one — the one a dry run showed, so what is written is what was
   * confirmed (its `examples` is then 0).
   */
  'plans.addEvent': z.strictObject({
    name: z.string().min(1).max(100),
    type: z.enum(['track', 'identify', 'group', 'page', 'screen']),
    event: z.string().min(1).max(1024).optional(),
    dryRun: z.boolean().optional(),
    schema: jsonSchema.refine((schema) => JSON.stringify(schema).length <= 256 * 1024, 'must be at most 256 KB of JSON').optional(),
  }),
  /**
   * Checks stored messages again against the plans in use and records their violations (deliveries
   * already made are not changed: nothing is blocked or released after the fact). Progress comes as
   * `plans.recheck` events; one re-check runs at a time.
   */
  'plans.recheck': z.strictObject({}),
  /**
   * A message's violations of the plans in use, nothing stored: `source` (a source's name) picks the
   * plans that check that source; without it, every plan checks it.
   */
  'plans.check': z.strictObject({
    message: z.looseObject({ type: z.enum(['track', 'identify', 'group', 'page', 'screen', 'alias']) }),
    source: z.string().min(1).max(100).optional(),
  }),
} as const;

export interface PlanResponses {
  /** `recheck`: the re-check under way, if any (a page opened meanwhile shows its progress at once). */
  'plans.list': { plans: TrackingPlanView[]; recheck: RecheckProgress | null };
  'plans.stats': PlanStats;
  'plans.coverage': CoverageReport;
  /**
   * The schema added (a dry run's: that would be), how many stored examples it was inferred from (0 when
   * it was given) and the fields whose examples had more than one type, left without one (as `sluice plan infer` does).
   */
  'plans.addEvent': { plan: TrackingPlanView; schema: JsonSchema; examples: number; mixed: MixedField[] };
  'plans.recheck': RecheckProgress;
  /** `plans`: the plans that checked it (their names); `violations`: empty when it conforms to them all. */
  'plans.check': { plans: string[]; violations: Violation[] };
}
