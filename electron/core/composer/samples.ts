import { randomBytes } from 'node:crypto';
import { sampleMessages } from '../../../shared/composer-templates.ts';
import type { ReceiverDestination } from '../../../shared/channels/receiver.ts';
import type { ClientState } from '../../client/index.ts';
import { OperationError } from '../operation-error.ts';
import type { Destination, DestinationsRepo } from '../store/destinations-repo.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';
import type { Composer } from './composer.ts';

/** The destination "Send sample events" makes when a source has nowhere to deliver to. */
export const BUILTIN_DESTINATION = 'Built-in receiver';
/** Its hook on the built-in receiver. */
export const SAMPLES_HOOK = 'demo';

export interface SamplesDeps {
  sources: SourcesRepo;
  destinations: DestinationsRepo;
  composer: Composer;
  hookUrl: (hook: string) => string;
  /** Validates, stores and applies a destination (the core's saveDestination). */
  saveDestination: (config: unknown) => Destination;
}

export interface SamplesResult {
  /** Messages queued and flushed. */
  sent: number;
  /** The built-in receiver destination when this call created it or connected the source to it; null when the source already delivered somewhere. */
  destination: ConnectedReceiver | null;
  state: ClientState;
}

/** The built-in receiver destination as connected for a source: whether this call made it (the contract's shape). */
export type ConnectedReceiver = ReceiverDestination;

/**
 * Makes sure the source's messages are delivered somewhere: when no enabled destination receives
 * them, points the "Built-in receiver" destination (found by name, or made with a fresh secret, so
 * deliveries arrive signed) at the receiver by name and connects the source to it. Null when the
 * source already delivered somewhere (nothing changed).
 */
export function connectBuiltinReceiver(deps: Omit<SamplesDeps, 'composer'>, sourceId: number): ConnectedReceiver | null {
  const source = deps.sources.byId(sourceId);
  if (!source) throw new OperationError('not_found', `there is no source ${sourceId}; pick one of the sources listed in the top bar`);
  const delivering = deps.destinations.list().some((d) => d.enabled && d.sourceIds.includes(sourceId));
  if (delivering) return null;
  const existing = deps.destinations.list().find((d) => d.name === BUILTIN_DESTINATION);
  const hookUrl = deps.hookUrl(SAMPLES_HOOK);
  const sourceNames = deps.sources
    .list()
    .filter((s) => s.id === sourceId || existing?.sourceIds.includes(s.id))
    .map((s) => s.name);
  // Enabled again and pointed at the receiver by name (sluice://receiver/demo), wherever it listens.
  const saved = deps.saveDestination({
    name: BUILTIN_DESTINATION,
    enabled: true,
    sources: sourceNames,
    webhooks: [{ url: hookUrl, headers: {} }],
    sharedSecret: existing?.sharedSecret ?? `whsec_${randomBytes(18).toString('hex')}`,
    options: existing?.options ?? { bodyShape: 'seed', concurrency: 32 },
  });
  return { id: saved.id, name: saved.name, hookUrl, created: existing === undefined };
}

/**
 * Sends a realistic handful of messages through the source's composer client and waits until they are
 * stored, delivered (connectBuiltinReceiver) to the built-in receiver when they would go nowhere.
 * Repeating it reuses that destination instead of adding another.
 */
export async function sendSamples(deps: SamplesDeps, sourceId: number): Promise<SamplesResult> {
  const destination = connectBuiltinReceiver(deps, sourceId);
  const messages = sampleMessages();
  for (const { type, fields } of messages) deps.composer.send(sourceId, type, { ...fields });
  const state = await deps.composer.flush(sourceId);
  return { sent: messages.length, destination, state };
}
