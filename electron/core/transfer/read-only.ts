/**
 * A read-only connection to a store, for exports: beside a running relay (WAL lets a reader in beside
 * the writer, and a read-only connection can neither take the write lock nor migrate the store), in
 * the relay's own process as in a command's.
 */
import { registerSqlFunctions } from '../store/sql-functions.ts';
import { DatabaseSync } from '../store/sqlite.ts';

export function openReadOnly(file: string): DatabaseSync {
  const db = new DatabaseSync(file, { readOnly: true });
  // A relay starting up may hold the lock for a moment (recovery, a migration).
  db.exec('PRAGMA busy_timeout = 5000');
  registerSqlFunctions(db);
  return db;
}
