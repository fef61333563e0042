// The config file's sources and destinations, stored at each start — after the whole file was checked
// against the store (here, and the tracking plans by their registry), so that a start the file refuses
// stores nothing of it. Before 2026-12-01 its sources and destinations were stored first: a start refused
// for a plan or an audience left a new source's write key working, with the old file back or not.
import type { DatabaseSync } from 'node:sqlite';
import { propertyName } from '../../../shared/audience-property.ts';
import type { ConfigFile } from '../../../shared/settings.ts';
import type { AudiencesRepo } from '../store/audiences-repo.ts';
import { transaction } from '../store/connection.ts';
import type { DestinationsRepo } from '../store/destinations-repo.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';

export interface ConfigStores {
  sources: SourcesRepo;
  destinations: DestinationsRepo;
  audiences: AudiencesRepo;
}

/**
 * What the store makes of the file that reading it alone could not tell (that was the config schema's):
 * a write key another stored source holds, and an audience whose trait a stored audience already sends
 * for the same source (the file's audiences applied in order, as the audiences' service will).
 */
export function configProblems(config: ConfigFile, stores: ConfigStores): string[] {
  const problems = config.sources.flatMap((source, i) => {
    const holder = stores.sources.byWriteKey(source.writeKey);
    return holder && holder.name !== source.name
      ? [`sources[${i}].writeKey: already the key of the stored source "${holder.name}"; rename that source in the config or use another key`]
      : [];
  });
  /** Each audience by name: the source it is on and the trait it sends, as they will be once the file's are saved. */
  const audiences = new Map(stores.audiences.list().map((a) => [a.name, { source: stores.sources.byId(a.sourceId)?.name, property: a.property }]));
  (config.audiences ?? []).forEach((audience, i) => {
    const property = propertyName(audience.name);
    for (const [name, other] of audiences) {
      if (name !== audience.name && other.source === audience.source && other.property === property) {
        problems.push(
          `audiences[${i}].name: the stored audience "${name}" already sends the trait ${property} for the source "${audience.source}"; rename one of them (the stored one in the inspector's Audiences view)`,
        );
      }
    }
    audiences.set(audience.name, { source: audience.source, property });
  });
  return problems;
}

/** The ids of what the config file declares: read-only (sources) or kept under their name (destinations) in the inspector. */
export interface Declared {
  sources: Set<number>;
  destinations: Set<number>;
}

/** Stores the file's sources and destinations in one transaction. */
export function storeConfig(db: DatabaseSync, config: ConfigFile, stores: Omit<ConfigStores, 'audiences'>, now: number): Declared {
  return transaction(db, () => ({
    sources: new Set(config.sources.map((source) => stores.sources.upsert(source, now).id)),
    destinations: new Set(config.destinations.map((destination) => stores.destinations.upsert(destination, now).id)),
  }));
}
