/**
 * Saved searches and the stream's filters (SavedSearches.tsx keeps them, SearchBox.tsx offers them):
 * the filters as a saved search keeps them and back, and the saved searches that fit what is typed.
 * Plain TypeScript, no React.
 */
import type { SavedFilters, SavedSearch } from '../../../../shared/contract.ts';
import type { Filters } from '../../store/filters.ts';

/** The stream's filters as a saved search keeps them (the same fields; absent ones left out). */
export function toSaved(f: Filters): SavedFilters {
  return {
    search: f.search,
    type: f.type,
    status: f.status,
    sourceId: f.sourceId,
    time: f.time,
    ...(f.violations ? { violations: true } : {}),
    ...(f.event ? { event: f.event } : {}),
    ...(f.plan ? { plan: f.plan } : {}),
  };
}

/** Every filter of the stream set to the saved search's (those it does not name cleared). */
export function toFilters(s: SavedFilters): Partial<Filters> {
  return { search: s.search, type: s.type, status: s.status as Filters['status'], sourceId: s.sourceId, time: s.time, violations: s.violations, event: s.event, plan: s.plan };
}

/** At most this many are offered in the search box. */
export const SAVED_OFFERED = 8;

/**
 * The saved searches the box offers for `typed`: all of them for an empty box, else those whose name
 * or query holds the typed text (any case), names that start with it first.
 */
export function matchingSaved(searches: readonly SavedSearch[], typed: string): SavedSearch[] {
  const text = typed.trim().toLowerCase();
  const fits = searches;
  if (text === '') return fits.slice(0, SAVED_OFFERED);
  const starts = fits.filter((s) => s.name.toLowerCase().startsWith(text));
  const holds = fits.filter((s) => !starts.includes(s) && (s.name.toLowerCase().includes(text) || s.filters.search.toLowerCase().includes(text)));
  return [...starts, ...holds].slice(0, SAVED_OFFERED);
}

/** What a saved search narrows to besides its query, in a few words: "type track · failed · violations". */
export function savedNarrows(f: SavedFilters): string {
  const parts = [f.type, f.status, f.sourceId !== null ? 'one source' : null, f.time.kind !== 'all' ? 'a time range' : null, f.violations ? 'violations' : null, f.event ? `event ${f.event}` : null, f.plan ? `plan ${f.plan}` : null];
  return parts.filter((p) => p !== null && p !== undefined).join(' · ');
}
