// When an audience syncs. Demo mode: at once after creation, then every `intervalSeconds`. Realistic
// mode, as the seed says (§6.3, §8): the first sync six or more hours after creation, later syncs two
// to three hours apart. Times come from the injected clock and randomness, so tests need not wait.
import {
  REALISTIC_FIRST_SYNC_MS,
  REALISTIC_FIRST_SYNC_SPREAD_MS,
  REALISTIC_LATER_MAX_MS,
  REALISTIC_LATER_MIN_MS,
  type SyncMode,
} from '../../../shared/audiences.ts';

export interface Timing {
  mode: SyncMode;
  intervalSeconds: number;
}

/** The first sync of an audience created (or made anew, e.g. renamed) at `now`. */
export function firstSyncAt(timing: Timing, now: number, random: () => number): number {
  return timing.mode === 'demo' ? now : now + REALISTIC_FIRST_SYNC_MS + Math.floor(random() * REALISTIC_FIRST_SYNC_SPREAD_MS);
}

/** The sync after one that ran at `syncedAt`. */
export function syncAfter(timing: Timing, syncedAt: number, random: () => number): number {
  return timing.mode === 'demo'
    ? syncedAt + timing.intervalSeconds * 1000
    : syncedAt + REALISTIC_LATER_MIN_MS + Math.floor(random() * (REALISTIC_LATER_MAX_MS - REALISTIC_LATER_MIN_MS));
}

/**
 * The next sync after the mode or interval changed: as if the new timing had applied from the start
 * (from creation when nothing was synced yet, else from the last sync), and never in the past.
 */
export function rescheduled(
  audience: Timing & { createdAt: number; lastSyncAt: number | null; nextSyncAt: number | null },
  timing: Timing,
  now: number,
  random: () => number,
): number {
  if (audience.nextSyncAt !== null && audience.mode === timing.mode && audience.intervalSeconds === timing.intervalSeconds) {
    return audience.nextSyncAt;
  }
  const at = audience.lastSyncAt === null ? firstSyncAt(timing, audience.createdAt, random) : syncAfter(timing, audience.lastSyncAt, random);
  return Math.max(now, at);
}
