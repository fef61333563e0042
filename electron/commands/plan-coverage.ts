/**
 * `sluice plan coverage --plan FILE [--data-dir DIR | --from FILE]`: which events of a tracking plan
 * were seen, seen with violations or never seen, and which unplanned events were seen (shared/
 * plan-coverage.ts) — after an end-to-end suite, in CI: `--fail-on-missing` exits 2 when a planned event
 * never fired. A relay's own plans are covered by its HTTP API (GET /api/v1/plans/coverage) and
 * sluice/testing; this command covers a plan file against
 * - a data folder's store, opened read-only (a relay may be serving from it): the counts the store
 *   keeps per event (event_counts), so it reads no message and is as quick at a million; the violations
 *   are those the relay recorded when it checked the messages, under its plan's name (`--plan-name`,
 *   else the one plan the store has violations of);
 * - a file of messages (an export, batches, pages of the HTTP API, a HAR: message-file.ts), each
 *   message checked against the plan here, as `sluice check` does.
 * Only what a plan checks counts: accepted messages of clients (not a rejected one, a duplicate, or one
 * Sluice made itself).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { coverageReport, coverageText, planCoverage, planStats, type CoverageReport } from '../../shared/plan-coverage.ts';
import { findRejection } from '../../shared/message-rules.ts';
import type { PlanEventStat, PlanStats, TrackingPlan } from '../../shared/tracking-plan.ts';
import { defaultDataDir } from '../core/config/data-dir.ts';
import type { CompiledPlan } from '../core/plans/compile-plan.ts';
import { databaseFile } from '../core/store/database.ts';
import { PlanStatsRepo } from '../core/store/plan-stats.ts';
import { isObject } from '../core/transfer/export-lines.ts';
import { ndjsonLine } from '../core/transfer/json-lines.ts';
import { InputError, storeFailureInput, UsageError } from './command-error.ts';
import { messageFile } from './message-file.ts';
import { checkInputFiles, STDIN_ARG, STDIN_NAME } from './ndjson.ts';
import { readPlan, sayNotes } from './plan-input.ts';
import { openStore, sourceId, sourceNames } from './read-store.ts';

const OPTIONS = {
  plan: { type: 'string' },
  'plan-name': { type: 'string' },
  'data-dir': { type: 'string' },
  from: { type: 'string' },
  source: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  'fail-on-missing': { type: 'boolean' },
} as const;

/** Exit status of --fail-on-missing when a planned event never fired. */
export const MISSING_EXIT = 2;

export async function coverage(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`plan coverage takes no file (got ${positionals.map((p) => JSON.stringify(p)).join(', ')}): give the plan with --plan FILE and messages with --from FILE`);
  for (const name of ['plan', 'plan-name', 'data-dir', 'from'] as const) if (values[name] === '') throw new UsageError(`--${name} needs a value`);
  if (values.source?.includes('')) throw new UsageError('--source needs a value');
  if (values.plan === undefined) throw new UsageError('--plan FILE is required: the tracking plan to cover (a running relay\'s own plans: GET /api/v1/plans/coverage)');
  if (values.from !== undefined && (values['data-dir'] !== undefined || values.source !== undefined || values['plan-name'] !== undefined)) {
    throw new UsageError('--from reads a file and checks its messages here: give it without --data-dir, --source and --plan-name');
  }
  if (values.from !== undefined) checkInputFiles([values.from]);
  const { plan, compiled, notes: planNotes } = readPlan(values.plan);
  sayNotes(values.plan, planNotes);
  const ownName = plan.name ?? path.basename(values.plan);

  let report: CoverageReport;
  const notes: string[] = [];
  if (values.from !== undefined) {
    const { stats, messages } = await fileStats(values.from, plan, compiled);
    report = coverageReport([planCoverage(ownName, stats)]);
    notes.push(`${messages.toLocaleString('en-US')} message${messages === 1 ? '' : 's'} in ${values.from === STDIN_ARG ? STDIN_NAME : values.from}, each checked against the plan`);
  } else {
    const dataDir = values['data-dir'] ?? defaultDataDir();
    const { stats, recordedAs, recorded, sources } = storeStats(dataDir, plan, ownName, values['plan-name'], values.source);
    report = coverageReport([planCoverage(recordedAs ?? ownName, stats)]);
    notes.push(recordedAs !== null ? `violations as the relay recorded them for its plan ${JSON.stringify(recordedAs)}` : 'the store holds no violations of any plan: none are counted');
    // A name the store has no violation of may be a typo (or a plan that nothing broke): said, not guessed.
    if (recordedAs !== null && !recorded.includes(recordedAs)) {
      notes.push(`no violations are recorded under ${JSON.stringify(recordedAs)}${recorded.length > 0 ? ` (the store has violations of ${recorded.map((n) => JSON.stringify(n)).join(', ')})` : ''}: check --plan-name if some were expected`);
    }
    // The relay's plan checks the sources its config names (trackingPlans[].sources): another source's
    // events do not count there, and here only --source leaves them out.
    if (values.source === undefined && sources.length > 1) {
      notes.push(`counted over all ${sources.length} sources of the store (${sources.map((n) => JSON.stringify(n)).join(', ')}); a plan that checks some of them: --source NAME for each`);
    }
  }
  process.stdout.write(values.json ? `${ndjsonLine(report)}\n` : coverageText(report));
  if (!values.json) for (const note of notes) process.stderr.write(`note: ${note}\n`);
  return values['fail-on-missing'] && report.missing > 0 ? MISSING_EXIT : 0;
}

/**
 * The store's kept counts (event_counts) for the plan: seen per event among accepted messages of
 * clients, and the violations recorded under the relay's name for the plan. Which name: `--plan-name`;
 * else the only plan the store has violations of; else, of several, the plan file's own name.
 */
function storeStats(
  dataDir: string,
  plan: TrackingPlan,
  ownName: string,
  planName: string | undefined,
  source: string[] | undefined,
): { stats: PlanStats; recordedAs: string | null; recorded: string[]; sources: string[] } {
  const { db, file } = openStore(dataDir);
  try {
    const repo = new PlanStatsRepo(db);
    // Each --source named (before 2026-12-01 the option took one: of several, the last alone counted).
    const sourceIds = source !== undefined ? source.map((name) => sourceId(db, name, dataDir)) : null;
    const recorded = repo.recordedPlans();
    let recordedAs: string | null = planName ?? null;
    if (recordedAs === null && recorded.length === 1) recordedAs = recorded[0]!;
    if (recordedAs === null && recorded.length > 1) {
      if (!recorded.includes(ownName)) {
        throw new InputError(`the store in ${dataDir} holds violations of the plans ${recorded.map((n) => JSON.stringify(n)).join(', ')}: say which one is ${JSON.stringify(ownName)} with --plan-name NAME (its trackingPlans[].name in the relay's config)`);
      }
      recordedAs = ownName;
    }
    return { stats: repo.stats(recordedAs ?? '', plan, sourceIds), recordedAs, recorded, sources: sourceNames(db).map((s) => s.name) };
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw storeFailureInput(error, file) ?? new InputError(`cannot read the store ${databaseFile(dataDir)}: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

/** Counts per event of the file's messages, each checked against the plan (unplanned events allowed: they are listed apart). */
async function fileStats(file: string, plan: TrackingPlan, compiled: CompiledPlan): Promise<{ stats: PlanStats; messages: number }> {
  const counts = new Map<string, PlanEventStat>();
  let messages = 0;
  let unreadable = 0;
  const firstErrors: string[] = [];
  for await (const parsed of messageFile(file, file === STDIN_ARG ? STDIN_NAME : file)) {
    unreadable += parsed.errors.length;
    for (const { where, error } of parsed.errors) if (firstErrors.length < 3) firstErrors.push(`${where}: ${error}`);
    for (const { message, wasRejected, wasDuplicate } of parsed.send) {
      // What ingestion would refuse is never stored, so never counted there: nor here.
      if (wasRejected || wasDuplicate || !isObject(message) || findRejection(message) !== null) continue;
      const type = message.type as string;
      const event = type === 'track' ? (message.event as string) : null;
      const key = `${type}\u0000${event ?? ''}`;
      let stat = counts.get(key);
      if (!stat) counts.set(key, (stat = { type, event, seen: 0, violated: 0, lastSeenAt: null }));
      stat.seen++;
      messages++;
      if (compiled.check({ type, event: message.event, properties: message.properties, traits: message.traits, context: message.context }, 'allow').length > 0) stat.violated++;
    }
  }
  if (unreadable > 0) process.stderr.write(`sluice: warning: ${unreadable.toLocaleString('en-US')} ${unreadable === 1 ? 'line or entry' : 'lines or entries'} of ${file === STDIN_ARG ? STDIN_NAME : file} could not be read and ${unreadable === 1 ? 'was' : 'were'} skipped (${firstErrors.join('; ')})\n`);
  return { stats: planStats(plan, counts.values()), messages };
}
