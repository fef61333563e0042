/**
 * Saving, renaming and deleting destinations: validation with issues on the fields, name clashes,
 * and what a deletion does to the destination's deliveries.
 */
import { requestSchemas, type ContractIssue } from '../../../shared/contract.ts';
import { keepMaskedValues } from '../../../shared/credential-headers.ts';
import { transformFileProblem } from '../config/load-config.ts';
import { describeIssues, formatIssuePath } from '../../../shared/settings.ts';
import type { Clock } from '../clock.ts';
import type { StoreWriter } from '../writer/store-writer.ts';
import { issuesOf, OperationError } from '../operation-error.ts';
import type { Destination, DestinationsRepo } from '../store/destinations-repo.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';

export interface DestinationSettingsDeps {
  sources: SourcesRepo;
  destinations: DestinationsRepo;
  writer: StoreWriter;
  clock: Clock;
  /** Routes, `settings.changed`, a delivery kick: what follows any stored change of destinations. */
  applied(): void;
  /** Cancels deliveries through the writer (the core's cancelDeliveries); resolves to how many changed. */
  cancelDeliveries(ids: number[]): Promise<number>;
  /** The config file that declares destination `id`, or null. */
  declaredIn(id: number): string | null;
}

export interface SaveOptions {
  /**
   * A save without `id` whose name another destination has: `replace` it (how the config file
   * applies, by name) or `refuse` (the inspector: a new destination never overwrites another).
   */
  ifNameTaken?: 'replace' | 'refuse';
}

const saveSchema = requestSchemas['destinations.save'];

/**
 * Validates and stores a destination. With `id` it edits that destination, whose name may change
 * (the id, and with it every delivery and attempt, stays); a name another destination has is
 * refused. Refusals carry each problem on its field (`issues`) and all of them in the message.
 */
export function saveDestination(deps: DestinationSettingsDeps, input: unknown, options: SaveOptions = {}): Destination {
  const parsed = saveSchema.safeParse(input);
  if (!parsed.success) throw new OperationError('invalid_destination', describeIssues(parsed.error).join('; '), issuesOf(parsed.error));
  const { id, ...config } = parsed.data;

  const unknown: ContractIssue[] = config.sources.flatMap((name, i) =>
    deps.sources.byName(name) ? [] : [{ path: ['sources', i], message: `unknown source "${name}"; choose one of the sources listed` }],
  );
  if (unknown.length > 0) throw refusal('invalid_destination', unknown);
  const transformProblem = config.transform ? transformFileProblem(config.transform.file, null) : null;
  if (transformProblem) throw refusal('invalid_destination', [{ path: ['transform', 'file'], message: transformProblem }]);

  // The config file applies its destinations by name at every start: one renamed here would come back
  // under the file's name beside the renamed copy, and every message would go to both.
  const declaredIn = id === undefined ? null : deps.declaredIn(id);
  const stored = id === undefined ? undefined : deps.destinations.byId(id);
  if (declaredIn !== null && stored && stored.name !== config.name) {
    const message = `“${stored.name}” is declared in ${declaredIn}, which Sluice applies by name at every start: renamed here it would come back beside the copy, and every message would go to both; rename it in the file and restart Sluice`;
    throw new OperationError('declared_in_config', message, [{ path: ['name'], message }]);
  }
  const holder = deps.destinations.byName(config.name);
  if (holder && holder.id !== id && (id !== undefined || options.ifNameTaken === 'refuse')) {
    const message = `another destination is already called “${config.name}”; choose another name`;
    throw new OperationError('name_taken', message, [{ path: ['name'], message }]);
  }
  if (config.transform) config.transform = { ...config.transform, settings: keptSettings(config.transform.settings, (id === undefined ? holder : deps.destinations.byId(id))?.transform?.settings) };

  const now = deps.clock.now();
  let saved: Destination;
  if (id === undefined) saved = deps.destinations.upsert(config, now);
  else {
    const updated = deps.destinations.update(id, config, now);
    if (!updated) throw new OperationError('not_found', `there is no destination ${id}; it may have been deleted meanwhile — reload the list`);
    saved = updated;
  }
  deps.applied();
  return saved;
}

/**
 * Deletes destination `id`: it leaves the list, the routes and the engine at once; its pending and
 * retrying deliveries are cancelled (nothing more is sent for them), and its Issues groups close with
 * the delete mark (store/issue-writes.ts closeIssuesOf). Delivered and failed deliveries and every
 * attempt stay readable: the row is kept, marked deleted. Resolves to the number of
 * deliveries cancelled — or, for a dry run, that would be.
 */
export async function deleteDestination(deps: DestinationSettingsDeps, id: number, options: { dryRun?: boolean } = {}): Promise<number> {
  const destination = deps.destinations.byId(id);
  if (!destination) throw new OperationError('not_found', `there is no destination ${id}; it may have been deleted already — reload the list`);
  if (options.dryRun) return deps.destinations.openDeliveryIds(id).length;

  deps.destinations.markDeleted(id, deps.clock.now());
  deps.applied(); // new routes: the writer creates no more deliveries for it
  // A write already under way when the routes changed may still add some: one round trip through
  // the writer (an empty cancel) lets it commit them, so the read below sees them.
  await deps.writer.write({ op: 'cancel', deliveryIds: [], now: deps.clock.now() });
  const open = deps.destinations.openDeliveryIds(id);
  return open.length === 0 ? 0 : deps.cancelDeliveries(open);
}

/**
 * A transform's settings as saved: a setting sent as the mask the destination view shows (SECRET_MASK),
 * at any depth, keeps the value stored at that place, so an editor that was shown masked values can save them
 * back. The mask with nothing stored to keep is refused, rather than saved as a credential.
 */
function keptSettings(settings: Record<string, unknown>, stored: Record<string, unknown> | undefined): Record<string, unknown> {
  const kept = keepMaskedValues(settings, stored ?? {});
  if (kept.missing.length > 0) {
    throw refusal(
      'invalid_destination',
      kept.missing.map((at) => ({ path: ['transform', 'settings', ...at], message: `is the mask of a stored value, but this destination stores none at “${at.join('.')}”; give the value itself` })),
    );
  }
  return kept.value as Record<string, unknown>;
}

function refusal(code: string, issues: ContractIssue[]): OperationError {
  return new OperationError(code, issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`).join('; '), issues);
}
