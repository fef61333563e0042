/**
 * The store over months: how much it keeps (retention), what it holds (storage figures), and clearing
 * it. The config's `retention`, the inspector's Settings, the contract's `storage.*` channels (shared/channels/storage.ts).
 * Depends on zod only.
 */
import { z } from 'zod';
import { messageFilterSchema } from './message-filter.ts';
import type { Retention } from './retention.ts';

export { DEFAULT_RETENTION, retentionSchema, type Retention } from './retention.ts';

/** What one pruning pass removed. */
export interface PruneReport {
  at: number;
  messages: number;
  deliveries: number;
  attempts: number;
  /** Which limit it pruned for: the first that was over. */
  reason: 'maxAgeDays' | 'maxMessages' | 'maxBytes' | 'clear';
  /** Messages it had to keep because a delivery of theirs is still pending or retrying. */
  keptPending: number;
  /** Messages it kept because they are pinned (absent: none). */
  keptPinned?: number;
  tookMs: number;
}

/** What the store holds, for Settings. Counts of millions are estimates from ids where counting would scan (`approximate`). */
export interface StorageView {
  dataDir: string;
  databaseFile: string;
  messages: number;
  deliveries: number;
  attempts: number;
  approximate: boolean;
  /** The database file, its WAL, and the pages free inside the file (reused before the file grows). */
  databaseBytes: number;
  walBytes: number;
  freeBytes: number;
  oldestMessageAt: number | null;
  newestMessageAt: number | null;
  retention: Retention;
  /** Where the retention in use comes from: the config file (its values win at each start), Settings, or the defaults. */
  retentionFrom: 'config' | 'settings' | 'default';
  /** What the config file sets (it wins again at the next start, over a change saved in Settings); null when it sets none. */
  configured: Retention | null;
  lastPrune: PruneReport | null;
}

/**
 * The check of the whole store that runs in the background after start (electron/core/store-check/):
 * every table read a slice at a time, each row looked up in its indexes. A round that a stop
 * interrupts resumes at the next start.
 */
export interface StoreCheckView {
  /**
   * `waiting`: not begun yet (a few seconds after start); `checking`; `sound`: every table was read
   * and nothing found; `damaged`: see StoreHealth.damage; `stopped`: it could not go on (the log says why).
   */
  state: 'waiting' | 'checking' | 'sound' | 'damaged' | 'stopped';
  /** `start`: the store was small enough for the start to check it whole (quick_check); nothing runs after. */
  by: 'background' | 'start';
  /** When this round began, and ended (null until it has). A round resumed after a restart keeps its start. */
  startedAt: number | null;
  finishedAt: number | null;
  /** Rows read in this round so far (in every run of it), and tables read of all the store's. */
  rows: number;
  tables: { checked: number; total: number | null };
  /** This round was begun by an earlier run of Sluice and resumed by this one. */
  resumed: boolean;
}

/** What is known of the store's soundness while Sluice runs (the inspector's banner, `/api/v1/stats`). */
export interface StoreHealth {
  check: StoreCheckView;
  /**
   * Damage found while running — by the background check, or by a read or a write — as the sentence
   * that says what and the fix, and the command to run once Sluice is stopped; null when none was found.
   * It is noted beside the store (`<dataDir>/store-damaged`), so the next start checks all of it.
   */
  damage: { message: string; foundAt: number; fix: string } | null;
}

/** Which messages a clear removes: every one, one source's, or those a stream filter matches. */
export const clearScopeSchema = z.union([
  z.strictObject({ all: z.literal(true) }),
  z.strictObject({ sourceId: z.number().int().positive() }),
  /** The stream's current filter, as a filter replay takes it. */
  z.strictObject({ filter: messageFilterSchema }),
]);
export type ClearScope = z.infer<typeof clearScopeSchema>;

/** A dropped file's size limit, in characters (the WebSocket frame that carries it has a limit of its own). */
export const IMPORT_MAX_CHARS = 16 * 1024 * 1024;

/** A download from the inspector holds at most this many messages. */
export const EXPORT_MAX_MESSAGES = 100_000;
/** …and at most this many characters (the rest: `sluice export`, or the HTTP API's streaming export). */
export const EXPORT_MAX_CHARS = 256 * 1024 * 1024;

/** Why a message read from a file was not sent: Sluice made it (the relay makes its own), an export's rejected message whose text it could not keep whole, a HAR entry that is not a Tracking API call. */
export type ImportSkipReason = 'sluice-made' | 'not-kept' | 'not-tracking-api';

/** What an import says of the messages it did not send, by why (`sluice import` and the inspector's drop alike); `n` is the count, formatted. */
export const IMPORT_SKIPPED: Record<ImportSkipReason, (n: string, one: boolean) => string> = {
  'sluice-made': (n) => `${n} not sent: made by Sluice itself (audience syncs' identifies, Violation Generated events); the relay makes its own`,
  'not-kept': (n) => `${n} not sent: rejected, and the export could not keep its text whole (not JSON, too large or too deep)`,
  'not-tracking-api': (n, one) => `${n} HAR ${one ? 'entry' : 'entries'} skipped: not ${one ? 'a POST' : 'POSTs'} to the Tracking API (/v1/batch, /v1/track, …)`,
};

/** What an import says of the messages refused again (`n` formatted). */
export const importRefusedAgain = (n: string): string => `${n} refused again, as the export says they were the first time (not counted as refused)`;

/** What a dropped file's import did: every count whole, only the first refusals and unreadable lines listed. */
export interface ImportOutcome {
  format: 'ndjson' | 'har';
  sent: number;
  accepted: number;
  /** Messages ingestion refused, but those the file says it refused the first time too (refusedAgain). */
  refusedCount: number;
  /** The first of them, to list. */
  refused: { line: number | null; reason: string }[];
  /** Refused again, as the export says they were the first time: not a failure of the import. */
  refusedAgain: number;
  /** Lines that are not messages. */
  unreadableCount: number;
  /** The first of them, to list. */
  unreadable: { line: number; reason: string }[];
  /** What was read but not sent, by why (only reasons that occurred). */
  skipped: { reason: ImportSkipReason; count: number }[];
}
