import type { DatabaseSync } from 'node:sqlite';
import { randomBytes } from 'node:crypto';
import type { SourceConfig, SourceKind } from '../../../shared/settings.ts';

export interface Source {
  id: number;
  name: string;
  writeKey: string;
  kind: SourceKind;
  /** Browser origins that may send with this key; null: any. */
  allowedOrigins: string[] | null;
}

interface SourceRow {
  id: number;
  name: string;
  write_key: string;
  kind: SourceKind;
  allowed_origins: string | null;
}

/** Sources, with an in-memory write-key index: ingestion looks a key up on every request. */
export class SourcesRepo {
  readonly #db: DatabaseSync;
  #byWriteKey = new Map<string, Source>();

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#reload();
  }

  list(): Source[] {
    return [...this.#byWriteKey.values()].sort((a, b) => a.id - b.id);
  }

  byWriteKey(writeKey: string): Source | undefined {
    return this.#byWriteKey.get(writeKey);
  }

  byName(name: string): Source | undefined {
    return this.list().find((source) => source.name === name);
  }

  byId(id: number): Source | undefined {
    return this.list().find((source) => source.id === id);
  }

  /** Creates or updates the source called `config.name`. */
  upsert(config: SourceConfig, now: number): Source {
    this.#db
      .prepare(
        `INSERT INTO sources (name, write_key, kind, allowed_origins, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET write_key = excluded.write_key, kind = excluded.kind, allowed_origins = excluded.allowed_origins`,
      )
      .run(config.name, config.writeKey, config.kind, config.allowedOrigins ? JSON.stringify(config.allowedOrigins) : null, now);
    this.#reload();
    return this.byName(config.name)!;
  }

  /**
   * Renames source `id`, or gives it another write key or kind (its origins stay); undefined when
   * there is no such source. The key index changes at once: the old key names no source from here on.
   */
  update(id: number, fields: Pick<SourceConfig, 'name' | 'writeKey' | 'kind'>): Source | undefined {
    const changed = this.#db.prepare('UPDATE sources SET name = ?, write_key = ?, kind = ? WHERE id = ?').run(fields.name, fields.writeKey, fields.kind, id).changes;
    if (Number(changed) === 0) return undefined;
    this.#reload();
    return this.byId(id);
  }

  /** The first run without a config gets one source with a fresh key, kept across restarts. */
  ensureDefault(now: number): Source {
    const existing = this.list()[0];
    if (existing) return existing;
    return this.upsert({ name: 'default', writeKey: `wk_${randomBytes(12).toString('hex')}`, kind: 'server' }, now);
  }

  #reload(): void {
    const rows = this.#db.prepare('SELECT id, name, write_key, kind, allowed_origins FROM sources').all() as unknown as SourceRow[];
    this.#byWriteKey = new Map(
      rows.map((row) => [
        row.write_key,
        {
          id: row.id,
          name: row.name,
          writeKey: row.write_key,
          kind: row.kind,
          allowedOrigins: row.allowed_origins === null ? null : (JSON.parse(row.allowed_origins) as string[]),
        },
      ]),
    );
  }
}
