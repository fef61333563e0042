import type { DatabaseSync } from 'node:sqlite';
import type { DestinationFilter, DestinationTransform } from '../../../shared/destination-filters.ts';
import type { DestinationConfig, DestinationKind, DestinationOptions, SigningScheme, TrackingApiConfig, WebhookConfig } from '../../../shared/settings.ts';
import { transaction } from './connection.ts';
import { closeIssuesOf } from './issue-writes.ts';
import type { SourcesRepo } from './sources-repo.ts';

export interface Destination {
  id: number;
  name: string;
  enabled: boolean;
  sourceIds: number[];
  /** Webhooks (the seed's), or a Tracking API that messages are forwarded to (trackingApi). */
  kind: DestinationKind;
  trackingApi?: TrackingApiConfig;
  /** None for a tracking-api destination. */
  webhooks: WebhookConfig[];
  sharedSecret?: string;
  /** Which signatures requests carry; 'segment' for destinations stored before there was a choice. */
  signing: SigningScheme;
  /** Standard Webhooks secrets (whsec_…), when signing with them. */
  signingSecrets?: string[];
  options: DestinationOptions;
  /** What it gets of each message, tested in order before its body is built (absent: everything). */
  filters?: DestinationFilter[];
  /** The user's function run on each message before its body is built; `file` absolute. */
  transform?: DestinationTransform;
  /** Webhook URLs that answered 410 Gone, by URL: nothing is sent there until re-enabled or the destination is edited. */
  gone?: Record<string, GoneUrl>;
}

/** A webhook URL that answered 410 Gone (Standard Webhooks' advice: stop sending there). */
export interface GoneUrl {
  at: number;
  reason: string;
}

interface DestinationRow {
  id: number;
  name: string;
  enabled: number;
  settings: string;
  source_ids: string | null;
}

type StoredSettings = Pick<Destination, 'webhooks' | 'sharedSecret' | 'signingSecrets' | 'options' | 'gone' | 'trackingApi' | 'filters' | 'transform'> &
  Partial<Pick<Destination, 'signing' | 'kind'>>;

/**
 * Webhook destinations and the sources connected to them. A deleted destination keeps its row (its
 * deliveries' history references it) but is left out of everything here.
 */
export class DestinationsRepo {
  readonly #db: DatabaseSync;
  readonly #sources: SourcesRepo;
  /** Read on every delivery round; changes only through this repo's writes. */
  #cache: Destination[] | undefined;
  #byIdFor: Destination[] | undefined;
  #byId = new Map<number, Destination>();

  constructor(db: DatabaseSync, sources: SourcesRepo) {
    this.#db = db;
    this.#sources = sources;
  }

  list(): Destination[] {
    this.#cache ??= this.#load();
    return this.#cache;
  }

  /** The destination with this id (deleted ones are not listed), from the same cache as list(). */
  byId(id: number): Destination | undefined {
    const list = this.list();
    if (this.#byIdFor !== list) {
      this.#byIdFor = list;
      this.#byId = new Map(list.map((d) => [d.id, d]));
    }
    return this.#byId.get(id);
  }

  #load(): Destination[] {
    const rows = this.#db
      .prepare(
        `SELECT d.id, d.name, d.enabled, d.settings, group_concat(ds.source_id) AS source_ids
         FROM destinations d LEFT JOIN destination_sources ds ON ds.destination_id = d.id
         WHERE d.deleted_at IS NULL
         GROUP BY d.id ORDER BY d.id`,
      )
      .all() as unknown as DestinationRow[];
    return rows.map((row) => {
      const settings = JSON.parse(row.settings) as StoredSettings;
      return {
        id: row.id,
        name: row.name,
        enabled: row.enabled === 1,
        sourceIds: row.source_ids ? row.source_ids.split(',').map(Number) : [],
        ...settings,
        webhooks: settings.webhooks ?? [],
        kind: settings.kind ?? 'webhooks',
        signing: settings.signing ?? 'segment',
      };
    });
  }

  /** The live destination called `name`, if any. */
  byName(name: string): Destination | undefined {
    return this.list().find((d) => d.name === name);
  }

  /** Creates or replaces the destination called `config.name` (how the config file applies); its sources must exist. */
  upsert(config: DestinationConfig, now: number): Destination {
    const sourceIds = this.#sourceIds(config);
    // Applying the config again (each start) keeps the URLs that answered 410 Gone disabled.
    const gone = this.byName(config.name)?.gone;
    this.#cache = undefined;
    transaction(this.#db, () => {
      // Deleted destinations carry another name, so only a live one can be the conflict.
      this.#db
        .prepare(
          `INSERT INTO destinations (name, enabled, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, settings = excluded.settings,
             updated_at = excluded.updated_at`,
        )
        .run(config.name, config.enabled ? 1 : 0, settingsOf(config, gone), now, now);
      const { id } = this.#db.prepare('SELECT id FROM destinations WHERE name = ?').get(config.name) as { id: number };
      this.#link(id, sourceIds);
    });
    return this.list().find((d) => d.name === config.name)!;
  }

  /**
   * Replaces the settings of destination `id`, name included (a rename keeps its id, so its
   * deliveries stay its own). Undefined when there is no such live destination. A name another
   * destination has fails on the UNIQUE constraint: check first for a sentence. Editing re-enables
   * the URLs that answered 410 Gone.
   */
  update(id: number, config: DestinationConfig, now: number): Destination | undefined {
    const sourceIds = this.#sourceIds(config);
    this.#cache = undefined;
    const changed = transaction(this.#db, () => {
      const result = this.#db
        .prepare('UPDATE destinations SET name = ?, enabled = ?, settings = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL')
        .run(config.name, config.enabled ? 1 : 0, settingsOf(config), now, id);
      if (result.changes === 0) return false;
      this.#link(id, sourceIds);
      return true;
    });
    return changed ? this.byId(id) : undefined;
  }

  /**
   * Marks destination `id` deleted: disabled (its deliveries are never due again), connected to no
   * source, renamed so its name is free, and its Issues groups closed (issue-writes.ts). Its row stays for the history. False when there was no
   * such live destination. Cancelling its open deliveries is the caller's (the writer's) job.
   */
  markDeleted(id: number, now: number): boolean {
    this.#cache = undefined;
    return transaction(this.#db, () => {
      // Stored names are trimmed (the schema), so one that ends in a space never clashes with a live name.
      const result = this.#db
        .prepare(
          `UPDATE destinations SET deleted_at = ?, enabled = 0, updated_at = ?, name = name || ' (deleted #' || id || ') '
           WHERE id = ? AND deleted_at IS NULL`,
        )
        .run(now, now, id);
      if (result.changes === 0) return false;
      this.#db.prepare('DELETE FROM destination_sources WHERE destination_id = ?').run(id);
      closeIssuesOf(this.#db, id, now);
      return true;
    });
  }

  /** Stops sending to a webhook URL that answered 410 Gone; `reason` says so. False when there is no such destination or URL. */
  markGone(id: number, url: string, reason: string, now: number): boolean {
    return this.#setGone(id, url, { at: now, reason });
  }

  /** Sends to a URL that answered 410 Gone again (the inspector's Re-enable). */
  reenable(id: number, url: string): boolean {
    return this.#setGone(id, url, null);
  }

  /**
   * Gives destination `id` this transform (the inspector's save: a file in the data folder), or none;
   * its other settings, 410 Gone marks included, stay. False when there is no such live destination.
   */
  setTransform(id: number, transform: Destination['transform'], now: number): boolean {
    const destination = this.byId(id);
    if (!destination) return false;
    const { id: _id, name: _name, enabled: _enabled, sourceIds: _sourceIds, ...settings } = destination;
    this.#cache = undefined;
    this.#db.prepare('UPDATE destinations SET settings = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL').run(
      JSON.stringify({ ...settings, transform } satisfies StoredSettings),
      now,
      id,
    );
    return true;
  }

  #setGone(id: number, url: string, gone: GoneUrl | null): boolean {
    const destination = this.byId(id);
    if (!destination || !destination.webhooks.some((w) => w.url === url)) return false;
    const next = { ...destination.gone };
    if (gone) next[url] = gone;
    else if (!(url in next)) return false;
    else delete next[url];
    const { id: _id, name: _name, enabled: _enabled, sourceIds: _sourceIds, ...settings } = destination;
    this.#cache = undefined;
    this.#db.prepare('UPDATE destinations SET settings = ? WHERE id = ? AND deleted_at IS NULL').run(
      JSON.stringify({ ...settings, gone: Object.keys(next).length > 0 ? next : undefined } satisfies StoredSettings),
      id,
    );
    return true;
  }

  /**
   * Gives webhook URLs of destination `id` another form (`rename`: the new URL, or the same), keeping
   * what is stored under them (410 Gone). False when nothing changed.
   */
  renameWebhookUrls(id: number, rename: (url: string) => string): boolean {
    const destination = this.byId(id);
    if (!destination || !destination.webhooks.some((w) => rename(w.url) !== w.url)) return false;
    const { id: _id, name: _name, enabled: _enabled, sourceIds: _sourceIds, ...settings } = destination;
    const gone = destination.gone ? Object.fromEntries(Object.entries(destination.gone).map(([url, at]) => [rename(url), at])) : undefined;
    this.#cache = undefined;
    this.#db.prepare('UPDATE destinations SET settings = ? WHERE id = ? AND deleted_at IS NULL').run(
      JSON.stringify({ ...settings, webhooks: destination.webhooks.map((w) => ({ ...w, url: rename(w.url) })), gone } satisfies StoredSettings),
      id,
    );
    return true;
  }

  /** Ids of this destination's deliveries that are still to be sent (pending or retrying), in id order. */
  openDeliveryIds(id: number): number[] {
    // No ORDER BY in SQL: it makes SQLite walk the whole table in rowid order instead of the partial
    // index deliveries_destination_due, which holds only the open deliveries.
    return (
      this.#db.prepare("SELECT id FROM deliveries WHERE destination_id = ? AND status IN ('pending', 'retrying')").all(id) as {
        id: number;
      }[]
    )
      .map((row) => row.id)
      .sort((a, b) => a - b);
  }

  #sourceIds(config: DestinationConfig): number[] {
    return config.sources.map((name) => {
      const source = this.#sources.byName(name);
      if (!source) throw new Error(`destination "${config.name}": unknown source "${name}"`);
      return source.id;
    });
  }

  #link(id: number, sourceIds: number[]): void {
    this.#db.prepare('DELETE FROM destination_sources WHERE destination_id = ?').run(id);
    const link = this.#db.prepare('INSERT INTO destination_sources (destination_id, source_id) VALUES (?, ?)');
    for (const sourceId of new Set(sourceIds)) link.run(id, sourceId);
  }
}

/** What is stored of a destination's config; `gone` kept only for URLs the config still has. */
function settingsOf(config: DestinationConfig, gone?: Record<string, GoneUrl>): string {
  const kept = gone ? Object.entries(gone).filter(([url]) => config.webhooks.some((w) => w.url === url)) : [];
  const settings: StoredSettings = {
    ...(kept.length > 0 ? { gone: Object.fromEntries(kept) } : {}),
    webhooks: config.webhooks ?? [], // a config given to createCore unparsed may leave them out
    options: config.options,
    ...(config.sharedSecret === undefined ? {} : { sharedSecret: config.sharedSecret }),
    signing: config.signing ?? 'segment',
    ...(config.kind === 'tracking-api' ? { kind: 'tracking-api' as const, trackingApi: config.trackingApi! } : {}),
    ...(config.signingSecrets === undefined ? {} : { signingSecrets: config.signingSecrets }),
    // Kept only when there are some: a destination saved without filters reads as it did before them.
    ...(config.filters?.length ? { filters: config.filters } : {}),
    ...(config.transform === undefined ? {} : { transform: config.transform }),
  };
  return JSON.stringify(settings);
}
