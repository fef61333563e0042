// The source operations (`app.info`, `sources.save`, `composer.*`, `samples.send` of
// shared/channels/sources.ts): the app and its sources, and each source's composer client.
import pkg from '../../../../package.json' with { type: 'json' };
import { sendSamples } from '../../composer/samples.ts';
import { saveSource, sourceView } from '../../sources/source-settings.ts';
import type { OperationContext, OperationsOf } from './parts.ts';
import { receiverDestination } from './receiver.ts';

type SourceChannel = 'app.info' | 'sources.save' | 'composer.send' | 'composer.flush' | 'composer.state' | 'samples.send';

export function sourceOperations(p: OperationContext): OperationsOf<SourceChannel> {
  return {
    'app.info': () => ({
      // pkg.version, not the whole manifest: the bundler keeps only the fields read this way.
      version: pkg.version,
      ingestUrl: p.ingestUrl,
      receiverUrl: p.receiver.url,
      dataDir: p.dataDir,
      sources: p.sources.list().map((source) => sourceView(source, p.declaredIn(source.id))),
    }),
    /**
     * Creates a source, or with `id` edits one (name, write key, kind); a source the config file declares
     * is refused (source-settings.ts). Ingestion takes a new key, and refuses a replaced one, once it resolves.
     */
    'sources.save': (request) =>
      saveSource(
        { sources: p.sources, clock: p.clock, declaredIn: p.declaredIn, retireClient: (id) => p.composer.retire(id), applied: () => p.settingsApplied() },
        request,
      ),
    'composer.send': ({ sourceId, type, fields }) => p.composer.send(sourceId, type, fields),
    'composer.flush': ({ sourceId }) => p.composer.flush(sourceId),
    'composer.state': ({ sourceId }) => p.composer.state(sourceId),
    'samples.send': ({ sourceId }) => sendSamples({ ...receiverDestination(p), composer: p.composer }, sourceId),
  };
}
