/**
 * Creating and editing sources from the inspector: validation with issues on the fields, taken
 * names and write keys, and the config file's precedence — a source the config file declares is
 * applied from the file at every start, so the inspector refuses to change it (the file is where it
 * is edited); every other source is the store's, kept across restarts as saved here.
 */
import { requestSchemas, type SourceView } from '../../../shared/contract.ts';
import { describeIssues } from '../../../shared/settings.ts';
import type { Clock } from '../clock.ts';
import { issuesOf, OperationError } from '../operation-error.ts';
import type { Source, SourcesRepo } from '../store/sources-repo.ts';

export interface SourceSettingsDeps {
  sources: SourcesRepo;
  clock: Clock;
  /** Where a source is declared: the config file's path (or "--config"), for the config's sources only. */
  declaredIn(sourceId: number): string | null;
  /** Before a write key changes: the composer's client for the source sends what it queued (with the old key) and is dropped. */
  retireClient(sourceId: number): Promise<void>;
  /** The writer's write keys, the plans' source names, `settings.changed`: what follows any stored change of sources. */
  applied(): void;
}

const saveSchema = requestSchemas['sources.save'];

/** A source as the inspector sees it: its key, and whether the config file owns it. */
export function sourceView(source: Source, declaredIn: string | null): SourceView {
  const { id, name, writeKey, kind, allowedOrigins } = source;
  return { id, name, writeKey, kind, allowedOrigins, fromConfig: declaredIn };
}

/**
 * Validates and stores a source: without `id` a new one, with `id` an edit of that one (its
 * messages, destinations and audiences stay its own, by id). A write key is accepted by ingestion
 * as soon as this returns, and a replaced key is refused from then on (401 invalid_write_key).
 * Refusals carry each problem on its field (`issues`) and all of them in the message.
 */
export async function saveSource(deps: SourceSettingsDeps, input: unknown): Promise<SourceView> {
  const parsed = saveSchema.safeParse(input);
  if (!parsed.success) throw new OperationError('invalid_source', describeIssues(parsed.error).join('; '), issuesOf(parsed.error));
  const { id, ...fields } = parsed.data;

  const existing = id === undefined ? undefined : deps.sources.byId(id);
  if (id !== undefined && !existing) throw new OperationError('not_found', `there is no source ${id}; reload the list`);
  if (existing) {
    const file = deps.declaredIn(existing.id);
    if (file !== null) {
      throw new OperationError(
        'declared_in_config',
        `“${existing.name}” is declared in ${file}, which Sluice applies at every start; edit it there and restart Sluice`,
      );
    }
  }
  // Whatever the composer queued for this source goes out while its key still works.
  if (existing && existing.writeKey !== fields.writeKey) await deps.retireClient(existing.id);
  // Checked after that wait, right before the write: another save may have come in meanwhile.
  const named = deps.sources.byName(fields.name);
  if (named && named.id !== id) {
    const message = `another source is already called “${fields.name}”; choose another name`;
    throw new OperationError('name_taken', message, [{ path: ['name'], message }]);
  }
  const keyed = deps.sources.byWriteKey(fields.writeKey);
  if (keyed && keyed.id !== id) {
    const message = `the source “${keyed.name}” already has this write key; each source needs its own (generate one)`;
    throw new OperationError('write_key_taken', message, [{ path: ['writeKey'], message }]);
  }

  const saved = existing ? deps.sources.update(existing.id, fields) : deps.sources.upsert({ ...fields }, deps.clock.now());
  if (!saved) throw new OperationError('not_found', `there is no source ${id}; reload the list`);
  deps.applied();
  return sourceView(saved, null);
}
