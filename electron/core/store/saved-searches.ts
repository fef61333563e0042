// Saved searches: the stream's search and filters under a name, one JSON row of the settings table
// (`searches.saved`). In the store rather than a file of the data folder: the store already holds what
// a restart must keep, is written in one transaction (no half-written file), and is read by both hosts
// alike; a reset keeps it (it forgets what was received, not what the user set up).
import type { DatabaseSync } from 'node:sqlite';
import { savedFiltersSchema, type SavedSearch } from '../../../shared/channels/searches.ts';
import { OperationError } from '../operation-error.ts';

const KEY = 'searches.saved';
/** At most this many saved searches (a list for a menu, not a database). */
export const SAVED_SEARCHES_MAX = 200;

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function savedSearches(db: DatabaseSync) {
  const read = db.prepare('SELECT value FROM settings WHERE key = ?');
  const write = db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');

  function list(): SavedSearch[] {
    const row = read.get(KEY) as { value: string } | undefined;
    if (!row) return [];
    const parsed = JSON.parse(row.value) as unknown;
    if (!Array.isArray(parsed)) return [];
    // A row another version wrote that this one cannot read is left out, not fatal.
    return parsed.flatMap((s: { name?: unknown; filters?: unknown }) => {
      const filters = savedFiltersSchema.safeParse(s?.filters);
      return typeof s?.name === 'string' && filters.success ? [{ name: s.name, filters: filters.data }] : [];
    });
  }

  function save(searches: SavedSearch[]): SavedSearch[] {
    const sorted = [...searches].sort((a, b) => a.name.localeCompare(b.name, 'en'));
    write.run(KEY, JSON.stringify(sorted));
    return sorted;
  }

  const taken = (name: string) =>
    new OperationError('name_taken', `a saved search is already named “${name}”: choose another name, or delete that one first`);
  const missing = (name: string) => new OperationError('not_found', `no saved search is named “${name}”: list them with searches.list`);

  return {
    list,
    add(search: SavedSearch): SavedSearch[] {
      const all = list();
      if (all.some((s) => same(s.name, search.name))) throw taken(search.name);
      if (all.length >= SAVED_SEARCHES_MAX) throw new OperationError('too_many', `at most ${SAVED_SEARCHES_MAX} searches are saved: delete one first`);
      return save([...all, search]);
    },
    rename(name: string, to: string): SavedSearch[] {
      const all = list();
      const found = all.find((s) => same(s.name, name));
      if (!found) throw missing(name);
      if (all.some((s) => s !== found && same(s.name, to))) throw taken(to);
      return save(all.map((s) => (s === found ? { ...s, name: to } : s)));
    },
    remove(name: string): SavedSearch[] {
      const all = list();
      if (!all.some((s) => same(s.name, name))) throw missing(name);
      return save(all.filter((s) => !same(s.name, name)));
    },
  };
}
