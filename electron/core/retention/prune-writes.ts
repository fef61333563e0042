import type { DatabaseSync } from 'node:sqlite';
import type { Removed } from '../writer/protocol.ts';
import { emptySearchIndexes } from '../store/search-index.ts';
import { profileCursorRewinder } from '../store/profile-cursor.ts';


/**
 * The requests no message left can use, removed after each slice. Requests and their messages are stored
 * in arrival order, together: every request older than the oldest message's is empty once the oldest
 * messages are gone (no index by request_id is needed, which ingestion would pay for). A clear of some
 * messages in the middle leaves their requests (small rows) until pruning reaches them; so does an unused
 * request while an older one is still in use (a bound, not a count).
 *
 * That order holds for a client's messages (origin 'ingest'), not for the ones Sluice makes (a plan's
 * Violation Generated events, an audience sync's identifies: store/request-writes.ts,
 * audiences/audience-writer.ts), whose requests of their own (one per loop chain) are made inside a unit
 * as its messages need them, between the unit's other messages. A batch stores b1-0 under request 1, its
 * violation under request 2, b1-1 under request 1 again; a sync, identifies under chain requests 5, 6,
 * then 5 again. So the oldest request in use is the lower of two:
 * - a client's message's: the first among the oldest 5,000 messages (a run of messages without one — a
 *   sync's identifies — must not make each slice walk the table). A window without one removes no
 *   request, and the next slices read the window again until pruning has passed it: bounded, and rare;
 * - a made message's: the lowest of any, through messages_made_request (migration 28), one lookup.
 */
export const DELETE_UNUSED_REQUESTS = `DELETE FROM requests WHERE id < (SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM messages) THEN (SELECT coalesce(max(id), 0) + 1 FROM requests)
  ELSE min(
    (SELECT request_id FROM (SELECT request_id, origin FROM messages ORDER BY id LIMIT 5000) WHERE request_id IS NOT NULL AND origin = 'ingest' LIMIT 1),
    coalesce((SELECT min(request_id) FROM messages WHERE origin <> 'ingest' AND request_id IS NOT NULL), 9007199254740991)
  ) END)`;

/**
 * Removing messages, in the store's writer thread, a slice per write op (each a unit of a group
 * commit, so ingestion goes on between slices): a message goes with its deliveries (replays too), their
 * attempts (cascade; a forwarded request's record with the last message it carried), its audience-sync entry, and the requests no message left uses (DELETE_UNUSED_REQUESTS).
 * Deletion requests' notifications (deliveries without a message) are not touched. The tracking plan
 * counts follow by themselves (migration 10's triggers).
 */
export function pruneWrites(db: DatabaseSync) {
  const IDS = 'SELECT value FROM json_each(?)';
  const countDeliveries = db.prepare(`SELECT count(*) AS n FROM deliveries WHERE message_id IN (${IDS})`);
  // A forwarded message's attempt is its share of a request (forward_attempts); the request's record
  // goes with the last message it carried (migration 17's trigger), so a batch pruned in part keeps it.
  const countAttempts = db.prepare(
    `SELECT (SELECT count(*) FROM attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE message_id IN (${IDS})))
       + (SELECT count(*) FROM forward_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE message_id IN (${IDS}))) AS n`,
  );
  const deleteDeliveries = db.prepare(`DELETE FROM deliveries WHERE message_id IN (${IDS})`);
  const deleteSyncEntries = db.prepare(`DELETE FROM audience_sync_messages WHERE message_id IN (${IDS})`);
  const deleteMessages = db.prepare(`DELETE FROM messages WHERE id IN (${IDS})`);
  const deleteOlderRequests = db.prepare(DELETE_UNUSED_REQUESTS);
  const rewindProfiles = profileCursorRewinder(db);
  // The oldest messages first, by id (= arrival order: the pruner turns an age into an id), skipping
  // those still being delivered. A range of the table's own key: no scan beyond the slice.
  const OPEN = `EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id AND d.status IN ('pending', 'retrying', 'in_flight'))`;
  // A pinned message stays too (migration 23): the user asked to keep it.
  const oldest = db.prepare(`SELECT m.id, ${OPEN} AS open, m.pinned IS NOT NULL AS pinned FROM messages m WHERE m.id > ? AND m.id <= ? ORDER BY m.id LIMIT ?`);
  const setPinned = db.prepare(`UPDATE messages SET pinned = ? WHERE id IN (${IDS})`);
  const freePages = db.prepare('PRAGMA freelist_count');
  const anyMessage = db.prepare('SELECT 1 FROM messages LIMIT 1');
  const topId = db.prepare('SELECT coalesce(max(id), 0) AS id FROM messages'); // one lookup of the rowid

  /** Removes these messages (whatever their deliveries' states: the caller took them out of the engine's hands). */
  function remove(ids: number[]): Omit<Removed, 'lastId' | 'keptPending'> {
    if (ids.length === 0) return { messages: 0, deliveries: 0, attempts: 0, topId: top() };
    const list = JSON.stringify(ids);
    const attempts = (countAttempts.get(list, list) as { n: number }).n;
    const deliveries = (countDeliveries.get(list) as { n: number }).n;
    deleteDeliveries.run(list);
    deleteSyncEntries.run(list);
    const messages = Number(deleteMessages.run(list).changes);
    deleteOlderRequests.run();
    rewindProfiles(); // the newest gone: their ids are given again, and must be folded when they are
    // None left (a clear of everything): the search indexes are emptied at once (a cleared store kept
    // most of its size in them otherwise).
    if (messages > 0 && !anyMessage.get()) emptySearchIndexes(db);
    return { messages, deliveries, attempts, topId: top() };
  }

  function top(): number {
    return (topId.get() as { id: number }).id;
  }

  return {
    remove,
    /** One slice of pruning: up to `limit` messages after `afterId` with an id up to `upToId`, except those whose delivery is still open. */
    prune(afterId: number, upToId: number, limit: number): Removed {
      const rows = oldest.all(afterId, upToId, limit) as { id: number; open: number; pinned: number }[];
      const ids = rows.filter((r) => !r.open && !r.pinned).map((r) => r.id);
      const pinned = rows.filter((r) => r.pinned).length;
      return { ...remove(ids), lastId: rows.at(-1)?.id ?? 0, keptPending: rows.length - ids.length - pinned, keptPinned: pinned };
    },
    /** Pins (or unpins) these messages; how many of them exist. */
    pin(ids: number[], pinned: boolean): number {
      return Number(setPinned.run(pinned ? 1 : null, JSON.stringify(ids)).changes);
    },
    /** Gives up to `pages` free pages back to the file system (auto_vacuum = INCREMENTAL); how many are left. */
    vacuum(pages: number): number {
      db.exec(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`); // a pragma takes no bound parameter
      return (freePages.get() as { freelist_count: number }).freelist_count;
    },
  };
}
