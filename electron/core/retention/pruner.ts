// Retention: when the store is over one of its limits (age, count, size), the oldest messages go —
// with their deliveries and attempts — in slices of a few hundred, each a unit of the writer's group
// commits, so ingestion goes on between them; never a message whose delivery is still open. The
// policy (which limit, how far) is here; the SQL is retention/prune-writes.ts, in the writer thread.
import type { DatabaseSync } from 'node:sqlite';
import { DEFAULT_RETENTION, retentionSchema, type Retention } from '../../../shared/retention.ts';
import type { PruneReport } from '../../../shared/storage.ts';
import type { EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import type { StoreWriter } from '../writer/store-writer.ts';

/** Messages per slice: small enough that a slice is a few milliseconds of the writer's time. */
export const SLICE = 500;
/** Pages given back to the disk per vacuum op (4 KB each: 8 MB). */
const VACUUM_PAGES = 2048;
/**
 * Pages written per slice of a merge of the search indexes (200 KB): a slice also reads what it drops,
 * so one of an index mostly removed reads many times that (measured: 200 pages took 140 ms there).
 */
const MERGE_PAGES = 50;
/**
 * The search indexes are merged once the messages removed from them since their last merge reach
 * this share of the messages they hold: measured with 50,000 kept of 300,000 sent (pruned every
 * 10,000), they then stay within 1.3× a fresh index's size (1.14× on average) for merging work of
 * about 0.7× the pruning's own time; merging after every prune kept them at 1.0× for twice the work.
 */
const MERGE_SHARE = 0.25;
const EVERY_MS = 60_000;
const FIRST_AFTER_MS = 5_000;
const DAY_MS = 86_400_000;

type Source = 'config' | 'settings' | 'default';
const SETTING = 'retention';
const LAST_PRUNE = 'retention.lastPrune';
/** Messages removed from the search indexes since they were last merged (kept across restarts). */
const UNMERGED = 'retention.unmergedRemovals';

export interface PrunerOptions {
  /** The main thread's connection (reads, and the settings row). */
  db: DatabaseSync;
  writer: StoreWriter;
  bus: EventBus;
  clock: Clock;
  /** The config file's retention, which wins at each start. */
  configured?: Retention | undefined;
  /** Log lines (a prune's report); console.error by default. */
  log?: (line: string) => void;
  /** false: the search indexes are never merged after removals (only the retention benchmark's comparison). */
  mergeIndexes?: boolean;
}

/** Which limits a store is over, as a prune pass reads them (Pruner #over). */
interface Limits {
  ageUpToId: number;
  budget: number;
  overBytes: boolean;
  maxId: number;
  reason: PruneReport['reason'];
}

export class Pruner {
  readonly #o: PrunerOptions;
  readonly #log: (line: string) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<PruneReport | null> | undefined;
  #closed = false;
  /** Messages removed from the search indexes since they were last merged (saved with each prune's report). */
  #unmerged: number;

  constructor(options: PrunerOptions) {
    this.#o = options;
    this.#log = options.log ?? ((line) => console.error(line));
    if (options.configured) this.#save(options.configured, 'config');
    this.#unmerged = Number(this.#setting(UNMERGED)?.value ?? 0);
  }

  /** What the config file sets, if anything: it wins at each start. */
  get configured(): Retention | null {
    return this.#o.configured ?? null;
  }

  /** The retention in use and where it comes from. */
  retention(): { retention: Retention; from: Source } {
    const row = this.#setting(SETTING);
    if (!row) return { retention: DEFAULT_RETENTION, from: 'default' };
    const saved = JSON.parse(row.value) as { retention: unknown; from: Source };
    const parsed = retentionSchema.safeParse(saved.retention);
    return parsed.success ? { retention: parsed.data, from: saved.from } : { retention: DEFAULT_RETENTION, from: 'default' };
  }

  /** Settings changed it: kept in the store (a config file's retention wins again at the next start); prunes now. */
  async setRetention(retention: Retention): Promise<PruneReport | null> {
    this.#save(retention, 'settings');
    return this.run();
  }

  lastPrune(): PruneReport | null {
    const row = this.#setting(LAST_PRUNE);
    return row ? (JSON.parse(row.value) as PruneReport) : null;
  }

  /** Prunes every minute (the first time a few seconds after start). */
  start(): void {
    const tick = (after: number) => {
      this.#timer = setTimeout(() => {
        void this.run()
          .catch((error: unknown) => this.#log(`sluice: pruning failed: ${(error as Error).message}; it tries again in a minute`))
          .finally(() => !this.#closed && tick(EVERY_MS));
      }, after);
      this.#timer.unref();
    };
    tick(FIRST_AFTER_MS);
  }

  /** One pass, unless one runs (then that one's outcome): prunes to every limit, merges the search indexes when due, then gives the pages back. Null when nothing was over. */
  run(): Promise<PruneReport | null> {
    this.#running ??= this.#pass().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** Called after a clear removed messages: records it as the last prune, merges the search indexes when due, and vacuums. */
  async cleared(removed: Omit<PruneReport, 'at' | 'reason' | 'keptPending' | 'tookMs'>, tookMs: number): Promise<number> {
    this.#unmerged += removed.messages;
    try {
      await this.#mergeIfDue();
      return await this.vacuum();
    } finally {
      // Reported even when the merge or the vacuum failed: the messages went, and the pages showing
      // them (their rows, the footer's counts) hear of it only here.
      this.#report({ ...removed, at: this.#o.clock.now(), reason: 'clear', keptPending: 0, tookMs });
    }
  }

  /** A deletion request purged `messages`: what they left in the search indexes counts toward the next merge (at the next prune or clear). */
  purged(messages: number): void {
    if (messages <= 0 || this.#closed) return;
    this.#unmerged += messages;
    this.#saveSetting(UNMERGED, this.#unmerged);
  }

  /** Gives free pages back to the disk, when the store can (auto_vacuum incremental); the bytes the file shrank by. */
  async vacuum(): Promise<number> {
    const pragma = (name: string) => this.#number(`PRAGMA ${name}`);
    if (pragma('auto_vacuum') !== 2) return 0;
    const before = pragma('page_count');
    for (let free = pragma('freelist_count'); free > 0 && !this.#closed; ) {
      free = (await this.#o.writer.write({ op: 'vacuum', pages: VACUUM_PAGES })).free ?? 0;
    }
    return (before - pragma('page_count')) * pragma('page_size');
  }

  /**
   * Merges the search indexes, in slices (store/search-index.ts indexMerger): what removed messages
   * left in them goes, and their pages are free for vacuum() to give back.
   */
  async #mergeIndexes(): Promise<void> {
    for (;;) {
      const { more, restMs } = await this.#o.writer.write({ op: 'mergeIndexes', pages: MERGE_PAGES });
      if (!more || this.#closed) break;
      if (restMs) await new Promise((resolve) => setTimeout(resolve, restMs)); // messages are arriving: they go first
    }
    if (!this.#closed) this.#unmerged = 0;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  async #pass(): Promise<PruneReport | null> {
    const { retention } = this.retention();
    const limits = this.#over(retention);
    if (!limits) return null;
    const started = Date.now();
    const report: PruneReport = { at: 0, messages: 0, deliveries: 0, attempts: 0, reason: limits.reason, keptPending: 0, tookMs: 0 };
    const done = () => {
      report.at = this.#o.clock.now();
      report.tookMs = Date.now() - started;
      this.#report(report);
    };
    try {
      await this.#removeOver(retention, limits, report);
    } catch (error) {
      // What went is reported even when a later slice, the merge or the vacuum failed (the caller logs
      // the failure): the pages showing those messages hear of it only here.
      if (report.messages > 0) done();
      throw error;
    }
    done();
    return report;
  }

  /** Removes what is over the limits, oldest first, adding it up in `report`; then merges the indexes when due, and vacuums. */
  async #removeOver(retention: Retention, limits: Limits, report: PruneReport): Promise<void> {
    let { budget, overBytes } = limits;
    // Oldest first: everything up to the age limit's id, then on while the count or the size is over. The
    // age's slices end at its id: one that ran on to the newest (the count over too) removed a whole slice
    // where the count asked for fewer (before 2026-12-01: 10 old and 10 over the count removed 500).
    for (let afterId = 0; !this.#closed; ) {
      const aged = afterId < limits.ageUpToId;
      if (!aged && budget <= 0 && !overBytes) break;
      const upToId = aged ? limits.ageUpToId : limits.maxId;
      if (upToId <= afterId) break;
      const limit = aged || overBytes ? SLICE : Math.min(SLICE, budget);
      const { removed } = await this.#o.writer.write({ op: 'prune', afterId, upToId, limit });
      if (!removed) break;
      if (removed.lastId === 0) {
        // Nothing left up to the age's id (a clear took it meanwhile): on to the count, if it is over.
        if (aged) {
          afterId = limits.ageUpToId;
          continue;
        }
        break;
      }
      if (removed.messages > 0) this.#o.bus.emit('messages.removed', { topId: removed.topId }); // now: a follower reads on from there
      afterId = removed.lastId;
      report.messages += removed.messages;
      report.deliveries += removed.deliveries;
      report.attempts += removed.attempts;
      report.keptPending += removed.keptPending;
      if (removed.keptPinned) report.keptPinned = (report.keptPinned ?? 0) + removed.keptPinned;
      budget -= removed.messages;
      this.#unmerged += removed.messages;
      if (overBytes) {
        // The indexes' pages count: what removed messages left in them is given back before more go.
        if (this.#usedBytes() > retention.maxBytes!) await this.#mergeIfDue();
        overBytes = this.#usedBytes() > retention.maxBytes!;
      }
    }
    if (overBytes && !this.#closed) {
      this.#log(`sluice: the store is still over its size limit (${retention.maxBytes!.toLocaleString('en-US')} bytes) with every message it may prune gone: raise the limit, or clear what is kept`);
    }
    if (report.messages > 0) {
      await this.#mergeIfDue();
      await this.vacuum();
    }
  }

  /** Merges the search indexes once enough was removed from them since the last merge (MERGE_SHARE of what they hold). */
  async #mergeIfDue(): Promise<void> {
    if (this.#o.mergeIndexes === false || this.#closed) return;
    // The indexed range's lower end stays where indexing began: pruned ids below it are not held.
    const held = Math.max(0, this.#number('SELECT hi - max(lo, (SELECT coalesce(min(id), 0) FROM messages)) + 1 FROM search_index'));
    if (this.#unmerged >= MERGE_SHARE * held) await this.#mergeIndexes();
  }

  /** The database's pages in use, in bytes (freed pages do not count: they are reused, or given back by vacuum()). */
  #usedBytes(): number {
    return (this.#number('PRAGMA page_count') - this.#number('PRAGMA freelist_count')) * this.#number('PRAGMA page_size');
  }

  /**
   * Which limits the store is over, each cheap to tell on a store of millions (the pass then prunes
   * oldest first until within them, re-reading the size as it goes): the newest id older than the age
   * limit (a seek on the received_at index), how many messages are over the count (counted only when
   * the id range says it might be), and whether the pages in use are over the size. Null when within all.
   */
  #over(retention: Retention): Limits | null {
    const one = (sql: string, ...params: number[]) => this.#number(sql, ...params);
    const maxId = one('SELECT coalesce(max(id), 0) FROM messages');
    if (maxId === 0) return null;
    const ageUpToId =
      retention.maxAgeDays === null
        ? 0
        : one('SELECT id FROM messages INDEXED BY messages_received WHERE received_at < ? ORDER BY received_at DESC LIMIT 1', this.#o.clock.now() - retention.maxAgeDays * DAY_MS);
    let budget = 0;
    if (retention.maxMessages !== null && maxId - one('SELECT coalesce(min(id), 0) FROM messages') + 1 > retention.maxMessages) {
      // The id range only bounds the count from above (clears leave gaps): count when it might be over.
      budget = one('SELECT count(*) FROM messages') - retention.maxMessages;
    }
    const overBytes = retention.maxBytes !== null && this.#usedBytes() > retention.maxBytes;
    if (ageUpToId === 0 && budget <= 0 && !overBytes) return null;
    const reason = ageUpToId > 0 ? 'maxAgeDays' : budget > 0 ? 'maxMessages' : 'maxBytes';
    return { ageUpToId, budget: Math.max(0, budget), overBytes, maxId, reason };
  }

  #setting(key: string): { value: string } | undefined {
    return this.#o.db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
  }

  #saveSetting(key: string, value: unknown): void {
    this.#o.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, JSON.stringify(value));
  }

  /** The first column of a one-row query (a pragma, a count, an id); 0 when there is no row. */
  #number(sql: string, ...params: number[]): number {
    const row = this.#o.db.prepare(sql).get(...params) as object | undefined;
    return Number(row ? (Object.values(row)[0] ?? 0) : 0);
  }

  /**
   * Tells what a pass removed (the log line, `storage.pruned`), then records it as the last prune. The
   * pages showing those messages hear of the removal only here, so they are told first: a record that
   * cannot be saved (a full disk) is logged, not thrown over the removal or over the pass's own error.
   */
  #report(report: PruneReport): void {
    if (report.messages > 0 || report.keptPending > 0) {
      const why = { maxAgeDays: 'older than the retention', maxMessages: 'over the message limit', maxBytes: 'over the size limit', clear: 'cleared' }[report.reason];
      const kept = report.keptPending > 0 ? `; kept ${report.keptPending.toLocaleString('en-US')} whose delivery is still pending or retrying` : '';
      this.#log(
        `sluice: removed ${report.messages.toLocaleString('en-US')} messages (${why}) with ${report.deliveries.toLocaleString('en-US')} deliveries and ` +
          `${report.attempts.toLocaleString('en-US')} attempts in ${(report.tookMs / 1000).toFixed(1)} s${kept}`,
      );
      this.#o.bus.emit('storage.pruned', report);
    }
    // The count of removals the search indexes still hold decides their next merge, after a restart too:
    // saved first, and apart from the record, which only the settings page shows.
    this.#saveOrLog(UNMERGED, this.#unmerged, 'the removals the search indexes still hold');
    this.#saveOrLog(LAST_PRUNE, report, 'the last prune');
  }

  /** Saves a setting after a removal; one the store refuses (a full disk) is logged: the removal stands. */
  #saveOrLog(key: string, value: unknown, what: string): void {
    try {
      this.#saveSetting(key, value);
    } catch (error) {
      this.#log(`sluice: could not save ${what} in the store; what was removed stays removed: ${(error as Error).message}`);
    }
  }

  #save(retention: Retention, from: Source): void {
    this.#saveSetting(SETTING, { retention, from });
  }
}
