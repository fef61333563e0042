/**
 * `sluice plan diff OLD NEW [--json] [--allow-breaking]`: the changes between two plans (any format
 * Sluice reads, not necessarily the same one), each breaking or compatible (core/plans/plan-diff.ts),
 * grouped by event. Exit 1 on a breaking change unless --allow-breaking; 2 when a plan cannot be read.
 */
import { parseArgs } from 'node:util';
import { diffPlans, type PlanChange } from '../core/plans/plan-diff.ts';
import { UsageError } from './command-error.ts';
import { FORMAT_NAMES, readPlan, sayNotes } from './plan-input.ts';

/** Changes that concern the whole event or part: printed without a field. */
const WHOLE = new Set(['event-removed', 'event-added', 'part-removed', 'part-added']);

export async function planDiff(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean' }, 'allow-breaking': { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 2) {
    throw new UsageError(positionals.length < 2 ? `name the old plan and the new plan (got ${positionals.length === 0 ? 'none' : 'one'})` : `plan diff compares two plans (got ${positionals.length} files)`);
  }
  const [oldFile, newFile] = positionals as [string, string];
  const before = readPlan(oldFile);
  const after = readPlan(newFile);
  sayNotes(oldFile, before.notes);
  sayNotes(newFile, after.notes);
  const changes = diffPlans(before.plan, after.plan);
  const breaking = changes.filter((c) => c.kind === 'breaking').length;
  const compatible = changes.length - breaking;

  if (values.json) {
    // `notes`: what reading each file left out, and so did not compare.
    const out = { old: { file: oldFile, format: before.format, notes: before.notes }, new: { file: newFile, format: after.format, notes: after.notes }, breaking, compatible, changes };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } else {
    process.stdout.write(text(changes));
    const formats = before.format === after.format ? '' : ` (${FORMAT_NAMES[before.format]} and ${FORMAT_NAMES[after.format]})`;
    const counts = changes.length === 0 ? 'no changes' : `${plural(breaking, 'breaking change')}, ${plural(compatible, 'compatible change')}`;
    process.stdout.write(`${counts} from ${oldFile} to ${newFile}${formats}${breaking > 0 && values['allow-breaking'] ? ' (breaking allowed)' : ''}\n`);
  }
  return breaking > 0 && !values['allow-breaking'] ? 1 : 0;
}

/** One heading per event or part ('event "Order Completed"', 'identify'), then one line per change. */
function text(changes: PlanChange[]): string {
  const groups = new Map<string, PlanChange[]>();
  for (const change of changes) {
    const heading = change.part === 'event' ? `event ${JSON.stringify(change.event)}` : change.part;
    const list = groups.get(heading);
    if (list) list.push(change);
    else groups.set(heading, [change]);
  }
  let out = '';
  for (const [heading, list] of groups) {
    out += `${heading}\n`;
    for (const change of list) out += `  ${change.kind.padEnd(10)}  ${WHOLE.has(change.change) ? '' : `${change.path}: `}${change.text}\n`;
  }
  return out;
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
