/**
 * The stream's filtered set for an export or a clear: the contract's MessageFilter made as a filter
 * replay makes it (store/filters.ts's listQuery), ending now at the latest, and the filters in words
 * for the dialog's question. Pure, tested in Node.
 */
import type { MessageFilter } from '../../../../shared/message-filter.ts';
import type { ClearScope } from '../../../../shared/storage.ts';
import { absoluteTime } from '../../lib/format.ts';
import { hasFilters, listQuery, type Filters } from '../../store/filters.ts';
import { describeFilters } from '../replay/bulk-plan.ts';
import type { ClearWhat } from './storage-words.ts';

/** The stream's filtered set as it is now, for an export or a clear: the words for it and the filter the core takes. */
export interface FilteredSet {
  filters: Filters;
  /** The contract's MessageFilter, as a filter replay takes it; its end is now at most (messages arriving meanwhile stay). */
  filter: MessageFilter;
  words: string;
}

export function filteredSet(filters: Filters, sourceName: (id: number) => string, now: number, formatTime: (ms: number) => string = absoluteTime): FilteredSet {
  const query = listQuery(filters, now);
  const filter: MessageFilter = { ...query, to: Math.min(query.to ?? now, now) };
  return { filters, filter, words: hasFilters(filters) ? describeFilters(filters, sourceName, formatTime) : 'no filters: every stored message' };
}

/** What "Clear these…" removes, and how its question names it. */
export function clearOf(set: FilteredSet): { scope: ClearScope; what: ClearWhat } {
  return { scope: { filter: set.filter }, what: hasFilters(set.filters) ? { kind: 'filter', words: set.words } : { kind: 'all' } };
}
