// The stream's search indexes, writing side (migrations 11 and 12: trigrams of the ids, words of the
// whole message): indexes messages in slices, one transaction
// each — the newest first (upwards from `hi` as they arrive), then the older ones (downwards from
// `lo`: a store that had messages before the index existed). When to run a slice is the writer
// thread's business (writer-worker.ts): never in the way of a group commit.
import { transaction } from './connection.ts';
import type { DatabaseSync } from './sqlite.ts';

/** The ids the search indexes hold: [lo, hi] (empty when lo > hi). */
export function indexedRange(db: DatabaseSync): { lo: number; hi: number } {
  return db.prepare('SELECT lo, hi FROM search_index WHERE id = 1').get() as { lo: number; hi: number };
}

interface SearchIndexer {
  /** Indexes up to `limit` messages; whether any are left. */
  step(limit: number): boolean;
}

/** ASCII-lowercased (lower() without ICU): the index is case-sensitive, so matches are LIKE's. */
const VALUES = 'id, lower(user_id), lower(anonymous_id), lower(message_id), lower(event)';

export function searchIndexer(db: DatabaseSync): SearchIndexer {

  const newest = db.prepare('SELECT max(id) AS id FROM (SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?)');
  const oldest = db.prepare('SELECT min(id) AS id FROM (SELECT id FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?)');
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
        const top = (newest.get(hi, limit) as { id: number | null }).id;
        if (top !== null) {
          index.run(hi + 1, top);
          setHi.run(top);
          return true;
        }
        if (lo <= 1) return false;
        const bottom = (oldest.get(lo, limit) as { id: number | null }).id;
        if (bottom === null) {
          setLo.run(1); // nothing older left: everything is indexed
          return false;
        }
        index.run(bottom, lo - 1);
        setLo.run(bottom);
        return true;
      });
    },
  };
}
