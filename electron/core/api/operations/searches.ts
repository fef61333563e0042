// Saved searches (`searches.*` of shared/channels/searches.ts), kept in the store's settings table
// (store/saved-searches.ts). Each answers with the whole list, A–Z, so a window shows it at once.
import { savedSearches } from '../../store/saved-searches.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

export function searchOperations(p: OperationContext): OperationsOf<'searches.list' | 'searches.save' | 'searches.rename' | 'searches.delete'> {
  const saved = savedSearches(p.db);
  return {
    'searches.list': () => ({ searches: saved.list() }),
    'searches.save': ({ name, filters }) => ({ searches: saved.add({ name, filters }) }),
    'searches.rename': ({ name, to }) => ({ searches: saved.rename(name, to) }),
    'searches.delete': ({ name }) => ({ searches: saved.remove(name) }),
  };
}
