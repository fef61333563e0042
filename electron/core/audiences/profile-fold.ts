// Folds stored messages into the per-user profile tables (profile_users, profile_traits,
// profile_events) that audience rules are evaluated over. Incremental: a cursor in `settings`
// remembers the last message id folded, and each call folds the next messages in id order, so the
// cost is paid once per message and a rule never scans the messages table. Runs in the store's
// writer thread, in bounded chunks, between group commits.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { mergeChains } from '../../../shared/loop-guard.ts';

import { PROFILE_CURSOR_KEY as CURSOR_KEY, profileCursorRewinder } from '../store/profile-cursor.ts';

/**
 * What the profiles are made of: accepted messages with a userId, never what Sluice generated itself —
 * the audiences' own identifies, a plan's Violation Generated events (userId "schema-violations") —
 * (see also the traits query).
 */
const FOLDABLE = `status = 'accepted' AND origin NOT IN ('audience', 'plan') AND user_id IS NOT NULL`;

export interface FoldResult {
  /** Last message id folded so far. */
  through: number;
  /** Highest message id stored: the fold has caught up when `through` reaches it. */
  latest: number;
  /** Message ids this call went over. */
  folded: number;
}

export class ProfileFold {
  readonly #cursor: StatementSync;
  readonly #setCursor: StatementSync;
  readonly #latest: StatementSync;
  readonly #upTo: StatementSync;
  readonly #users: StatementSync;
  readonly #events: StatementSync;
  readonly #traits: StatementSync;
  readonly #requestSpan: StatementSync;
  readonly #chainedRequests: StatementSync;
  readonly #chainedUsers: StatementSync;
  readonly #userVia: StatementSync;
  readonly #setUserVia: StatementSync;
  readonly #forgetUser: StatementSync[];
  readonly #rewind: () => void;

  constructor(db: DatabaseSync) {
    this.#cursor = db.prepare(`SELECT value FROM settings WHERE key = '${CURSOR_KEY}'`);
    this.#setCursor = db.prepare(
      `INSERT INTO settings (key, value) VALUES ('${CURSOR_KEY}', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    );
    this.#latest = db.prepare('SELECT coalesce(max(id), 0) AS id FROM messages');
    this.#rewind = profileCursorRewinder(db);
    // The id the chunk ends at: the `limit`-th message after the cursor, or the latest one.
    this.#upTo = db.prepare('SELECT coalesce(max(id), ?) AS id FROM (SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?)');
    this.#users = db.prepare(
      `INSERT INTO profile_users (source_id, user_id)
       SELECT DISTINCT source_id, user_id FROM messages WHERE id > ? AND id <= ? AND ${FOLDABLE}
       ON CONFLICT DO NOTHING`,
    );
    // In key order: each event's new rows mostly append at the end of its range (keyed by time).
    this.#events = db.prepare(
      `INSERT OR IGNORE INTO profile_events (source_id, event, at, message_id, user_id)
       SELECT source_id, event, coalesce(timestamp, received_at), id, user_id FROM messages
       WHERE id > ? AND id <= ? AND ${FOLDABLE} AND type = 'track' AND event IS NOT NULL
       ORDER BY 1, 2, 3, 4`,
    );
    // Later identifies win, key by key: later in time (the message's corrected timestamp, as events
    // are timed), then by message id. An older identify arriving last does not overwrite.
    this.#traits = db.prepare(
      `INSERT INTO profile_traits (source_id, key, user_id, type, value, at, message_id)
       SELECT m.source_id, t.key, m.user_id, t.type, t.value, coalesce(m.timestamp, m.received_at), m.id
       FROM messages m, json_each(m.raw, '$.traits') t
       WHERE m.id > ? AND m.id <= ? AND m.status = 'accepted' AND m.origin NOT IN ('audience', 'plan') AND m.user_id IS NOT NULL
         AND m.type = 'identify'
         AND json_type(m.raw, '$.traits') = 'object'
       ORDER BY m.id
       ON CONFLICT (source_id, key, user_id) DO UPDATE SET type = excluded.type, value = excluded.value,
         at = excluded.at, message_id = excluded.message_id
       WHERE (excluded.at, excluded.message_id) > (profile_traits.at, profile_traits.message_id)`,
    );
    // The Sluices users' messages came through (their requests' loop chains: shared/loop-guard.ts):
    // the requests of the chunk are found by id range (no per-message lookup), and only those with
    // a chain are joined back to their users.
    this.#requestSpan = db.prepare('SELECT min(request_id) AS lo, max(request_id) AS hi FROM messages WHERE id > ? AND id <= ?');
    this.#chainedRequests = db.prepare(
      `SELECT id, envelope ->> '$.via' AS via FROM requests WHERE id BETWEEN ? AND ? AND instr(envelope, '"via"') > 0`,
    );
    this.#chainedUsers = db.prepare(
      `SELECT DISTINCT source_id, user_id, request_id FROM messages
       WHERE id > ? AND id <= ? AND ${FOLDABLE} AND request_id IN (SELECT value FROM json_each(?))`,
    );
    this.#userVia = db.prepare('SELECT via FROM profile_users WHERE source_id = ? AND user_id = ?');
    this.#setUserVia = db.prepare('UPDATE profile_users SET via = ? WHERE source_id = ? AND user_id = ?');
    this.#forgetUser = [
      db.prepare('DELETE FROM profile_users WHERE source_id = ? AND user_id = ?'),
      db.prepare('DELETE FROM profile_traits WHERE source_id = ? AND user_id = ?'),
      // No index by user: a purge (rare) scans the source's events once.
      db.prepare('DELETE FROM profile_events WHERE source_id = ? AND user_id = ?'),
    ];
  }

  through(): number {
    const row = this.#cursor.get() as { value: string } | undefined;
    return row ? Number(row.value) : 0;
  }

  /** Folds at most `limit` messages after the cursor. Call inside a transaction. */
  fold(limit: number): FoldResult {
    const from = this.through();
    const latest = Number((this.#latest.get() as { id: number }).id);
    if (latest <= from) return { through: from, latest, folded: 0 };
    const to = Number((this.#upTo.get(from, from, limit) as { id: number }).id);
    this.#users.run(from, to);
    this.#foldChains(from, to);
    this.#events.run(from, to);
    this.#traits.run(from, to);
    this.#setCursor.run(String(to));
    return { through: to, latest, folded: to - from };
  }

  /** Merges into each user's `via` the loop chains of the requests their messages in (from, to] came in. */
  #foldChains(from: number, to: number): void {
    const span = this.#requestSpan.get(from, to) as { lo: number | null; hi: number | null };
    if (span.lo === null || span.hi === null) return;
    const chains = new Map<number, string[]>();
    for (const row of this.#chainedRequests.all(span.lo, span.hi) as { id: number; via: string | null }[]) {
      const via = row.via ? (JSON.parse(row.via) as unknown) : null;
      if (Array.isArray(via) && via.length > 0) chains.set(row.id, via.map(String));
    }
    if (chains.size === 0) return;
    const users = this.#chainedUsers.all(from, to, JSON.stringify([...chains.keys()])) as { source_id: number; user_id: string; request_id: number }[];
    for (const { source_id, user_id, request_id } of users) {
      const stored = (this.#userVia.get(source_id, user_id) as { via: string | null } | undefined)?.via;
      const before = stored ? (JSON.parse(stored) as string[]) : [];
      const merged = mergeChains(before, chains.get(request_id)!);
      if (merged.length !== before.length) this.#setUserVia.run(JSON.stringify(merged), source_id, user_id);
    }
  }

  /**
   * A purged user's messages are gone: their profile goes too. SQLite reuses the highest ids after a
   * delete, so the cursor moves back to the highest id still stored, or new messages would be skipped.
   */
  forgetUser(sourceId: number, userId: string): void {
    for (const statement of this.#forgetUser) statement.run(sourceId, userId);
    this.#rewind();
  }
}
