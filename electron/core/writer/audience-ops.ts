// The audience writes the main thread asks the store's writer thread for, and what
// comes back. Everything an audience writes — its definition, profile folding, a sync's identify
// messages with their deliveries and the new member snapshot — is one transaction in the writer.
import type { AudiencePreviewView } from '../../../shared/audiences.ts';
import type { Audience } from '../store/audiences-repo.ts';

/** What a save writes: a stored audience's definition (without id: a new one). */
export type AudienceRecord = Pick<Audience, 'name' | 'kind' | 'sourceId' | 'property' | 'definition' | 'mode' | 'intervalSeconds' | 'destinationIds'> & {
  id?: number;
};

export type AudienceOp =
  | {
      op: 'audience.save';
      audience: AudienceRecord;
      nextSyncAt: number;
      /** The property or source changed: forget the snapshot, so the next sync is an initial one. */
      resetMembers: boolean;
      now: number;
    }
  | { op: 'audience.delete'; audienceId: number }
  /** Folds up to `limit` more stored messages into the profiles. */
  | { op: 'audience.fold'; limit: number }
  | {
      op: 'audience.preview';
      kind: Audience['kind'];
      sourceId: number;
      definition: Audience['definition'];
      /** An existing audience: also count who would join and leave against its snapshot. */
      audienceId: number | null;
      /** That audience's destinations, as for a sync (a destination gained makes every member join). */
      destinationIds: number[] | null;
      sampleSize: number;
      now: number;
    }
  | {
      op: 'audience.sync';
      audienceId: number;
      reason: 'scheduled' | 'manual';
      now: number;
      nextSyncAt: number;
      /**
       * The destinations the audience chose that are enabled now (its messages get a delivery to each);
       * null: it chose none, so the enabled destinations connected to its source (the writer's routes).
       */
      destinationIds: number[] | null;
    };

/** What a preview found: the contract's view of it, as the writer computes it. */
export type PreviewOutcome = AudiencePreviewView;

export interface SyncOutcome {
  /** null: a scheduled sync that found nothing to send, which is not recorded (AudienceWriter#sync). */
  syncId: number | null;
  audienceId: number;
  sourceId: number;
  initial: boolean;
  members: number;
  joined: number;
  left: number;
  /** Ids of the identify messages stored (origin 'audience'). */
  messageIds: number[];
  deliveries: number;
  durationMs: number;
}

export type AudienceOutcome =
  | { op: 'audience.save'; audienceId: number }
  | { op: 'audience.delete'; deleted: boolean }
  | { op: 'audience.fold'; through: number; latest: number }
  | { op: 'audience.preview'; preview: PreviewOutcome }
  /** null: the audience was deleted before its sync ran. */
  | { op: 'audience.sync'; sync: SyncOutcome | null }
  /** The op failed and was undone (nothing else in the writer's transaction was). */
  | { op: 'error'; message: string };
