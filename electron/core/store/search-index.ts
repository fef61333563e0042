// The stream's search indexes, writing side (migrations 11 and 12: trigrams of the ids, words of the
// whole message): indexes messages in slices, one transaction
// each — the newest first (upwards from `hi` as they arrive), then the older ones (downwards from
// `lo`: a store that had messages before the index existed). When to run a slice is the writer
// thread's business (writer-worker.ts): never in the way of a group commit.
import { transaction } from './connection.ts';
import type { StatementSync } from 'node:sqlite';
import type { DatabaseSync } from './sqlite.ts';

/** Each connection's statement of indexedRange: it is read at every search, every wait's look and every slice. */
const ranges = new WeakMap<DatabaseSync, StatementSync>();

/** The ids the search indexes hold: [lo, hi] (empty when lo > hi). */
export function indexedRange(db: DatabaseSync): { lo: number; hi: number } {
  let statement = ranges.get(db);
  if (!statement) ranges.set(db, (statement = db.prepare('SELECT lo, hi FROM search_index WHERE id = 1')));
  return statement.get() as { lo: number; hi: number };
}

/**
 * Empties both search indexes at once (a reset, a clear of everything), with their range: a contentless
 * index keeps what each 'delete' takes out until its segments merge, so removing messages one by one
 * would leave the indexes their size.
 */
export function emptySearchIndexes(db: DatabaseSync): void {
  db.exec(`
    INSERT INTO messages_search (messages_search) VALUES ('delete-all');
    INSERT INTO messages_text (messages_text) VALUES ('delete-all');
    UPDATE search_index SET lo = 1, hi = 0;
  `);
}

interface SearchIndexer {
  /** Indexes up to `limit` messages, the newest first; how many it indexed (fewer than `limit`: none is left). */
  step(limit: number): number;
  /** A step of merging each index's segments (about `pages` pages written in each); false: nothing was left to merge. */
  merge(pages: number): boolean;
}

/** ASCII-lowercased (lower() without ICU): the index is case-sensitive, so matches are LIKE's. */
const VALUES = 'id, lower(user_id), lower(anonymous_id), lower(message_id), lower(event)';

/**
 * The indexer of the writer thread. By default FTS5 merges an index's segments as they come
 * ('automerge'), inside the transaction that wrote the new one: at 1 M stored a slice of 200 new
 * messages then took up to 39 ms now and then, whatever it held (the search benchmark), in the way of
 * the group commits behind it. Merging is the indexer's own step instead (`merge`), which the writer
 * runs when it has time (writer/index-scheduler.ts): 'automerge' is off for both indexes (a setting
 * each index keeps). FTS5 still merges a level that reaches 16 segments by itself ('crisismerge'): that
 * bounds how many segments pile up if the steps never came, not how long the slice that crosses it
 * takes (a whole level at once), so the writer's steps go between its slices.
 */
export function searchIndexer(db: DatabaseSync, log: (line: string) => void = (line) => console.error(line)): SearchIndexer {
  for (const table of INDEXES) {
    try {
      // Written once (each writer start reads it): a write makes every reading connection load the index's settings again.
      const setting = db.prepare(`SELECT v FROM ${table}_config WHERE k = 'automerge'`).get() as { v: unknown } | undefined;
      if (setting?.v !== 0) db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('automerge', 0)`);
    } catch (error) {
      // Say, a full disk: FTS5 goes on merging inside the slices meanwhile, as it did before; nothing else changes.
      log(`sluice: could not turn FTS5's own merging off for ${table} (${(error as Error).message}); it merges as it indexes until the next start`);
    }
  }
  const tidy = mergeCommand(db);

  const newest = db.prepare('SELECT max(id) AS id, count(*) AS n FROM (SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?)');
  const oldest = db.prepare('SELECT min(id) AS id, count(*) AS n FROM (SELECT id FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?)');
  const trigrams = db.prepare(
    `INSERT INTO messages_search (rowid, user_id, anonymous_id, message_id, event) SELECT ${VALUES} FROM messages WHERE id BETWEEN ? AND ?`,
  );
  const words = db.prepare('INSERT INTO messages_text (rowid, raw) SELECT id, sluice_word_text(raw) FROM messages WHERE id BETWEEN ? AND ?');
  const index = { run: (from: number, to: number) => (trigrams.run(from, to), words.run(from, to)) };
  const setHi = db.prepare('UPDATE search_index SET hi = ? WHERE id = 1');
  const setLo = db.prepare('UPDATE search_index SET lo = ? WHERE id = 1');
  return {
    step(limit) {
      return transaction(db, () => {
        const { lo, hi } = indexedRange(db);
        let indexed = 0;
        const above = newest.get(hi, limit) as { id: number | null; n: number };
        if (above.id !== null) {
          index.run(hi + 1, above.id);
          setHi.run(above.id);
          indexed = above.n;
        }
        // The rest of the slice, if any, goes to older messages: fewer than `limit` indexed means none is left.
        if (indexed === limit || lo <= 1) return indexed;
        const below = oldest.get(lo, limit - indexed) as { id: number | null; n: number };
        if (below.id === null) {
          setLo.run(1); // nothing older left: everything is indexed
          return indexed;
        }
        index.run(below.id, lo - 1);
        // Fewer than asked for: none is older than these (the oldest may have been removed), everything is indexed.
        setLo.run(below.n < limit - indexed ? 1 : below.id);
        return indexed + below.n;
      });
    },
    // Positive: only a level with 4 segments or more ('usermerge'), as 'automerge' did, or one a merge is under way on.
    merge: (pages) => transaction(db, () => tidy(Math.max(1, Math.floor(pages)))),
  };
}

const INDEXES = ['messages_search', 'messages_text'];

/**
 * FTS5's 'merge' on both indexes, `pages` pages written in each (negative: every segment into one);
 * true if either had something to merge (FTS5's documented test: two changes or more).
 */
function mergeCommand(db: DatabaseSync): (pages: number) => boolean {
  const changes = db.prepare('SELECT total_changes() AS n');
  const total = () => Number((changes.get() as { n: number | bigint }).n);
  const merges = INDEXES.map((table) => db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`));
  return (pages) => {
    let more = false;
    for (const merge of merges) {
      const before = total();
      merge.run(pages);
      if (total() - before >= 2) more = true;
    }
    return more;
  };
}

/**
 * Merging the search indexes (after retention or a clear removed messages). Both are contentless:
 * a removed message leaves a 'delete' entry beside what it took out, and the space comes back only
 * when a merge writes the oldest segment again — which FTS5's own merges do ever more rarely as the
 * index grows. Measured through ingestion with 50,000 messages kept of 300,000 sent, the two indexes
 * held 220 MB against 32 MB for a fresh index of the same messages, and were still growing. Each call
 * does one slice (`pages` pages written) of a merge of every segment into one ('merge' with a
 * negative count: an incremental 'optimize', which drops the 'delete' entries and what they took
 * out); true while there is more to do. A merge begins again whenever the index gets a new segment
 * (indexing, a removal), so the writer indexes nothing while one is under way (writer-worker.ts).
 * FTS5's 'secure-delete' was measured too: it pruned 26 times slower and the index still grew.
 */
export function indexMerger(db: DatabaseSync): (pages: number) => boolean {
  const merge = mergeCommand(db);
  return (pages) => merge(-Math.max(1, Math.floor(pages)));
}
