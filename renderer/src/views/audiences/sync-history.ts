/**
 * What the sync history lists, so the syncs that sent something stay in sight: scheduled syncs that
 * find nothing to send are not recorded (the core's AudienceWriter), and are said in one line above
 * the table ("checked since 10:02:11, nothing changed; last check 12 s ago"); in a store from before
 * that, recorded runs of them read as one row each. Pure, tested in Node.
 */
import type { AudienceSyncView } from '../../../../shared/audiences.ts';
import { plural } from '../../lib/format.ts';

export type HistoryEntry =
  | { kind: 'sync'; sync: AudienceSyncView }
  /** Recorded scheduled syncs in a row that sent nothing: newest first, `from`–`to`. */
  | { kind: 'quiet'; key: number; checks: number; from: number; to: number; members: number };

/** A recorded sync that sent nothing by itself (not a user's Sync now, not an audience's first sync). */
function quiet(sync: AudienceSyncView): boolean {
  return sync.reason === 'scheduled' && !sync.initial && sync.messages === 0;
}

/** The syncs (newest first) as rows: two or more quiet syncs in a row become one. */
export function historyEntries(syncs: readonly AudienceSyncView[]): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  let run: AudienceSyncView[] = [];
  const flush = () => {
    if (run.length === 1) out.push({ kind: 'sync', sync: run[0]! });
    else if (run.length > 1) {
      out.push({ kind: 'quiet', key: run[0]!.id, checks: run.length, from: run.at(-1)!.at, to: run[0]!.at, members: run[0]!.members });
    }
    run = [];
  };
  for (const sync of syncs) {
    if (quiet(sync)) {
      run.push(sync);
      continue;
    }
    flush();
    out.push({ kind: 'sync', sync });
  }
  flush();
  return out;
}

/**
 * The checks since the newest recorded sync, which found nothing to send and so are not listed:
 * from that sync's time to the audience's last sync; null when there were none.
 */
export function quietSince(lastSyncAt: number | null, syncs: readonly Pick<AudienceSyncView, 'at'>[]): { since: number; last: number } | null {
  const newest = syncs[0]?.at;
  if (lastSyncAt === null || newest === undefined || lastSyncAt <= newest) return null;
  return { since: newest, last: lastSyncAt };
}

/** "checked 14 times since 10:02:11, nothing changed" — a quiet row's words. */
export function quietWords(checks: number, from: string): string {
  return `checked ${plural(checks, 'time')} since ${from}, nothing changed`;
}
