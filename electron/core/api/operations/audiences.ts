// The audience operations (`audiences.*` of shared/channels/audiences.ts) over the audience service
// (audiences/): definitions, previews, syncs and members.
import { OperationError } from '../../operation-error.ts';
import type { OperationContext, OperationsOf } from './parts.ts';

type AudienceChannel =
  | 'audiences.list'
  | 'audiences.save'
  | 'audiences.delete'
  | 'audiences.preview'
  | 'audiences.syncNow'
  | 'audiences.history'
  | 'audiences.syncMessages'
  | 'audiences.members';

export function audienceOperations(p: OperationContext): OperationsOf<AudienceChannel> {
  const { audiences } = p;
  return {
    'audiences.list': () => ({ audiences: audiences.list() }),
    'audiences.save': (input) => audiences.save(input),
    'audiences.delete': async ({ id }) => {
      await audiences.delete(id);
      return { deleted: true };
    },
    'audiences.preview': (request) => audiences.preview(request),
    'audiences.syncNow': async ({ id }) => {
      const sync = await audiences.syncNow(id);
      return audiences.repo.sync(sync.syncId!)!; // "Sync now" is recorded whatever it finds
    },
    'audiences.history': ({ id, limit, beforeId }) => {
      audiences.view(id); // not_found for an unknown audience
      const syncs = audiences.repo.syncs(id, limit, beforeId);
      return { syncs, next: syncs.length === limit ? syncs[syncs.length - 1]!.id : null };
    },
    'audiences.syncMessages': ({ syncId, afterId, limit }) => {
      const sync = audiences.repo.sync(syncId);
      if (!sync) throw new OperationError('not_found', `there is no audience sync ${syncId}; its audience may have been deleted`);
      const found = audiences.repo.syncMessages(syncId, afterId, limit);
      return { sync, messages: found, next: found.length === limit ? found[found.length - 1]!.id : null };
    },
    'audiences.members': ({ id, search, after, limit }) => {
      audiences.view(id);
      const page = audiences.repo.members(id, { limit, ...(search ? { search } : {}), ...(after !== undefined ? { after } : {}) });
      return { ...page, next: page.members.length === limit ? page.members[page.members.length - 1]!.userId : null };
    },
  };
}
