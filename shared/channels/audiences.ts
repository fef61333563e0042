/**
 * The contract's audience channels (`audiences.*`): audiences and computed traits (shared/audiences.ts),
 * their previews, syncs and members. Composed into shared/contract.ts.
 */
import { z } from 'zod';
import {
  audienceInputSchema,
  audiencePreviewSchema,
  type AudienceMemberView,
  type AudiencePreviewView,
  type AudienceSyncMessageView,
  type AudienceSyncView,
  type AudienceView,
} from '../audiences.ts';
import { recordId as id } from './record-id.ts';

export const audienceRequestSchemas = {
  /** Audiences and computed traits (shared/audiences.ts), with their schedule and last sync. */
  'audiences.list': z.strictObject({}),
  /** Creates (no `id`) or edits an audience or computed trait; validated, errors name the field. */
  'audiences.save': audienceInputSchema,
  'audiences.delete': z.strictObject({ id }),
  /** Members count and a sample of a definition before it is saved (and, for an edit, who would join and leave). */
  'audiences.preview': audiencePreviewSchema,
  /** Syncs now, whatever the schedule; answers once its identify messages are stored (deliveries follow). */
  'audiences.syncNow': z.strictObject({ id }),
  /** Syncs of an audience, newest first. */
  'audiences.history': z.strictObject({ id, limit: z.number().int().min(1).max(200).default(20), beforeId: id.optional() }),
  /** The identify messages of one sync with their delivery status, in the order stored. */
  'audiences.syncMessages': z.strictObject({ syncId: id, afterId: z.number().int().nonnegative().default(0), limit: z.number().int().min(1).max(1000).default(100) }),
  /** Members as of the last sync, by userId. */
  'audiences.members': z.strictObject({
    id,
    search: z.string().max(200).optional(),
    after: z.string().max(1024).optional(),
    limit: z.number().int().min(1).max(1000).default(100),
  }),
} as const;

export interface AudienceResponses {
  'audiences.list': { audiences: AudienceView[] };
  'audiences.save': AudienceView;
  'audiences.delete': { deleted: true };
  'audiences.preview': AudiencePreviewView;
  'audiences.syncNow': AudienceSyncView;
  /** `next`: pass it as `beforeId` for older syncs; null when there are none. */
  'audiences.history': { syncs: AudienceSyncView[]; next: number | null };
  /** `next`: pass it as `afterId` for the following messages; null at the end. */
  'audiences.syncMessages': { sync: AudienceSyncView; messages: AudienceSyncMessageView[]; next: number | null };
  /** `total` matches the search; `next`: pass it as `after`; null at the end. */
  'audiences.members': { members: AudienceMemberView[]; total: number; next: string | null };
}
