/**
 * How far stored messages are folded into the audiences' profiles (audiences/profile-fold.ts): the last
 * message id folded, kept in `settings`. The store gives the highest ids again after the newest messages
 * are deleted (messages has no AUTOINCREMENT), so whatever deletes messages — a prune, a clear, a purge —
 * moves the cursor back to the highest id left, in the same transaction; otherwise the messages stored
 * next, under ids already passed, would never be folded.
 */
import type { DatabaseSync } from 'node:sqlite';

export const PROFILE_CURSOR_KEY = 'profiles.folded_through';

/** After messages were deleted: the cursor no further than the highest id still stored. Call in the deleting transaction. */
export function profileCursorRewinder(db: DatabaseSync): () => void {
  const rewind = db.prepare(
    `UPDATE settings SET value = CAST((SELECT coalesce(max(id), 0) FROM messages) AS TEXT)
     WHERE key = '${PROFILE_CURSOR_KEY}' AND CAST(value AS INTEGER) > (SELECT coalesce(max(id), 0) FROM messages)`,
  );
  return () => void rewind.run();
}
