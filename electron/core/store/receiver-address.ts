import type { DatabaseSync } from 'node:sqlite';

const KEY = 'receiver.url';

/** The built-in receiver's address when Sluice last started on this store; null before one was recorded. */
export function lastReceiverUrl(db: DatabaseSync): string | null {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(KEY) as { value: string } | undefined;
  return row?.value ?? null;
}

/** Records where the built-in receiver listens in this run (destinations/receiver-urls.ts reads it at the next start). */
export function rememberReceiverUrl(db: DatabaseSync, url: string): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(KEY, url);
}
