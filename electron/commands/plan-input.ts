/**
 * A plan file named on the command line, read (in any format plan-document.ts recognises) and
 * compiled, or an InputError whose sentences say what is wrong with it: a plan a person wrote is a
 * user's input, never a reason for a stack trace.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TrackingPlan } from '../../shared/tracking-plan.ts';
import { compilePlan, type CompiledPlan } from '../core/plans/compile-plan.ts';
import { loadPlanFile, type PlanFormat } from '../core/plans/plan-document.ts';
import { PlanError } from '../core/plans/plan-error.ts';
import { InputError } from './command-error.ts';
import { fileProblem } from './ndjson.ts';

export interface PlanInput {
  plan: TrackingPlan;
  format: PlanFormat;
  compiled: CompiledPlan;
  /** What converting a vendor's export left out or read differently (plan-document.ts). */
  notes: string[];
}

/** How the commands name a format in what they print. */
export const FORMAT_NAMES: Record<PlanFormat, string> = {
  sluice: "Sluice's format",
  segment: 'a Segment Protocols export',
  rudderstack: 'a RudderStack export',
};

export function readPlan(file: string): PlanInput {
  // Checked here so that a missing plan reads as such, whatever loadPlanFile's own wording would be.
  if (!fs.existsSync(file)) throw new InputError(`cannot read the plan ${file}: there is no such file`);
  if (fs.statSync(file).isDirectory()) throw new InputError(`cannot read the plan ${file}: it is a folder, not a file`);
  try {
    const { plan, format, notes } = loadPlanFile(file);
    // The plan's own name if it has one: violations quote it ('"X" is not in the plan "checkout"').
    const compiled = compilePlan(plan.name ?? path.basename(file), plan);
    return { plan, format, compiled, notes };
  } catch (error) {
    if (error instanceof PlanError) {
      throw new InputError(`the plan ${file} cannot be used:\n${error.problems.map((p) => `  ${p}`).join('\n')}`);
    }
    if (error instanceof SyntaxError) throw new InputError(`the plan ${file} is not JSON: ${error.message}`);
    if ((error as NodeJS.ErrnoException).code !== undefined) throw new InputError(fileProblem(file, error).replace(/^cannot read /, 'cannot read the plan '));
    throw error;
  }
}

/**
 * Says on stderr what reading a vendor's plan left out (plan import's notes): a command that checks,
 * covers or compares with the plan does not see those rules either (until 2026-12-01 only plan import
 * and codegen said so, and plan diff answered "no changes" for a change in a part it had left out).
 */
export function sayNotes(file: string, notes: readonly string[]): void {
  for (const note of notes) process.stderr.write(`note: ${file}: ${note}\n`);
}
