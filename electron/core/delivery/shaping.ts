import type { BodyRecipe, BodyShape } from '../../../shared/webhook-body.ts';
import type { TransformRunView } from '../../../shared/channels/deliveries.ts';
import type { Violation } from '../../../shared/tracking-plan.ts';
import type { Destination } from '../store/destinations-repo.ts';
import { applyFilters } from '../transforms/filters.ts';
import type { TransformCall, Transformer, TransformOutcome } from '../transforms/transformer.ts';
import { buildBody, type Shaped, type SignedBody } from './body.ts';

export type { Shaped } from './body.ts';

// What a destination's filters and transform (issue 28) make of a message before its body is built —
// the policy; body.ts builds and signs, the rounds (kinds/) send. Filters are pure and run wherever a
// body is built (the writer thread's prepare-bodies.ts, a round's own resolveBodies); a transform runs
// in the runtime's workers (transforms/), called by the engine's thread in batches.

/** What a destination's filters test besides the message itself (the query language's stored fields). */
export interface MessageFacts {
  source: string;
  origin?: string;
  violations?: number;
  plans?: string[];
}

/** The facts of a stored message: its source's name, its origin, the plans it breaks. */
export function factsOf(source: string, origin: string | undefined, violations: readonly Violation[] | null | undefined): MessageFacts {
  const list = violations ?? [];
  return { source, ...(origin ? { origin } : {}), violations: list.length, plans: [...new Set(list.map((v) => v.plan))] };
}

/** Whether the destination has filters or a transform (else its bodies are built as before: nothing to record). */
export function shapes(destination: Pick<Destination, 'filters' | 'transform'>): boolean {
  return Boolean(destination.filters?.length || destination.transform);
}

/**
 * What a body built ahead was shaped with, so a round uses it only while the destination's filters
 * and transform are still those (as sameRecipe for the shape and secret); null for neither. Cached per
 * destination object (the repo makes a new one at each settings change).
 */
const keys = new WeakMap<object, string | null>();
export function shapeKey(destination: Pick<Destination, 'filters' | 'transform'>): string | null {
  let key = keys.get(destination);
  if (key === undefined) {
    key = shapes(destination) ? JSON.stringify([destination.filters ?? [], destination.transform ?? null]) : null;
    keys.set(destination, key);
  }
  return key;
}

/** A message past the destination's filters: kept (its fields perhaps filtered, said in `shaping`), or dropped by the filter that decided. */
export type Filtered =
  /**
   * `asBody`: an edited replay's body given to the transform: each event it returns is sent as its body,
   * not shaped. `built`: the message's body built already (the writer thread's), sent when the transform
   * returns the event unchanged.
   */
  | { kind: 'kept'; message: Record<string, unknown>; shaping: string | null; asBody?: boolean; built?: SignedBody }
  | { kind: 'dropped'; reason: string }
  /** A filter that cannot run (its `if` does not parse: settings that skipped validation): the delivery fails, saying so. */
  | { kind: 'failed'; error: string };

/** The destination's filters on one normalized message (none: kept as it is). */
export function filterMessage(destination: Pick<Destination, 'filters'>, message: Record<string, unknown>, facts: MessageFacts): Filtered {
  const filters = destination.filters;
  if (!filters?.length) return { kind: 'kept', message, shaping: null };
  let decided;
  try {
    decided = applyFilters(filters, message, facts);
  } catch (error) {
    if ((error as Error).name !== 'FilterError') throw error;
    return { kind: 'failed', error: (error as Error).message };
  }
  if (decided.kind === 'dropped') return { kind: 'dropped', reason: decided.decision.text };
  const fields = decided.decisions.filter((d) => d.effect === 'fields').map((d) => d.text);
  return { kind: 'kept', message: decided.message, shaping: fields.length > 0 ? fields.join('; ') : null };
}

/** A message sent without a transform: its filtered message's one body. */
export function untransformed(recipe: BodyRecipe, filtered: Filtered): Shaped {
  if (filtered.kind !== 'kept') return unkept(filtered);
  return { kind: 'send', bodies: [buildBody(recipe, filtered.message)], shaping: filtered.shaping, run: null };
}

/** Output kept with every attempt up to this size (JSON bytes, about); bigger, only its size. */
const MAX_OUTPUT_CHARS = 64 * 1024;

/** A transform's run as an attempt and its delivery record it (TransformRunView, as JSON). */
export function runRecord(outcome: TransformOutcome): string {
  const { version, ms, logs } = outcome;
  const run: TransformRunView = { version, ms: Math.round(ms * 100) / 100, logs, outcome: 'unchanged' };
  if (outcome.kind === 'events') {
    run.outcome = outcome.changed ? 'changed' : 'unchanged';
    if (outcome.changed) {
      const text = JSON.stringify(outcome.events);
      if (text.length <= MAX_OUTPUT_CHARS) run.output = outcome.events;
      else run.outputBytes = Buffer.byteLength(text);
    }
  } else if (outcome.kind === 'dropped') Object.assign(run, { outcome: 'dropped', message: outcome.reason });
  else if (outcome.kind === 'retry') Object.assign(run, { outcome: 'retry', message: outcome.message });
  else Object.assign(run, { outcome: 'failed', message: outcome.message, ...(outcome.stack ? { stack: outcome.stack } : {}) });
  return JSON.stringify(run);
}

/**
 * A fan-out forwarded to a Tracking API: each event a message of its own, so each needs its own messageId —
 * Segment, and a Sluice upstream, keep the first of a messageId and drop the rest as duplicates (until
 * 2026-12-01 `{...event, event: 'Signed Up'}` beside the event reached upstream once, recorded delivered).
 * An event whose messageId an earlier one has gets `<id>_<its place>`; the same array when none repeats.
 */
export function distinctMessageIds(events: Record<string, unknown>[]): Record<string, unknown>[] {
  if (events.length < 2) return events;
  const seen = new Set<unknown>();
  let changed = false;
  const out = events.map((event, i) => {
    const id = event.messageId;
    if (typeof id !== 'string' || !seen.has(id)) {
      seen.add(id);
      return event;
    }
    changed = true;
    let distinct = `${id}_${i + 1}`;
    while (seen.has(distinct)) distinct = `${distinct}_`;
    seen.add(distinct);
    return { ...event, messageId: distinct };
  });
  return changed ? out : events;
}

/** What a transform failure code says, before the runtime's own message. */
const FAILURES: Record<string, string> = {
  error: 'the transform threw',
  timeout: 'the transform ran past its time limit and was stopped',
  memory: 'the transform ran out of memory and was stopped',
  'not-json': 'the transform returned what JSON cannot carry',
  load: 'the transform could not be loaded',
};

/**
 * What one transform call came to for a delivery: each event it returned built into a body with the
 * destination's recipe (a fan-out's in order), or skipped (dropped), retried (RetryError) or failed —
 * each saying which version ran. `filtering`: what the filters said before it (fields filtered), if anything.
 */
export function transformed(recipe: BodyRecipe, outcome: TransformOutcome, filtering: string | null, asBody = false, built?: SignedBody): Shaped {
  const run = runRecord(outcome);
  const version = `version ${outcome.version}`;
  switch (outcome.kind) {
    case 'events': {
      const count = outcome.events.length;
      const said = `transformed${count > 1 ? ` into ${count} events` : ''} (${version}${outcome.changed ? '' : ', unchanged'})`;
      const events = recipe.bodyShape === 'forward' ? distinctMessageIds(outcome.events) : outcome.events;
      const renamed = events === outcome.events ? '' : '; a messageId the events shared made distinct (_2, _3…)';
      const bodies = built && !outcome.changed && count === 1 ? [built] : events.map((event) => buildBody(recipe, asBody ? JSON.stringify(event) : event));
      return { kind: 'send', bodies, shaping: `${filtering ? `${filtering}; ${said}` : said}${renamed}`, run };
    }
    case 'dropped':
      return { kind: 'skip', reason: `dropped by transform: ${outcome.reason} (${version})`, run };
    case 'retry':
      return { kind: 'retry', error: `the transform asked to retry (RetryError: ${outcome.message})`, shaping: `transform asked to retry (${version})`, run };
    case 'failed': {
      // Not the code's doing: retried on the delivery's schedule (before 2026-12-01 it failed for good,
      // under a sentence that said "the next calls try again").
      if (outcome.runtime) {
        return { kind: 'retry', error: `the transform runtime could not run the call (${outcome.message}); retried on the delivery's schedule`, shaping: `transform not run (${version}): the runtime failed`, run };
      }
      // The runtime's sentences mostly say it already ("the transform ran past its 1000 ms limit…").
      const error = outcome.message.startsWith('the transform') ? outcome.message : `${FAILURES[outcome.code] ?? 'the transform failed'}: ${outcome.message}`;
      return { kind: 'fail', error, shaping: `transform failed (${version}): ${outcome.code}`, run };
    }
  }
}

/**
 * Runs the destination's transform on these filtered messages in one call to the runtime (a batch:
 * each has its own time limit), each outcome shaped for its delivery; a dropped message is skipped
 * without a call. Never rejects for the user's code (the runtime's contract): a runtime that fails as
 * a whole fails these deliveries' rounds, which are sent again.
 */
export async function transformAll(
  transformer: Transformer,
  destination: Pick<Destination, 'transform'>,
  recipe: BodyRecipe,
  filtered: readonly Filtered[],
): Promise<Shaped[]> {
  const transform = destination.transform!;
  const calls: TransformCall[] = [];
  const settings = transform.settings ?? {}; // one object for every call: the runtime serializes it once
  for (const f of filtered) if (f.kind === 'kept') calls.push({ event: f.message, settings });
  const outcomes = calls.length > 0 ? await transformer.run(transform.file, calls, { timeoutMs: transform.timeoutMs }) : [];
  let next = 0;
  return filtered.map((f) => (f.kind === 'kept' ? transformed(recipe, outcomes[next++]!, f.shaping, f.asBody, f.built) : unkept(f)));
}

/** A message the filters did not keep: skipped (dropped, sampled out), or failed (a filter that cannot run). */
function unkept(filtered: Exclude<Filtered, { kind: 'kept' }>): Shaped {
  if (filtered.kind === 'dropped') return { kind: 'skip', reason: filtered.reason, run: null };
  return { kind: 'fail', error: filtered.error, shaping: 'a filter failed', run: null };
}

/**
 * The bodies a round sent as its delivery records them. By reference to its message — the shape only,
 * no copy (store/delivery-bodies.ts builds it again when read) — when the one body is what the builder
 * makes of the stored message: its destination has no filter and no transform, the delivery no body of
 * its own. Else whole: one body as it is, a fan-out's as a JSON array of them, in order.
 */
export function recordedBody(
  bodies: readonly SignedBody[],
  delivery: { bodyOverride: string | null },
  destination: Pick<Destination, 'filters' | 'transform'>,
  recipe: BodyRecipe,
): { body: string | null; bodyShape?: BodyShape } {
  if (bodies.length === 1 && delivery.bodyOverride === null && shapeKey(destination) === null) return { body: null, bodyShape: recipe.bodyShape };
  return { body: bodies.length === 1 ? bodies[0]!.body : `[${bodies.map((b) => b.body).join(',')}]` };
}
