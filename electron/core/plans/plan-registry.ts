// The tracking plans at work: the config's entries, each plan loaded (from its file, or given inline),
// compiled once to find its errors, watched for changes, and handed to the store's writer thread,
// which checks every message with it (plan-checks.ts). A plan file that stops loading keeps the last
// version that loaded in use, with the error shown; at start, a plan that cannot be used stops Sluice.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { JsonSchema, MixedField, TrackingPlan, TrackingPlanConfig, TrackingPlanView, Violation } from '../../../shared/tracking-plan.ts';
import type { EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import { ConfigError } from '../config/load-config.ts';
import { OperationError } from '../operation-error.ts';
import type { DestinationsRepo } from '../store/destinations-repo.ts';
import type { PlanStatsRepo } from '../store/plan-stats.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import type { CheckedMessage, CompiledPlan, compilePlan } from './compile-plan.ts';
import { inferExamples } from './infer-schema.ts';
import { loadPlanFile, writePlanFile, type PlanFormat } from './plan-document.ts';
import type { PlanRule } from '../writer/protocol.ts';

export interface PlanRegistryOptions {
  configs: TrackingPlanConfig[];
  /** The config file's path, named when a plan cannot be used at start (default "--config"). */
  configFile?: string | undefined;
  sources: SourcesRepo;
  destinations: DestinationsRepo;
  writer: StoreWriter;
  bus: EventBus;
  clock: Clock;
  stats: PlanStatsRepo;
}

interface Entry {
  config: TrackingPlanConfig;
  /** Absolute; null for an inline plan. */
  file: string | null;
  format: PlanFormat | null;
  plan: TrackingPlan | null;
  version: string | null;
  loadedAt: number | null;
  error: string | null;
}

/** Waits this long after a change to a plan file before reading it (editors write in several steps). */
const SETTLE_MS = 100;

export class TrackingPlans {
  readonly #o: PlanRegistryOptions;
  readonly #entries: Entry[];
  readonly #watchers: fs.FSWatcher[] = [];
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /**
   * Plans compiled for check() (the writer thread holds its own), by name and version: every plan in
   * use stays compiled (a check of another source's plans does not drop them); a version no longer
   * in use is dropped. Compiling is ajv's work on the main thread, so it is done once per version.
   */
  readonly #checkers = new Map<string, CompiledPlan>();
  /** compile-plan.ts's, loaded at start only when there is a plan (ajv is a tenth of a second to load). */
  #compile: typeof compilePlan = () => {
    throw new Error('the plan checker is not loaded');
  };

  constructor(options: PlanRegistryOptions) {
    this.#o = options;
    this.#entries = options.configs.map((config) => ({
      config,
      file: config.file !== undefined ? path.resolve(config.file) : null,
      format: config.file !== undefined ? null : 'sluice',
      plan: null,
      version: null,
      loadedAt: null,
      error: null,
    }));
  }

  /**
   * Loads every plan, writing and sending nothing: a plan that cannot be used is a ConfigError naming
   * it. `sourceNames`: the sources there will be once the config file's are stored — a start refused
   * here has stored nothing of the file.
   */
  async load(sourceNames: ReadonlySet<string>): Promise<void> {
    if (this.#entries.length > 0) this.#compile = (await import('./compile-plan.ts')).compilePlan;
    const problems: string[] = [];
    this.#entries.forEach((entry, i) => {
      this.#load(entry);
      if (entry.error !== null) problems.push(`trackingPlans[${i}] ("${entry.config.name}"): ${entry.error}`);
      entry.config.sources?.forEach((name, j) => {
        if (!sourceNames.has(name)) problems.push(`trackingPlans[${i}].sources[${j}]: unknown source "${name}"`);
      });
    });
    if (problems.length > 0) throw new ConfigError(this.#o.configFile ?? '--config', problems);
  }

  /** After load() and once the sources are stored: starts watching the plans' files and sends the plans to the writer. */
  start(): void {
    this.#watch();
    this.apply();
  }

  /** Sends the plans in use to the writer (again after sources or destinations changed: ids by name). */
  apply(): void {
    const sources = this.#o.sources.list();
    const sourceNames = Object.fromEntries(sources.map((s) => [s.id, s.name]));
    const rules: PlanRule[] = this.#entries.flatMap(({ config, plan, version }) => {
      if (!plan || !version) return [];
      const forwardTo = config.forwardViolationsTo !== undefined ? (this.#o.destinations.list().find((d) => d.name === config.forwardViolationsTo)?.id ?? null) : null;
      return [{
        name: config.name,
        version,
        plan,
        sourceIds: config.sources ? sources.filter((s) => config.sources!.includes(s.name)).map((s) => s.id) : null,
        unplanned: config.unplanned,
        violations: config.violations,
        forwardTo,
        sourceNames,
      }];
    });
    this.#o.writer.setPlans(rules);
  }

  views(): TrackingPlanView[] {
    return this.#entries.map(viewOf);
  }

  view(name: string): TrackingPlanView {
    return viewOf(this.#entry(name));
  }

  /** The source ids a plan checks; null: every source. */
  sourceIds(name: string): number[] | null {
    const names = this.#entry(name).config.sources;
    return names ? this.#o.sources.list().filter((s) => names.includes(s.name)).map((s) => s.id) : null;
  }

  stats(name: string) {
    const entry = this.#entry(name);
    return this.#o.stats.stats(name, entry.plan ?? { events: {} }, this.sourceIds(name));
  }

  /**
   * Adds an event (or a type's schema) to the plan, inferred from the newest stored examples, and
   * writes the plan file (in Sluice's format). A plan read from a vendor's format is not rewritten:
   * Sluice would have to write that vendor's format back, so it says how to move to Sluice's.
   */
  addEvent(
    name: string,
    type: 'track' | 'identify' | 'group' | 'page' | 'screen',
    event: string | undefined,
    /** `dryRun`: infer only, write nothing; `schema`: add this one (a dry run's, confirmed) instead of inferring. */
    options: { dryRun?: boolean | undefined; schema?: JsonSchema | undefined } = {},
  ): { plan: TrackingPlanView; schema: JsonSchema; examples: number; mixed: MixedField[] } {
    const entry = this.#entry(name);
    if (type === 'track' && !event) throw new OperationError('invalid_request', 'adding a track event to a plan needs its name (event)');
    if (!entry.plan) throw new OperationError('plan_not_loaded', `the tracking plan "${name}" has not loaded (${entry.error ?? 'no plan'}); fix it first`);
    if (entry.error !== null) {
      throw new OperationError('plan_not_loaded', `the tracking plan "${name}" did not load its last edit (${entry.error}); fix the file first, so that adding an event does not write over it`);
    }
    if (entry.file !== null && entry.format !== 'sluice') {
      throw new OperationError(
        'plan_read_only',
        `"${name}" is read from a ${entry.format} export (${entry.file}); Sluice does not write that format back. Convert it with \`sluice plan import ${entry.file} --out plan.json\` and point the config at plan.json`,
      );
    }
    let schema = options.schema;
    let examples = 0;
    let mixed: MixedField[] = [];
    if (schema === undefined) {
      const stored = this.#o.stats.examples(type, type === 'track' ? event! : null, this.sourceIds(name));
      if (stored.length === 0) throw new OperationError('no_examples', `no stored ${type === 'track' ? `"${event}" event` : type} of the plan's sources to infer a schema from`);
      // As `sluice plan infer` infers: numbers as number, a field of mixed types left untyped and named.
      const root = type === 'identify' || type === 'group' ? 'traits' : 'properties';
      ({ schema, mixed } = inferExamples(stored, {}, { type, event: type === 'track' ? event! : null, root }));
      examples = stored.length;
    }
    const plan: TrackingPlan = type === 'track' ? { ...entry.plan, events: { ...entry.plan.events, [event!]: schema } } : { ...entry.plan, [type]: schema };
    try {
      this.#compile(name, plan); // an inferred schema always compiles; a given one is checked before anything is written
    } catch (error) {
      throw new OperationError('invalid_schema', `the schema does not compile (${(error as Error).message}); nothing was written`);
    }
    if (options.dryRun) return { plan: viewOf(entry), schema, examples, mixed };
    if (entry.file !== null) {
      // The file as it is now: an edit saved since the last load (or still settling) is not written over.
      let current: string | null;
      try {
        current = loadPlanFile(entry.file).version;
      } catch (error) {
        current = `unreadable: ${(error as Error).message}`;
      }
      if (current !== entry.version) {
        throw new OperationError('plan_changed', `${entry.file} changed since Sluice last read it; wait for it to load (or fix it), then add the event again`);
      }
      try {
        writePlanFile(entry.file, plan);
      } catch (error) {
        throw new OperationError('plan_write_failed', `could not write ${entry.file}: ${(error as Error).message}`);
      }
      this.#load(entry); // now, not when the watcher notices
    } else {
      this.#use(entry, plan, 'sluice', versionOf(JSON.stringify(plan)));
    }
    this.apply();
    this.#o.bus.emit('plans.changed', null);
    return { plan: viewOf(entry), schema, examples, mixed };
  }

  /**
   * A message's violations of the plans in use that check `source` (every plan when no source is
   * named), without storing it: what ingestion would record (plans.check, `sluice mcp`'s check_event).
   */
  check(message: CheckedMessage, source: string | undefined): { plans: string[]; violations: Violation[] } {
    if (source !== undefined && !this.#o.sources.list().some((s) => s.name === source)) {
      throw new OperationError('not_found', `there is no source "${source}"; the sources are ${this.#o.sources.list().map((s) => `"${s.name}"`).join(', ')}`);
    }
    const plans: string[] = [];
    const violations: Violation[] = [];
    const inUse = new Set<string>();
    for (const { config, plan, version } of this.#entries) {
      if (!plan || !version) continue;
      const key = `${config.name}\u0000${version}`;
      inUse.add(key);
      if (source !== undefined && config.sources && !config.sources.includes(source)) continue;
      let checker = this.#checkers.get(key);
      if (!checker) this.#checkers.set(key, (checker = this.#compile(config.name, plan)));
      plans.push(config.name);
      violations.push(...checker.check(message, config.unplanned));
    }
    for (const key of this.#checkers.keys()) if (!inUse.has(key)) this.#checkers.delete(key); // a version no longer loaded
    return { plans, violations };
  }

  close(): void {
    for (const watcher of this.#watchers) watcher.close();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#watchers.length = 0;
  }

  #entry(name: string): Entry {
    const entry = this.#entries.find((e) => e.config.name === name);
    if (!entry) throw new OperationError('not_found', `there is no tracking plan "${name}"`);
    return entry;
  }

  /** Reads and compiles the entry's plan; on failure keeps the version in use and records why. */
  #load(entry: Entry): void {
    try {
      if (entry.file === null) {
        const plan = entry.plan ?? entry.config.plan!;
        this.#compile(entry.config.name, plan);
        if (!entry.plan) this.#use(entry, plan, 'sluice', versionOf(JSON.stringify(plan)));
        return;
      }
      const loaded = loadPlanFile(entry.file);
      if (loaded.version === entry.version) {
        entry.error = null;
        return;
      }
      this.#compile(entry.config.name, loaded.plan);
      this.#use(entry, loaded.plan, loaded.format, loaded.version);
    } catch (error) {
      entry.error = (error as Error).message;
    }
  }

  #use(entry: Entry, plan: TrackingPlan, format: PlanFormat, version: string): void {
    Object.assign(entry, { plan, format, version, loadedAt: this.#o.clock.now(), error: null });
  }

  /** Watches each plan file's folder (an editor's save often replaces the file, which a watch on the file itself would lose). */
  #watch(): void {
    const folders = new Set(this.#entries.flatMap((e) => (e.file ? [path.dirname(e.file)] : [])));
    for (const folder of folders) {
      try {
        const watcher = fs.watch(folder, { persistent: false }, (_event, changed) => {
          for (const entry of this.#entries) {
            if (entry.file && path.dirname(entry.file) === folder && (!changed || changed === path.basename(entry.file))) this.#changed(entry);
          }
        });
        watcher.on('error', (error) => console.error(`sluice: stopped watching ${folder} for plan changes: ${error.message}`));
        this.#watchers.push(watcher);
      } catch (error) {
        console.error(`sluice: cannot watch ${folder} for plan changes (${(error as Error).message}); restart Sluice after editing a plan`);
      }
    }
  }

  #changed(entry: Entry): void {
    const file = entry.file!;
    clearTimeout(this.#timers.get(file));
    this.#timers.set(
      file,
      setTimeout(() => {
        this.#timers.delete(file);
        const before = { version: entry.version, error: entry.error };
        this.#load(entry);
        if (entry.version === before.version && entry.error === before.error) return;
        if (entry.error !== null) console.error(`sluice: tracking plan "${entry.config.name}" not reloaded, the version loaded before stays in use: ${entry.error}`);
        else console.error(`sluice: tracking plan "${entry.config.name}" reloaded from ${file} (version ${entry.version})`);
        this.apply();
        this.#o.bus.emit('plans.changed', null);
      }, SETTLE_MS).unref(),
    );
  }
}

function viewOf(entry: Entry): TrackingPlanView {
  const { config } = entry;
  return {
    name: config.name,
    file: entry.file,
    format: entry.format,
    sources: config.sources ?? null,
    unplanned: config.unplanned,
    violations: config.violations,
    forwardViolationsTo: config.forwardViolationsTo ?? null,
    version: entry.version,
    loadedAt: entry.loadedAt,
    error: entry.error,
    plan: entry.plan,
  };
}

function versionOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}
