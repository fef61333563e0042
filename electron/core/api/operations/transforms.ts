// The transform operations (`transforms.*` of shared/channels/transforms.ts): what a destination's
// filters and transform would make of a stored message (the inspector's "Try on this message" and the
// editors' preview; nothing is sent or stored), and a destination's transform read and saved in the
// data folder.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { FilterDecision, TransformSource, TransformTry } from '../../../../shared/channels/transforms.ts';
import { TRANSFORM_TIMEOUT } from '../../../../shared/destination-filters.ts';
import type { ParsedRequestOf } from '../../../../shared/contract.ts';
import { factsOf, filterMessage, transformed, untransformed } from '../../delivery/shaping.ts';
import { kindOf } from '../../delivery/kinds/index.ts';
import { OperationError } from '../../operation-error.ts';
import type { Destination } from '../../store/destinations-repo.ts';
import { applyFilters } from '../../transforms/filters.ts';
import { checkTransformSource } from '../../transforms/index.ts';
import { versionOf } from '../../transforms/source-check.ts';
import type { TransformOutcome } from '../../transforms/transformer.ts';
import { writeWholeFile } from '../../whole-file.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

type TransformChannel = 'transforms.try' | 'transforms.get' | 'transforms.save';

/** How long a save waits for the runtime to load the file it wrote (its watch settles in ~100 ms). */
const RELOAD_WAIT_MS = 2_000;

/** Where the inspector keeps the transforms it saves: `<data>/transforms/destination-<id>.js`. */
export function transformsFolder(dataDir: string): string {
  return path.join(dataDir, 'transforms');
}

export function transformOperations(p: OperationContext): OperationsOf<TransformChannel> {
  return {
    'transforms.try': (request) => tryOnMessage(p, request),
    'transforms.get': ({ destinationId }) => transformSource(p, destinationOf(p, destinationId)),
    'transforms.save': ({ destinationId, source }) => saveTransform(p, destinationOf(p, destinationId), source),
  };
}

function destinationOf(p: OperationContext, id: number): Destination {
  const destination = p.destinations.byId(id);
  if (!destination) throw new OperationError('not_found', `there is no destination ${id}; it may have been deleted — reload the list`);
  return destination;
}

/**
 * The destination's filters (or the unsaved ones given), then its transform (saved, the unsaved
 * `source`, or none when `source` is null) on the stored message, shaped as a delivery shapes it
 * (delivery/shaping.ts: the same filtering, the same bodies by the one body builder, the same words).
 * Nothing is sent or stored.
 */
async function tryOnMessage(p: OperationContext, request: ParsedRequestOf<'transforms.try'>): Promise<TransformTry> {
  const destination = destinationOf(p, request.destinationId);
  const record = p.messages.get(request.messageId);
  if (!record) throw new OperationError('not_found', `there is no message ${request.messageId}; it may have been pruned or cleared — choose another`);
  if (!record.message) {
    throw new OperationError('not_deliverable', `message ${request.messageId} was rejected at ingestion and is never delivered; choose an accepted message`);
  }
  const input = record.message;
  const shaping = { filters: request.filters ?? destination.filters ?? [] };
  const facts = factsOf(p.sources.byId(record.sourceId)?.name ?? '', record.origin, record.violationList);
  const filtered = filterMessage(shaping, input, facts);
  if (filtered.kind === 'failed') throw new OperationError('invalid_filters', filtered.error);
  // Each filter that applied, for the view (filterMessage keeps only what the delivery records).
  const outcome = applyFilters(shaping.filters, input, facts);
  const filters: FilterDecision[] = outcome.decisions;
  const recipe = kindOf(destination).recipe(destination);
  if (filtered.kind === 'dropped') return { input, filters, transform: null, bodies: [], summary: filtered.reason };

  const settings = destination.transform?.settings ?? {};
  const call = [{ event: filtered.message, settings }];
  const options = { timeoutMs: destination.transform?.timeoutMs ?? TRANSFORM_TIMEOUT.default };
  let ran: TransformOutcome | undefined;
  if (typeof request.source === 'string') [ran] = await p.transformer().runSource(request.source, call, options);
  else if (request.source === undefined && destination.transform) [ran] = await p.transformer().run(destination.transform.file, call, options);
  const shaped = ran ? transformed(recipe, ran, filtered.shaping) : untransformed(recipe, filtered);
  const bodies = shaped.kind === 'send' ? shaped.bodies.map((b) => b.body) : [];
  const summary =
    shaped.kind === 'send' ? (shaped.shaping ?? 'sent as it is: no filter applied, no transform') : shaped.kind === 'skip' ? shaped.reason : shaped.error;
  return { input, filters, transform: ran ? runView(ran) : null, bodies, summary };
}

/** A transform call's outcome as the preview shows it. */
function runView(outcome: TransformOutcome): NonNullable<TransformTry['transform']> {
  const { version, ms, logs } = outcome;
  switch (outcome.kind) {
    case 'events':
      return { version, ms, logs, outcome: outcome.changed ? 'changed' : 'unchanged', output: outcome.events };
    case 'dropped':
      return { version, ms, logs, outcome: 'dropped', output: [], message: outcome.reason };
    case 'retry':
      return { version, ms, logs, outcome: 'retry', output: [], message: outcome.message };
    case 'failed':
      return { version, ms, logs, outcome: 'failed', output: [], message: outcome.message, ...(outcome.stack ? { stack: outcome.stack } : {}) };
  }
}

/** The destination's transform: its file, the file's text (what an editor opens), the version in use and why the text is not in use. */
function transformSource(p: OperationContext, destination: Destination): TransformSource {
  const file = destination.transform?.file ?? null;
  if (file === null) return { file: null, source: null, version: null, error: null, inDataFolder: false };
  const loaded = p.transformer().loaded(file);
  let source: string | null = null;
  let unread: string | null = null;
  try {
    source = fs.readFileSync(file, 'utf8');
  } catch (error) {
    unread = `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); save a transform here to replace it`;
  }
  return { file, source, version: loaded.version || null, error: loaded.error ?? unread, inDataFolder: inside(transformsFolder(p.dataDir), file) };
}

/**
 * Saves `source` as the destination's transform in the data folder (`transforms/destination-<id>.js`,
 * written whole or not at all), once it compiles; a transform that was a config's file is copied, never
 * written. `null` removes the destination's transform (and the data folder's file, if it was that one).
 */
async function saveTransform(p: OperationContext, destination: Destination, source: string | null): Promise<TransformSource> {
  const own = path.join(transformsFolder(p.dataDir), `destination-${destination.id}.js`);
  if (source === null) {
    if (destination.transform) setTransform(p, destination, undefined);
    fs.rmSync(own, { force: true });
    return transformSource(p, destinationOf(p, destination.id));
  }
  const checked = checkTransformSource(source, own);
  if (!checked.ok) {
    // The runtime's sentence names the file and the place again: the place is said once, first.
    const what = checked.message.replace(/ \([^()]*, line \d+(, column \d+)?\)$/, '');
    const where = checked.line > 0 ? ` at line ${checked.line}, column ${Math.max(1, checked.column)}` : '';
    throw new OperationError('invalid_transform', `the transform does not compile${where}: ${what}; fix it and save again (the version in use stays)`, [
      { path: ['source'], message: what },
    ]);
  }
  fs.mkdirSync(transformsFolder(p.dataDir), { recursive: true, mode: 0o700 });
  writeWholeFile(own, source); // the runtime's watcher sees the old text or the new, never half
  if (destination.transform?.file !== own) {
    setTransform(p, destination, { timeoutMs: destination.transform?.timeoutMs ?? TRANSFORM_TIMEOUT.default, settings: destination.transform?.settings ?? {}, file: own });
  }
  // The runtime reloads a file it holds when its folder's watch says it changed: the answer (and the
  // next try) wait for the version just written, a moment at most.
  const version = versionOf(source);
  for (const until = Date.now() + RELOAD_WAIT_MS; p.transformer().loaded(own).version !== version && Date.now() < until; ) await delay(20);
  return transformSource(p, destinationOf(p, destination.id));
}

function setTransform(p: OperationContext, destination: Destination, transform: Destination['transform']): void {
  if (!p.destinations.setTransform(destination.id, transform, p.clock.now())) {
    throw new OperationError('not_found', `there is no destination ${destination.id}; it may have been deleted — reload the list`);
  }
  p.settingsApplied();
}

function inside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}
