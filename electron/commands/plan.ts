/**
 * `sluice plan infer` and `sluice plan import`: a plan in Sluice's format, from what a relay stored
 * or a file of messages (a first draft to edit, rather than a blank page) or from a Segment Protocols or RudderStack export
 * (so that it can be edited, and `plans.addEvent` can write to it). The plan goes to stdout, or with
 * --out to a file; what was done is one line on stderr, so stdout stays the plan alone.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { TrackingPlan } from '../../shared/tracking-plan.ts';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { compilePlan } from '../core/plans/compile-plan.ts';
import { inferPlan } from '../core/plans/infer-schema.ts';
import { writePlanFile } from '../core/plans/plan-document.ts';
import { PlanError } from '../core/plans/plan-error.ts';
import { InputError, UsageError } from './command-error.ts';
import { FORMAT_NAMES, readPlan } from './plan-input.ts';
import { inferInput, mixedLine } from './infer-input.ts';

/** Examples per event, as the inspector's "add to plan" takes (plans.addEvent). */
const DEFAULT_EXAMPLES = 200;
const MAX_EXAMPLES = 100_000;

const OUT_OPTIONS = {
  out: { type: 'string' },
  force: { type: 'boolean' },
} as const;

export async function infer(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...OUT_OPTIONS, 'data-dir': { type: 'string' }, source: { type: 'string' }, examples: { type: 'string' }, from: { type: 'string' }, integers: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`plan infer reads the store (or --from FILE) and takes no file (got ${positionals.map((p) => JSON.stringify(p)).join(', ')}); write the plan with --out FILE`);
  const perEvent = examplesOption(values.examples);
  checkOut(values.out, values.force);
  if (values.source === '') throw new UsageError('--source needs a source name');
  if (values.from === '') throw new UsageError('--from needs a file (an export, NDJSON messages or batches, or a HAR; - reads stdin)');
  if (values.from !== undefined && (values.source !== undefined || values['data-dir'] !== undefined)) throw new UsageError('--from reads a file: give it without --data-dir and --source');

  const { messages, from, notes } = await inferInput(values.from, values['data-dir'] ?? defaultDataDir(), values.source, perEvent);
  const { plan, mixed } = inferPlan(messages, { integers: values.integers });
  compilePlan('inferred', plan); // an inferred plan always compiles; a bug here must not write a plan nobody can load
  writeOut(plan, values.out);
  process.stderr.write(`${values.out !== undefined ? `wrote ${values.out}:` : 'inferred'} ${contents(plan)} (from ${messages.length.toLocaleString('en-US')} message${messages.length === 1 ? '' : 's'}${from})\n`);
  for (const note of notes) process.stderr.write(`  note: ${note}\n`);
  for (const field of mixed) process.stderr.write(`${mixedLine(field)}\n`);
  return 0;
}

export async function importPlan(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: OUT_OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length !== 1) {
    throw new UsageError(positionals.length === 0 ? 'name the plan file to import' : `plan import takes one file (got ${positionals.length}); write the plan with --out FILE`);
  }
  const [file] = positionals as [string];
  checkOut(values.out, values.force);
  const { plan, format, notes } = readPlan(file);
  writeOut(plan, values.out);
  process.stderr.write(`recognised ${FORMAT_NAMES[format]} in ${file}: ${contents(plan)}${values.out !== undefined ? `; wrote ${values.out}` : ''}\n`);
  for (const note of notes) process.stderr.write(`  note: ${note}\n`);
  return 0;
}

function examplesOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_EXAMPLES;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_EXAMPLES)) throw new UsageError(`--examples must be a whole number from 1 to ${MAX_EXAMPLES.toLocaleString('en-US')}, not "${value}"`);
  return n;
}

/** Refuses to replace a file unless told: a plan is hand-edited, and losing the edits to a re-run would hurt. */
function checkOut(out: string | undefined, force: boolean | undefined): void {
  if (out === undefined) return;
  if (out === '') throw new UsageError('--out needs a file name');
  if (fs.existsSync(out) && !force) throw new InputError(`${out} already exists: give --force to replace it`);
}

/** Writes the plan to `out`, or to stdout. */
function writeOut(plan: TrackingPlan, out: string | undefined): void {
  if (out === undefined) {
    // The same text writePlanFile writes, so that `> plan.json` and --out give the same file.
    process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
    return;
  }
  try {
    writePlanFile(out, plan);
  } catch (error) {
    if (error instanceof PlanError) throw new InputError(`cannot write ${out}: ${error.problems.join('; ')}`);
    // Node's own wording names the temporary file writePlanFile writes first, which would only confuse.
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'its folder does not exist' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message;
    throw new InputError(`cannot write ${out}: ${why}`);
  }
}

/** '12 events, identify, page': what a plan describes. */
function contents(plan: TrackingPlan): string {
  const events = Object.keys(plan.events).length;
  const parts = (['identify', 'group', 'page', 'screen', 'context'] as const).filter((key) => plan[key] !== undefined);
  return [`${events.toLocaleString('en-US')} event${events === 1 ? '' : 's'}`, ...parts].join(', ');
}
