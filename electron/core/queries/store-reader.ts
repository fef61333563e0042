/**
 * Where a test's question reads the store: on the core's thread while the store is small (a read of a
 * few thousand rows costs less than a hop to another thread), for what a messageId names (read by id
 * through B-trees: store/message-ids.ts), or for messages named by an id the
 * trigram index finds (a few rows) while it covers all but a few thousand of them; on the counting
 * thread otherwise
 * (count-worker.ts): a filter no index narrows may read every row, which must not hold the thread that
 * answers ingestion. Reads ids only; the rows they name are read and converted by the caller.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { DeliveriesRepo } from '../store/deliveries-repo.ts';
import { compileQuery } from '../store/message-query-sql.ts';
import { indexedRange } from '../store/search-index.ts';
import { idsOf, type IdsQuery, type MessageCounter } from '../store/message-counter.ts';
import type { MessagesRepo } from '../store/messages-repo.ts';
import { storeStats, type StoreStats } from '../store/store-stats.ts';

/** Ids a list or a wait's first look reads per step. */
export const READ_STEP = 500;

/** Up to this many ids between the oldest and the newest row, a question is read on the core's thread. */
export const SMALL_STORE_ROWS = 20_000;

export interface ReaderParts {
  db: DatabaseSync;
  messages: MessagesRepo;
  deliveries: DeliveriesRepo;
  counter: MessageCounter;
}

export class StoreReader {
  readonly #p: ReaderParts;
  #lanes = 0;
  readonly #statements = new Map<string, StatementSync>();

  constructor(parts: ReaderParts) {
    this.#p = parts;
  }

  /** Ids as the repos' idsAfter give them; a QueryError (here, on this thread) when the search does not parse. */
  async ids(query: IdsQuery): Promise<number[]> {
    const search = compileQuery(query.search);
    // An id's trigrams pick a few rows; words (an event, a payload string, a search) may pick half the store.
    const byTrigrams = search.index === null && query.terms.index?.table === 'messages_search';
    const byId = search.index === null && query.terms.byId === true;
    if (byId || this.#small(query.of) || (query.of === 'messages' && byTrigrams && this.#unindexed() <= SMALL_STORE_ROWS)) {
      return idsOf(this.#p, query);
    }
    return this.#p.counter.ids(query, `ids:${++this.#lanes}`);
  }

  /** The newest message's id (0: none stored): a follower starts after it (one lookup of the rowid). */
  topId(): number {
    return (this.#statement('top', 'SELECT coalesce(max(id), 0) AS top FROM messages').get() as { top: number }).top;
  }

  /**
   * The id of the first message received at or after `ms` (through the received_at index: one seek,
   * whatever the store's size), or null when none was.
   */
  firstIdFrom(ms: number): number | null {
    const sql = 'SELECT id FROM messages INDEXED BY messages_received WHERE received_at >= ? ORDER BY received_at, id LIMIT 1';
    return (this.#statement('firstFrom', sql).get(ms) as { id: number } | undefined)?.id ?? null;
  }

  /** How many messages are stored. */
  async total(): Promise<number> {
    if (this.#small('messages')) return (this.#statement('total', 'SELECT count(*) AS n FROM messages').get() as { n: number }).n;
    return (await this.#p.counter.count({}, `total:${++this.#lanes}`)).total;
  }

  async stats(): Promise<StoreStats> {
    return this.#small('messages') && this.#small('deliveries') ? storeStats(this.#p.db) : this.#p.counter.stats();
  }

  /** How many ids the search indexes do not cover yet (read one by one by a search: store/message-search.ts). */
  #unindexed(): number {
    const { lo, hi } = indexedRange(this.#p.db);
    return this.topId() - hi + Math.max(0, lo - 1);
  }

  /** Whether the table's ids span at most SMALL_STORE_ROWS (two lookups of its rowid: no scan). */
  #small(table: 'messages' | 'deliveries'): boolean {
    const sql = `SELECT coalesce((SELECT max(id) FROM ${table}) - (SELECT min(id) FROM ${table}) + 1, 0) AS span`;
    return (this.#statement(table, sql).get() as { span: number }).span <= SMALL_STORE_ROWS;
  }

  /** These reads run before every list page and wait: prepared once. */
  #statement(name: string, sql: string): StatementSync {
    let statement = this.#statements.get(name);
    if (!statement) this.#statements.set(name, (statement = this.#p.db.prepare(sql)));
    return statement;
  }
}
