/**
 * A data folder's store opened read-only for `sluice export` and `sluice import --source`, with a
 * sentence for each way it can fail: no store there, not a Sluice store, a source it does not have.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { databaseFile } from '../core/store/database.ts';
import { sourceByName } from '../core/transfer/export-lines.ts';
import { openReadOnly } from '../core/store/connection.ts';
import { InputError, storeFailureInput } from './command-error.ts';

export interface OpenStore {
  db: DatabaseSync;
  file: string;
}

export function openStore(dataDir: string): OpenStore {
  const file = databaseFile(dataDir);
  if (!fs.existsSync(file)) throw new InputError(`no Sluice store in ${dataDir} (there is no ${path.basename(file)}): run sluice serve first, or give --data-dir`);
  let db: DatabaseSync;
  try {
    db = openReadOnly(file);
  } catch (error) {
    throw new InputError(`cannot open the store ${file}: ${(error as Error).message}`);
  }
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'messages'").get()) {
      throw new InputError(`${file} is not a Sluice store (it has no messages): run sluice serve on ${dataDir} first, or give --data-dir`);
    }
  } catch (error) {
    db.close();
    if (error instanceof InputError) throw error;
    throw storeFailureInput(error, file) ?? new InputError(`cannot read the store ${file}: ${(error as Error).message}`); // damaged: the sentence with the fix
  }
  return { db, file };
}

/** The id of the source called `name` in the store, or an InputError naming the sources it has. */
export function sourceId(db: DatabaseSync, name: string, dataDir: string): number {
  const found = sourceByName(db, name);
  if ('id' in found) return found.id;
  const known = found.known.length > 0 ? `its sources are ${found.known.map((s) => JSON.stringify(s)).join(', ')}` : 'it has no sources';
  throw new InputError(`there is no source ${JSON.stringify(name)} in ${dataDir}: ${known}`);
}

/** A source's write key, looked up in the store (import sends with it). */
export function writeKeyOf(db: DatabaseSync, id: number): string {
  return (db.prepare('SELECT write_key FROM sources WHERE id = ?').get(id) as { write_key: string }).write_key;
}

/** The store's sources, by name (import picks the only one when none is named). */
export function sourceNames(db: DatabaseSync): { id: number; name: string }[] {
  return db.prepare('SELECT id, name FROM sources ORDER BY id').all() as { id: number; name: string }[];
}
