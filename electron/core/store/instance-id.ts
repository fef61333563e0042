import { randomBytes } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';

const KEY = 'instance.id';

/**
 * This data folder's Sluice id, made once and kept in the store: the loop guard (shared/loop-guard.ts)
 * recognizes its own requests by it, after a restart too, so a loop cut before a restart stays cut.
 */
export function instanceId(db: DatabaseSync): string {
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(KEY) as { value: string } | undefined;
  if (row) return row.value;
  const id = `sl_${randomBytes(9).toString('base64url')}`;
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(KEY, id);
  return (db.prepare('SELECT value FROM settings WHERE key = ?').get(KEY) as { value: string }).value;
}
