import { randomBytes } from 'node:crypto';
import { sampleMessages } from '../../../shared/composer-templates.ts';
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
  destination: { id: number; name: string; hookUrl: string; created: boolean } | null;
  state: ClientState;
}

/**
 * Sends a realistic handful of messages through the source's composer client and waits until they are
 * stored. When no enabled destination receives the source's messages, it first points one at the
 * built-in receiver with a fresh secret, so the samples arrive signed. Repeating it reuses that
 * destination (found by name) instead of adding another.
 */
export async function sendSamples(deps: SamplesDeps, sourceId: number): Promise<SamplesResult> {
  const source = deps.sources.byId(sourceId);
  if (!source) throw new OperationError('not_found', `there is no source ${sourceId}; pick one of the sources listed in the top bar`);
  let destination: SamplesResult['destination'] = null;
  const delivering = deps.destinations.list().some((d) => d.enabled && d.sourceIds.includes(sourceId));
  if (!delivering) {
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
    destination = { id: saved.id, name: saved.name, hookUrl, created: existing === undefined };
  }
  const messages = sampleMessages();
  for (const { type, fields } of messages) deps.composer.send(sourceId, type, { ...fields });
  const state = await deps.composer.flush(sourceId);
  return { sent: messages.length, destination, state };
}
