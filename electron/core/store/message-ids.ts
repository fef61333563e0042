/**
 * The ids of the messages holding a messageId in their column, through B-trees (a few lookups, however
 * many are stored): an accepted message through the dedupe index `(source_id, message_id)`, once per
 * source found in it (a skip-scan written out: each next source is one seek, so deleted sources' messages
 * are found too); a refused or duplicate one through `messages_unaccepted_id` (migration 20). SQLite's
 * planner would skip-scan the dedupe index only given statistics (sqlite_stat1) that would change its
 * choices on every query of the table; this form needs none.
 */

const ACCEPTED = `SELECT a.id FROM (
    WITH RECURSIVE held(source) AS (
      SELECT (SELECT min(source_id) FROM messages INDEXED BY messages_dedupe WHERE status = 'accepted')
      UNION ALL
      SELECT (SELECT min(source_id) FROM messages INDEXED BY messages_dedupe WHERE status = 'accepted' AND source_id > held.source)
        FROM held WHERE held.source IS NOT NULL
    ) SELECT source FROM held WHERE source IS NOT NULL
  ) s CROSS JOIN messages a INDEXED BY messages_dedupe ON a.source_id = s.source AND a.message_id = ? AND a.status = 'accepted'`;

const UNACCEPTED = `SELECT u.id FROM messages u INDEXED BY messages_unaccepted_id WHERE u.message_id = ? AND u.status <> 'accepted'`;

/**
 * A condition on `messages m`: its message_id column is `messageId` (of the status named, when one is),
 * read by id through the B-trees above.
 */
export function messageIdCondition(messageId: string, status?: string): { sql: string; params: string[] } {
  const parts = status === 'accepted' ? [ACCEPTED] : status === undefined ? [ACCEPTED, UNACCEPTED] : [UNACCEPTED];
  return { sql: `m.id IN (${parts.join(' UNION ALL ')})`, params: parts.map(() => messageId) };
}
