import type { DatabaseSync } from 'node:sqlite';
import type { DestinationConfig, DestinationOptions, WebhookConfig } from '../../../shared/settings.ts';
import { transaction } from './database.ts';
import type { SourcesRepo } from './sources-repo.ts';

export interface Destination {
  id: number;
  name: string;
  enabled: boolean;
  sourceIds: number[];
  webhooks: WebhookConfig[];
  sharedSecret?: string;
  options: DestinationOptions;
}

interface DestinationRow {
  id: number;
  name: string;
  enabled: number;
  settings: string;
  source_ids: string | null;
}

type StoredSettings = Pick<Destination, 'webhooks' | 'sharedSecret' | 'options'>;

/** Webhook destinations and the sources connected to them. */
export class DestinationsRepo {
  readonly #db: DatabaseSync;
  readonly #sources: SourcesRepo;
  /** Read on every delivery round; changes only through upsert. */
  #cache: Destination[] | undefined;

  constructor(db: DatabaseSync, sources: SourcesRepo) {
    this.#db = db;
    this.#sources = sources;
  }

  list(): Destination[] {
    this.#cache ??= this.#load();
    return this.#cache;
  }

  #load(): Destination[] {
    const rows = this.#db
      .prepare(
        `SELECT d.id, d.name, d.enabled, d.settings, group_concat(ds.source_id) AS source_ids
         FROM destinations d LEFT JOIN destination_sources ds ON ds.destination_id = d.id
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
      };
    });
  }

  /** Creates or replaces the destination called `config.name`; its sources must exist. */
  upsert(config: DestinationConfig, now: number): Destination {
    const sourceIds = config.sources.map((name) => {
      const source = this.#sources.byName(name);
      if (!source) throw new Error(`destination "${config.name}": unknown source "${name}"`);
      return source.id;
    });
    const settings: StoredSettings = {
      webhooks: config.webhooks,
      options: config.options,
      ...(config.sharedSecret === undefined ? {} : { sharedSecret: config.sharedSecret }),
    };
    this.#cache = undefined;
    transaction(this.#db, () => {
      this.#db
        .prepare(
          `INSERT INTO destinations (name, enabled, settings, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, settings = excluded.settings,
             updated_at = excluded.updated_at`,
        )
        .run(config.name, config.enabled ? 1 : 0, JSON.stringify(settings), now, now);
      const { id } = this.#db.prepare('SELECT id FROM destinations WHERE name = ?').get(config.name) as { id: number };
      this.#db.prepare('DELETE FROM destination_sources WHERE destination_id = ?').run(id);
      const link = this.#db.prepare('INSERT INTO destination_sources (destination_id, source_id) VALUES (?, ?)');
      for (const sourceId of new Set(sourceIds)) link.run(id, sourceId);
    });
    return this.list().find((d) => d.name === config.name)!;
  }
}
