import { PROFILE_CURSOR_KEY } from './profile-cursor.ts';
import type { DatabaseSync } from 'node:sqlite';
import { emptySearchIndexes } from './search-index.ts';

/**
 * Forgets what was received and sent — messages and their requests, deliveries and attempts, the
 * groups of Issues, deletion requests, the profiles audiences are computed from, audience memberships
 * and sync history — and keeps what was configured: sources, destinations, audience definitions, this
 * Sluice's id (sluice/testing's reset(), a test's clean slate). In the caller's transaction. The
 * profile fold starts again from the first message (ids are given again from 1). Pinned messages go
 * too, unlike in a clear: a reset is a clean slate, and as ids start again from 1 a kept pin would
 * stand for a message that is not the one pinned. Issues groups' ids are not given again
 * (AUTOINCREMENT, migration 25): an `issue:3` search or a retry of group 3 from before the reset
 * finds nothing rather than a new, unrelated group 3.
 */
export function storeResetter(db: DatabaseSync): () => number {
  const countMessages = db.prepare('SELECT count(*) AS n FROM messages');
  return () => {
    const { n } = countMessages.get() as { n: number };
    db.exec(`
      DELETE FROM issue_deliveries;
      DELETE FROM issues;
      DELETE FROM attempts;
      DELETE FROM forward_attempts;
      DELETE FROM forward_requests;
      DELETE FROM deliveries;`);
    // The search indexes emptied at once, not message by message (their trigger then has nothing to do).
    emptySearchIndexes(db);
    db.exec(`
      DELETE FROM messages;
      DELETE FROM requests;
      DELETE FROM deletion_requests;
      DELETE FROM audience_sync_messages;
      DELETE FROM audience_syncs;
      DELETE FROM audience_members;
      DELETE FROM audience_sent_users;
      DELETE FROM profile_events;
      DELETE FROM profile_traits;
      DELETE FROM profile_users;
      DELETE FROM settings WHERE key = '${PROFILE_CURSOR_KEY}';
      DELETE FROM event_counts;
    `);
    return Number(n);
  };
}
